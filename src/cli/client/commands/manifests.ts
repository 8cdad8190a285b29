// berth plan | apply | export | import compose (issue 41): an environment kept as a berth.yaml.
// plan and apply send the file to the organization's apply route (the server parses, checks and
// plans it: every client gets the same answer); apply shows the plan and asks before it applies
// (unless --yes, or when stdin is not a terminal). Secrets by reference `env:NAME` are read from
// this process's environment into `secret_values` (sent, never printed). Problems in the file are
// printed one per line as file:line:column. export prints an environment's (or a project's) file.
// import compose translates a docker-compose file offline (src/lib/compose) and writes berth.yaml.
import * as prompts from '@clack/prompts';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, relative, resolve as resolvePath } from 'node:path';
import { parseDocument } from 'yaml';
import { ComposeError, translateCompose } from '../../../lib/compose/translate.ts';
import { emitManifest } from '../../../lib/compose/emit.ts';
import { apiError, ok } from '../api.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { color, printJson } from '../output.ts';
import * as resolve from '../resolve.ts';
import { openSession, type GlobalOptions } from '../session.ts';
import { loadConfig, selectServer } from '../store.ts';

type TargetOptions = GlobalOptions & resolve.TargetFlags;
export interface PlanOptions extends TargetOptions { file?: string }
export interface ApplyOptions extends PlanOptions { deploy?: boolean; prune?: boolean; yes?: boolean }
export interface ImportOptions extends GlobalOptions { output?: string; force?: boolean; project?: string; environment?: string }

const SECRET_REF = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;

/** the file's text (- for stdin) and the name it is shown by */
async function readManifest(file: string | undefined): Promise<{ text: string; name: string }> {
  const path = file ?? 'berth.yaml';
  if (path === '-') {
    let text = '';
    for await (const chunk of process.stdin) text += chunk;
    return { text, name: '<stdin>' };
  }
  if (!existsSync(path)) throw new CliError(`${path}: no such file (pass the file with -f)`, EXIT.USAGE);
  return { text: readFileSync(path, 'utf8'), name: path };
}

/** every `env:NAME` string of the document, with its value from this process's environment when set */
export function secretValues(text: string): { values: Record<string, string>; missing: string[] } {
  const values: Record<string, string> = {};
  const missing = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      const m = SECRET_REF.exec(v);
      if (m) { const value = process.env[m[1]!]; if (value === undefined) missing.add(m[1]!); else values[m[1]!] = value; }
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  try { walk(parseDocument(text).toJS()); } catch { /* the server reports what does not parse, with line and column */ }
  return { values, missing: [...missing] };
}

interface Problem { file?: string; line?: number; column?: number; path?: string; message: string }

/** a 400 about the document: its problems, one per line as file:line:column: message */
function documentError(file: string, body: unknown): CliError | null {
  const b = (body ?? {}) as { errors?: Problem[]; problems?: Problem[]; message?: string };
  const list = b.errors ?? b.problems;
  if (!Array.isArray(list) || list.length === 0) return null;
  const lines = list.map((p) => `${p.file ?? file}:${p.line ?? 0}:${p.column ?? 0}: ${p.message}${p.path ? ` (${p.path})` : ''}`);
  return new CliError(`${file} has ${list.length} problem${list.length === 1 ? '' : 's'}:\n${lines.join('\n')}`, EXIT.USAGE);
}

/** an answer of the apply route: its data, a 400 about the document as its problems, else the API error */
async function answer<T>(file: string, call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) {
    if (response.status === 400) { const e = documentError(file, error); if (e) throw e; }
    throw apiError(response.status, error, response.headers.get('x-request-id'));
  }
  return data as T;
}

interface FieldChange { field: string; from?: unknown; to?: unknown; changed?: boolean }
interface Change { action: string; kind?: string; name?: string; path?: string; fields?: FieldChange[]; changes?: FieldChange[] }

const shown = (v: unknown) => (v === undefined ? color.dim('(none)') : JSON.stringify(v));

/** the plan as people read it: + create, ~ update (field by field; secrets as changed, never their values), = unchanged, - delete */
function printPlan(plan: unknown): { changed: number } {
  const p = (plan ?? {}) as { changes?: Change[]; resources?: Change[]; summary?: Record<string, number> };
  const changes = p.changes ?? p.resources ?? [];
  const sign: Record<string, string> = { create: color.green('+'), update: color.yellow('~'), unchanged: color.dim('='), delete: color.red('-') };
  let changed = 0;
  for (const c of changes) {
    const action = c.action.toLowerCase();
    if (action !== 'unchanged') changed++;
    const label = `${c.kind ? `${c.kind.toLowerCase()} ` : ''}${c.path ?? c.name ?? ''}`;
    process.stdout.write(`${sign[action] ?? '?'} ${action.padEnd(9)} ${label}\n`);
    for (const f of c.fields ?? c.changes ?? []) {
      process.stdout.write(f.changed !== undefined ? `      ${f.field}: ${color.dim(f.changed ? '(secret changed)' : '(secret unchanged)')}\n` : `      ${f.field}: ${shown(f.from)} → ${shown(f.to)}\n`);
    }
  }
  const count = (a: string) => changes.filter((c) => c.action.toLowerCase() === a).length;
  process.stdout.write(`${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete, ${count('unchanged')} unchanged\n`);
  return { changed };
}

async function send(opts: ApplyOptions, dryRun: boolean, manifest: { text: string; name: string }): Promise<unknown> {
  const s = openSession(opts);
  const t = await resolve.target(s.api, s.server.context, opts, 'organization');
  const secrets = secretValues(manifest.text);
  if (dryRun && secrets.missing.length > 0) {
    process.stderr.write(color.dim(`not set in this shell: ${secrets.missing.join(', ')} (berth resolves them from existing secrets of that name, or says which it cannot)\n`));
  }
  const body = {
    document: manifest.text, file: manifest.name,
    ...(opts.prune ? { prune: true } : {}), ...(opts.deploy ? { deploy: true } : {}),
    ...(Object.keys(secrets.values).length > 0 ? { secret_values: secrets.values } : {}),
  };
  return answer(manifest.name, s.api.POST('/organization/{organizationId}/apply', {
    params: { path: { organizationId: t.organization.id }, query: dryRun ? { dry_run: true } : {} }, body,
  }));
}

export async function plan(opts: PlanOptions): Promise<void> {
  const manifest = await readManifest(opts.file);
  const result = await send(opts, true, manifest);
  if (opts.json) return printJson(result);
  printPlan(result);
}

export async function apply(opts: ApplyOptions): Promise<void> {
  const manifest = await readManifest(opts.file);
  const planned = await send(opts, true, manifest);
  if (!opts.json) {
    const { changed } = printPlan(planned);
    if (changed === 0) { process.stdout.write('nothing to apply\n'); if (!opts.deploy) return; }
  }
  if (!opts.yes && process.stdin.isTTY && manifest.name !== '<stdin>') {
    const go = await prompts.confirm({ message: 'apply this plan?', initialValue: false });
    if (prompts.isCancel(go) || !go) throw new CliError('not applied', EXIT.USAGE);
  }
  const result = await send(opts, false, manifest);
  if (opts.json) return printJson(result);
  const r = (result ?? {}) as { deployments?: Array<{ name?: string; service_name?: string }> };
  process.stdout.write(`${color.green('applied')} ${manifest.name}\n`);
  if (Array.isArray(r.deployments) && r.deployments.length > 0) {
    process.stdout.write(`deploying: ${r.deployments.map((d) => d.service_name ?? d.name ?? '?').join(', ')}\n`);
  }
}

export async function exportManifest(opts: TargetOptions): Promise<void> {
  const s = openSession(opts);
  const whole = opts.environment === undefined && opts.project !== undefined;
  const t = await resolve.target(s.api, s.server.context, opts, whole ? 'project' : 'environment');
  // the file is YAML (application/yaml): read as text
  const text = whole
    ? await ok(s.api.GET('/project/{projectId}/export', { params: { path: { projectId: t.project.id } }, parseAs: 'text' }))
    : await ok(s.api.GET('/environment/{environmentId}/export', { params: { path: { environmentId: t.environment.id } }, parseAs: 'text' }));
  process.stdout.write(text);
}

/** the git repository holding `dir`: its origin URL, branch and the folder's path inside it (null when not in one) */
function gitOf(dir: string): { url: string; branch: string; path: string } | null {
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const maybe = (...args: string[]) => { try { return git(...args); } catch { return ''; } };
  const top = maybe('rev-parse', '--show-toplevel');
  if (!top) return null;
  // the branch checked out (symbolic-ref works before the first commit too)
  return { url: maybe('remote', 'get-url', 'origin'), branch: maybe('symbolic-ref', '--short', 'HEAD') || 'main', path: relative(top, dir) };
}

/** the JSON Schema's address: the current server's (or $BERTH_URL's), else a local berth's */
function schemaUrl(opts: GlobalOptions): string {
  let base = process.env.BERTH_URL;
  if (!base) {
    try { base = selectServer(loadConfig(), opts.server).server.url; } catch { base = 'http://localhost:8080'; }
  }
  return `${base.replace(/\/+$/, '')}/manifests/schema.json`;
}

export async function importCompose(file: string, opts: ImportOptions): Promise<void> {
  if (!existsSync(file)) throw new CliError(`${file}: no such file`, EXIT.USAGE);
  const dir = dirname(resolvePath(file));
  const repo = gitOf(dir);
  let translation;
  try {
    translation = translateCompose(readFileSync(file, 'utf8'), {
      readFile: (p) => { const full = resolvePath(dir, p); return existsSync(full) ? readFileSync(full, 'utf8') : null; },
      repositoryPath: repo?.path ?? '',
    });
  } catch (err) {
    if (err instanceof ComposeError) throw new CliError(`${file}: ${err.message}`, EXIT.USAGE);
    throw err;
  }
  const project = opts.project ?? translation.name ?? (basename(repo ? dir : dir) || 'app');
  const text = emitManifest(translation, {
    project, environment: opts.environment ?? 'development',
    git: repo && repo.url ? { url: repo.url, branch: repo.branch } : null,
    schemaUrl: schemaUrl(opts), source: basename(file),
  });
  const out = opts.output ?? 'berth.yaml';
  if (out === '-') process.stdout.write(text);
  else {
    if (existsSync(out) && !opts.force) throw new CliError(`${out} exists: pass --force to replace it, or -o another file`, EXIT.USAGE);
    writeFileSync(out, text);
  }
  if (opts.json) {
    printJson({ output: out, services: translation.services.map((s) => ({ name: s.name, kind: s.kind })), untranslated: translation.untranslated });
    return;
  }
  const log = (line: string) => (out === '-' ? process.stderr : process.stdout).write(line + '\n');
  log(`${out === '-' ? 'berth.yaml' : out}: ${translation.services.map((s) => `${s.name} (${s.kind})`).join(', ')}`);
  if (!repo?.url && translation.services.some((s) => s.kind === 'application')) log(color.yellow('no git remote "origin" beside the compose file: set git_repository.url of the built services'));
  if (translation.untranslated.length === 0) log('every key was translated');
  else {
    log(`not translated (${translation.untranslated.length}):`);
    for (const u of translation.untranslated) log(`  ${u.key}: ${u.why}`);
  }
}
