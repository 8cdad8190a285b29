// What `berth status` says about preview environments: an environment that is a preview names
// the pull request and environment it previews; an environment with previews lists the ones not
// closed (open, refused, failed, awaiting approval) with their copy. A berth without the previews
// route (older) is answered as having none. Also `berth previews` (an environment's previews, all
// of them) and `berth preview approve <preview>` (a pull request from a fork: its head commit
// approved, its preview opened; decision 0748).
import { ok, type Api, type paths } from '../api.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { color, printJson, printTable, state } from '../output.ts';
import * as resolve from '../resolve.ts';
import { openSession, type GlobalOptions, type Session } from '../session.ts';
import type { Named } from '../store.ts';

/** --server, --json and where (services.ts imports this file, so its alias of the same is not imported back) */
type TargetOptions = GlobalOptions & resolve.TargetFlags;

type Preview = paths['/environment/{environmentId}/preview']['get']['responses'][200]['content']['application/json']['results'][number];

export interface PreviewFacts {
  mode: string;
  /** set when the environment is a preview: the pull request and the environment it previews */
  preview_of: { environment: { id: string; name: string } | null; pull_request: Preview | null } | null;
  /** the environment's previews that are not closed */
  previews: Preview[];
}

async function previewsOf(api: Api, environmentId: string): Promise<Preview[]> {
  const r = await api.GET('/environment/{environmentId}/preview', { params: { path: { environmentId }, query: { page_size: 100 } } });
  // an older berth has no such route (404 "No route…"), a deleted environment none either
  if (r.response.status === 404) return [];
  return (await ok(Promise.resolve(r))).results;
}

export async function previewFacts(api: Api, environmentId: string): Promise<PreviewFacts> {
  const env = await ok(api.GET('/environment/{environmentId}', { params: { path: { environmentId } } }));
  if (env.mode !== 'PREVIEW') {
    return { mode: env.mode, preview_of: null, previews: (await previewsOf(api, environmentId)).filter((p) => p.state !== 'CLOSED') };
  }
  const sourceId = env.cloned_from_id;
  const source = sourceId ? await api.GET('/environment/{environmentId}', { params: { path: { environmentId: sourceId } } }) : null;
  const pr = sourceId ? (await previewsOf(api, sourceId)).find((p) => p.preview_environment_id === environmentId) ?? null : null;
  return {
    mode: env.mode, previews: [],
    preview_of: { environment: source?.data ? { id: source.data.id, name: source.data.name } : null, pull_request: pr },
  };
}

const number = (p: Preview) => `${p.provider === 'GITLAB' ? '!' : '#'}${p.pull_request_number}`;

/** the line under the environment's name when it is a preview */
export function previewOfLine(f: PreviewFacts): string | null {
  if (!f.preview_of) return null;
  const pr = f.preview_of.pull_request;
  const what = pr ? `${pr.provider === 'GITLAB' ? 'merge' : 'pull'} request ${number(pr)}${pr.title ? ` "${pr.title}"` : ''} (${pr.head_branch} at ${pr.head_commit.slice(0, 7)})` : 'a pull request';
  return `${color.yellow('preview')} of ${what} of ${f.preview_of.environment ? color.bold(f.preview_of.environment.name) : 'an environment that no longer exists'}`;
}

/** the table of previews after the services */
export function printPreviews(f: PreviewFacts): void {
  if (f.previews.length === 0) return;
  process.stdout.write('\n');
  printTable(['PREVIEW', 'PULL REQUEST', 'BRANCH', 'COMMIT', 'STATE'], f.previews.map((p) => [
    p.preview_environment_name ?? color.dim('none'), `${number(p)} ${p.title}`.trim(), p.head_branch, p.head_commit.slice(0, 7),
    p.state === 'OPEN' ? state('OPEN') : p.state === 'AWAITING_APPROVAL' ? approvalHint(p) : `${state(p.state)} ${color.dim(p.message ?? '')}`,
  ]));
}

/** a fork's pull request waiting: the command that approves it (the message says who may and why) */
function approvalHint(p: Preview): string {
  return `${color.yellow('AWAITING_APPROVAL')} ${color.dim(`(from a fork) berth preview approve ${p.id} --environment ${p.environment.id}`)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** the environment of --environment (an id is taken as is: the API's message names the environment by id), else the context's */
async function environmentOf(s: Session, opts: TargetOptions): Promise<Named> {
  if (opts.environment && UUID.test(opts.environment) && !opts.project && !opts.organization) {
    const env = await ok(s.api.GET('/environment/{environmentId}', { params: { path: { environmentId: opts.environment } } }));
    return { id: env.id, name: env.name };
  }
  return (await resolve.target(s.api, s.server.context, opts, 'environment')).environment;
}

/** every preview of the environment (the list pages: 100 at a time) */
async function allPreviews(api: Api, environmentId: string): Promise<Preview[]> {
  const out: Preview[] = [];
  for (let page = 1; ; page++) {
    const r = await ok(api.GET('/environment/{environmentId}/preview', { params: { path: { environmentId }, query: { page, page_size: 100 } } }));
    out.push(...r.results);
    if (page >= r.pagination.total_pages) return out;
  }
}

/** a preview named by its id, the first characters of its id, or its pull request's number (12, #12, !12) */
function pickPreview(previews: Preview[], ref: string, env: Named): Preview {
  const word = ref.trim().toLowerCase();
  const number = /^[#!]?(\d{1,10})$/.exec(word);
  // bare digits may be a number or the start of an id: both are looked at
  const found = previews.filter((p) => (number && p.pull_request_number === Number(number[1])) || (!/^[#!]/.test(word) && word !== '' && p.id.startsWith(word)));
  if (found.length === 1) return found[0]!;
  if (found.length > 1) throw new CliError(`"${ref}" names ${found.length} previews of ${env.name}: give (more of) the preview's id`, EXIT.USAGE);
  throw new CliError(`no preview "${ref}" of environment ${env.name} (berth previews lists them)`, EXIT.NOT_FOUND);
}

/** berth previews: the environment's previews, open ones first, then the most recently changed */
export async function list(opts: TargetOptions): Promise<void> {
  const s = openSession(opts);
  const env = await environmentOf(s, opts);
  const previews = await allPreviews(s.api, env.id);
  if (opts.json) return printJson(previews);
  printTable(['ID', 'PULL REQUEST', 'BRANCH', 'COMMIT', 'STATE', 'PREVIEW ENVIRONMENT'], previews.map((p) => [
    p.id.slice(0, 8), `${number(p)} ${p.title}`.trim(), p.head_branch, p.head_commit.slice(0, 7),
    p.state === 'AWAITING_APPROVAL' ? color.yellow(p.state) + (p.approved_by ? color.dim(` (last approved by ${p.approved_by})`) : '') : state(p.state),
    p.preview_environment_name ?? color.dim('none'),
  ]));
  const waiting = previews.filter((p) => p.state === 'AWAITING_APPROVAL');
  if (waiting.length > 0) {
    process.stdout.write(`\n${waiting.length} pull request${waiting.length === 1 ? '' : 's'} from a fork wait${waiting.length === 1 ? 's' : ''} for approval `
      + '(a role that may deploy this environment; each new commit waits again):\n');
    for (const p of waiting) process.stdout.write(`  berth preview approve ${p.id} --environment ${env.id}   ${color.dim(`# ${number(p)} at ${p.head_commit.slice(0, 7)}`)}\n`);
  }
}

/** berth preview approve <preview>: the head commit of a fork's pull request approved; its preview opens at it */
export async function approve(ref: string, opts: TargetOptions): Promise<void> {
  const s = openSession(opts);
  const env = await environmentOf(s, opts);
  const id = UUID.test(ref.trim()) ? ref.trim() : pickPreview(await allPreviews(s.api, env.id), ref, env).id;
  const p = await ok(s.api.POST('/environment/{environmentId}/preview/{previewId}/approve', { params: { path: { environmentId: env.id, previewId: id } } }));
  if (opts.json) return printJson(p);
  process.stdout.write(`approved ${p.provider === 'GITLAB' ? 'merge' : 'pull'} request ${number(p)}${p.title ? ` "${p.title}"` : ''} at ${p.head_commit.slice(0, 7)}: `
    + `preview ${p.preview_environment_name ?? 'environment'} ${state(p.state)}, deploying ${p.head_branch} `
    + `(a new commit waits for approval again)\n`);
}
