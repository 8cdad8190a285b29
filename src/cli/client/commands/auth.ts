// berth login / logout / whoami: tokens come from a hidden prompt or stdin (never argv), are
// checked against the server before they are saved, and live in the config file (mode 0600).
// whoami names the caller and its role in each organization it sees.
import * as prompts from '@clack/prompts';
import { apiClient, ok } from '../api.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { color, printJson, printTable } from '../output.ts';
import { openSession, type GlobalOptions } from '../session.ts';
import { configFile, defaultServerName, loadConfig, saveConfig, type Context } from '../store.ts';

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

async function readToken(url: string): Promise<string> {
  if (!process.stdin.isTTY) return (await readStdin()).trim();
  const token = await prompts.password({ message: `API token for ${url}`, mask: '•' });
  if (prompts.isCancel(token)) throw new CliError('login cancelled', EXIT.USAGE);
  return token.trim();
}

export async function login(urlArg: string | undefined, opts: { name?: string }): Promise<void> {
  const url = (urlArg ?? 'http://localhost:8080').replace(/\/+$/, '');
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new CliError(`"${url}" is not an http(s) URL`, EXIT.USAGE);
  }
  const token = await readToken(url);
  if (!token) throw new CliError('no token given (type it at the prompt, or pipe it on stdin)', EXIT.USAGE);
  const orgs = await ok(apiClient({ url, token }).GET('/organization'));
  const context: Context = orgs.results.length === 1 ? { organization: { id: orgs.results[0]!.id, name: orgs.results[0]!.name } } : {};
  const config = loadConfig();
  const name = opts.name ?? defaultServerName(url);
  config.servers[name] = { url, token, context: config.servers[name]?.url === url ? { ...context, ...config.servers[name]!.context } : context };
  config.current = name;
  saveConfig(config);
  const where = context.organization ? ` (organization ${context.organization.name})` : ` (${orgs.results.length} organizations: choose one with berth context set --organization NAME)`;
  process.stderr.write(`${color.green('✔')} logged in to ${url} as server "${name}"${where}; token saved in ${configFile()}\n`);
}

export function logout(opts: GlobalOptions & { all?: boolean }): void {
  const config = loadConfig();
  const names = opts.all ? Object.keys(config.servers) : [opts.server ?? config.current].filter((n): n is string => !!n);
  if (names.length === 0 || names.some((n) => !config.servers[n])) throw new CliError('not logged in', EXIT.AUTH);
  for (const n of names) delete config.servers[n];
  if (config.current && !config.servers[config.current]) config.current = Object.keys(config.servers)[0] ?? null;
  saveConfig(config);
  process.stderr.write(`logged out of ${names.join(', ')}${config.current ? `; current server is now "${config.current}"` : ''}\n`);
}

export async function whoami(opts: GlobalOptions): Promise<void> {
  const s = openSession(opts);
  const orgs = await ok(s.api.GET('/organization'));
  // the caller's own role in each organization (GET …/currentRole, decision 0605)
  const roles = await Promise.all(orgs.results.map((o) =>
    ok(s.api.GET('/organization/{organizationId}/currentRole', { params: { path: { organizationId: o.id } } }))));
  const info = {
    server: s.name, url: s.server.url,
    principal: roles[0]?.principal ?? null,
    organizations: orgs.results.map((o, i) => ({ id: o.id, name: o.name, role: roles[i]!.role, permissions: roles[i]!.permissions })),
    context: s.server.context,
    servers: Object.keys(s.config.servers),
  };
  if (opts.json) return printJson(info);
  const who = info.principal ? `${info.principal.kind === 'TOKEN' ? 'token' : 'user'} ${info.principal.name}` : color.dim('(no organization to ask)');
  process.stdout.write(`server        ${color.bold(s.name)}  ${s.server.url}\n`);
  process.stdout.write(`as            ${who}\n`);
  process.stdout.write(`organization  ${s.server.context.organization?.name ?? color.dim('(none chosen)')}\n`);
  process.stdout.write(`project       ${s.server.context.project?.name ?? color.dim('(none chosen)')}\n`);
  process.stdout.write(`environment   ${s.server.context.environment?.name ?? color.dim('(none chosen)')}\n`);
  process.stdout.write('\n');
  const may = (p: Record<string, boolean>) => Object.keys(p).filter((k) => p[k]).join(', ');
  printTable(['ORGANIZATIONS THIS TOKEN SEES', 'ROLE', 'MAY', 'ID'], info.organizations.map((o) => [o.name, o.role, may(o.permissions), o.id]));
}
