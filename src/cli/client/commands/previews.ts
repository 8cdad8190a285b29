// What `berth status` says about preview environments: an environment that is a preview names
// the pull request and environment it previews; an environment with previews lists the ones not
// closed (open, refused, failed) with their copy. A berth without the previews route (older) is
// answered as having none.
import { ok, type Api, type paths } from '../api.ts';
import { color, printTable, state } from '../output.ts';

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
    p.state === 'OPEN' ? state('OPEN') : `${state(p.state)} ${color.dim(p.message ?? '')}`,
  ]));
}
