// berth context / context set: the organization, project and environment (and server) that
// commands use when no flag says otherwise; chosen by name or id, stored with their names.
import { CliError, EXIT } from '../exit-codes.ts';
import { color, printJson } from '../output.ts';
import * as resolve from '../resolve.ts';
import { openSession, type GlobalOptions } from '../session.ts';
import { loadConfig, saveConfig, type Context } from '../store.ts';

export function showContext(opts: GlobalOptions): void {
  const config = loadConfig();
  const name = opts.server ?? config.current;
  const server = name ? config.servers[name] : undefined;
  if (!name || !server) throw new CliError('not logged in: run berth login URL', EXIT.AUTH);
  const c = server.context;
  if (opts.json) return printJson({ server: name, url: server.url, ...c });
  const line = (label: string, v?: { name: string; id: string }) =>
    process.stdout.write(`${label.padEnd(13)} ${v ? `${color.bold(v.name)} ${color.dim(v.id)}` : color.dim('(none)')}\n`);
  process.stdout.write(`${'server'.padEnd(13)} ${color.bold(name)} ${color.dim(server.url)}\n`);
  line('organization', c.organization);
  line('project', c.project);
  line('environment', c.environment);
}

export async function setContext(opts: GlobalOptions & resolve.TargetFlags): Promise<void> {
  if (opts.server) {
    const config = loadConfig();
    if (!config.servers[opts.server]) throw new CliError(`no server named "${opts.server}" (known: ${Object.keys(config.servers).join(', ') || 'none'})`, EXIT.NOT_FOUND);
    config.current = opts.server;
    saveConfig(config);
  }
  if (!opts.organization && !opts.project && !opts.environment) {
    if (!opts.server) throw new CliError('context set needs --organization, --project, --environment or --server', EXIT.USAGE);
    return showContext({ ...opts, server: undefined });
  }
  const s = openSession({ server: opts.server });
  const saved = s.server.context;
  const next: Context = {};
  next.organization = opts.organization ? await resolve.organization(s.api, opts.organization) : saved.organization ?? await resolve.organization(s.api, undefined);
  const sameOrg = next.organization.id === saved.organization?.id;
  if (opts.project) next.project = await resolve.project(s.api, next.organization, opts.project);
  else if (sameOrg) next.project = saved.project;
  const sameProject = next.project && next.project.id === saved.project?.id;
  if (opts.environment) {
    if (!next.project) throw new CliError('choose a project first: --project NAME', EXIT.AUTH);
    next.environment = await resolve.environment(s.api, next.project, opts.environment);
  } else if (sameProject) next.environment = saved.environment;
  s.saveContext(next);
  showContext({ json: opts.json });
}
