// berth env list|set|unset and berth secret set|unset, on any scope: the environment of the
// context by default, --project [NAME] for the project, --environment [NAME] for an environment,
// --service NAME for a service. Secret values are read from stdin or a hidden prompt when not
// given as KEY=VALUE, and are never printed.
import * as prompts from '@clack/prompts';
import { ok, type Api } from '../api.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { color, printJson, printTable } from '../output.ts';
import * as resolve from '../resolve.ts';
import { openSession } from '../session.ts';
import type { TargetOptions } from './services.ts';

export interface ScopeOptions extends Omit<TargetOptions, 'project' | 'environment'> {
  project?: string | boolean; environment?: string | boolean; service?: string;
}

interface Owner { scope: string; segment: string; id: string; label: string }
interface Variable { id: string; key: string; value?: string | null; scope: string; variable_type: string; service_name?: string | null }

/** the owner of the variables a command acts on, from the scope flags */
async function owner(api: Api, saved: Parameters<typeof resolve.target>[1], opts: ScopeOptions): Promise<Owner> {
  const flags: resolve.TargetFlags = {
    organization: opts.organization,
    project: typeof opts.project === 'string' ? opts.project : undefined,
    environment: typeof opts.environment === 'string' ? opts.environment : undefined,
  };
  if (opts.project && !opts.environment && !opts.service) {
    const t = await resolve.target(api, saved, flags, 'project');
    return { scope: 'PROJECT', segment: 'project', id: t.project.id, label: `project ${t.project.name}` };
  }
  const t = await resolve.target(api, saved, flags, 'environment');
  if (!opts.service) return { scope: 'ENVIRONMENT', segment: 'environment', id: t.environment.id, label: `environment ${t.environment.name}` };
  const svc = await resolve.service(api, t.environment, opts.service);
  const seg = resolve.segment(svc);
  if (seg === 'database') throw new CliError('databases have no variables of their own: set them on the environment or project', EXIT.USAGE);
  return { scope: svc.type, segment: seg, id: svc.id, label: `${seg} ${svc.name}` };
}

type Kind = 'environmentVariable' | 'secret';

/** the parent routes of every owner share one shape: the project's type describes them */
function list(api: Api, o: Owner, kind: Kind): Promise<Variable[]> {
  const path = `/${o.segment}/{${o.segment}Id}/${kind}` as '/project/{projectId}/environmentVariable';
  return ok(api.GET(path, { params: { path: { projectId: o.id, [`${o.segment}Id`]: o.id } } } as never))
    .then((r) => (r as unknown as { results: Variable[] }).results);
}

export async function envList(opts: ScopeOptions): Promise<void> {
  const s = openSession(opts);
  const o = await owner(s.api, s.server.context, opts);
  const [vars, secrets] = await Promise.all([list(s.api, o, 'environmentVariable'), list(s.api, o, 'secret')]);
  const rows = [...vars.map((v) => ({ ...v, is_secret: false })), ...secrets.map((v) => ({ ...v, value: null, is_secret: true }))]
    .sort((a, b) => a.key.localeCompare(b.key));
  if (opts.json) return printJson(rows);
  process.stdout.write(color.dim(`variables of ${o.label} (with those it inherits)\n`));
  printTable(['KEY', 'VALUE', 'SCOPE', 'TYPE'], rows.map((v) => [
    v.key, v.is_secret ? color.dim('(secret)') : v.value ?? '', v.scope.toLowerCase(), v.variable_type.toLowerCase(),
  ]));
}

function parseAssignment(arg: string): { key: string; value: string | undefined } {
  const i = arg.indexOf('=');
  return i < 0 ? { key: arg, value: undefined } : { key: arg.slice(0, i), value: arg.slice(i + 1) };
}

async function secretValue(key: string): Promise<string> {
  if (!process.stdin.isTTY) {
    let text = '';
    for await (const chunk of process.stdin) text += chunk;
    return text.replace(/\r?\n$/, '');
  }
  const v = await prompts.password({ message: `value of secret ${key}`, mask: '•' });
  if (prompts.isCancel(v)) throw new CliError('cancelled', EXIT.USAGE);
  return v;
}

export async function setVariables(kind: Kind, assignments: string[], opts: ScopeOptions): Promise<void> {
  const parsed = assignments.map(parseAssignment);
  for (const a of parsed) {
    if (!a.key) throw new CliError(`"${assignments.join(' ')}": expected KEY=VALUE`, EXIT.USAGE);
    if (a.value === undefined && kind === 'environmentVariable') throw new CliError(`${a.key}: expected KEY=VALUE`, EXIT.USAGE);
  }
  if (kind === 'secret' && parsed.filter((a) => a.value === undefined).length > 1) throw new CliError('give one secret at a time when its value comes from stdin or the prompt', EXIT.USAGE);
  const s = openSession(opts);
  const o = await owner(s.api, s.server.context, opts);
  const existing = (await list(s.api, o, kind)).filter((v) => v.scope === o.scope && (v.variable_type === 'VALUE' || v.variable_type === 'FILE'));
  for (const a of parsed) {
    const value = a.value ?? await secretValue(a.key);
    const found = existing.find((v) => v.key === a.key);
    const base = `/${o.segment}/{${o.segment}Id}/${kind}`;
    const params = { path: { projectId: o.id, [`${o.segment}Id`]: o.id, environmentVariableId: found?.id, secretId: found?.id } };
    if (found) {
      const path = `${base}/{${kind === 'secret' ? 'secretId' : 'environmentVariableId'}}` as '/project/{projectId}/environmentVariable/{environmentVariableId}';
      await ok(s.api.PUT(path, { params, body: { key: a.key, value } } as never));
    } else {
      await ok(s.api.POST(base as '/project/{projectId}/environmentVariable', { params, body: { key: a.key, value } } as never));
    }
    process.stderr.write(`${color.green('✔')} ${kind === 'secret' ? 'secret' : 'variable'} ${a.key} ${found ? 'changed' : 'created'} on ${o.label}\n`);
  }
  process.stderr.write(color.dim('services read variables when they deploy: run berth redeploy SERVICE to apply\n'));
}

export async function unsetVariables(kind: Kind, keys: string[], opts: ScopeOptions): Promise<void> {
  const s = openSession(opts);
  const o = await owner(s.api, s.server.context, opts);
  const existing = (await list(s.api, o, kind)).filter((v) => v.scope === o.scope);
  for (const key of keys) {
    const found = existing.find((v) => v.key === key);
    if (!found) throw new CliError(`no ${kind === 'secret' ? 'secret' : 'variable'} ${key} on ${o.label}`, EXIT.NOT_FOUND);
    const path = `/${o.segment}/{${o.segment}Id}/${kind}/{${kind === 'secret' ? 'secretId' : 'environmentVariableId'}}` as '/project/{projectId}/environmentVariable/{environmentVariableId}';
    await ok(s.api.DELETE(path, { params: { path: { projectId: o.id, [`${o.segment}Id`]: o.id, environmentVariableId: found.id, secretId: found.id } } } as never));
    process.stderr.write(`${color.green('✔')} ${key} removed from ${o.label}\n`);
  }
}
