// Preview environments in the console: an environment's previews (one per pull request, each
// with its state, why, and a link to its copy) and, on a preview environment itself, which pull
// request of which environment it previews. Previews are made by pull-request events, so there is
// nothing to create here; a pull request from a fork waits for approval (AWAITING_APPROVAL), and a
// role that may deploy the environment approves its head commit here (decision 0748).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, call, type Paths } from '../api.ts';
import { ConfirmButton, Empty, ErrorNote, Loading, Status, When } from '../ui.tsx';

type Preview = Paths['/environment/{environmentId}/preview']['get']['responses'][200]['content']['application/json']['results'][number];

/** an environment's previews: open ones first (all of them fit one page: the cap is at most 100) */
function usePreviews(envId: string | null | undefined) {
  return useQuery({
    queryKey: ['previews', envId], refetchInterval: 15_000,
    queryFn: () => call(api.GET('/environment/{environmentId}/preview', { params: { path: { environmentId: envId! }, query: { page_size: 100 } } })),
  });
}

const number = (p: Pick<Preview, 'provider' | 'pull_request_number'>) => `${p.provider === 'GITLAB' ? '!' : '#'}${p.pull_request_number}`;
const what = (p: Pick<Preview, 'provider'>) => (p.provider === 'GITLAB' ? 'merge request' : 'pull request');

/** `canApprove`: the caller's role may deploy the environment (DevOps and above), so may approve a fork's pull request */
export function Previews({ envId, canApprove }: { envId: string; canApprove: boolean }) {
  const list = usePreviews(envId);
  const qc = useQueryClient();
  const rows = list.data?.results ?? [];
  const approve = async (p: Preview) => {
    await call(api.POST('/environment/{environmentId}/preview/{previewId}/approve', { params: { path: { environmentId: envId, previewId: p.id } } }));
    await qc.invalidateQueries({ queryKey: ['previews', envId] });
  };
  return (
    <section aria-label="Previews">
      <h2>Previews</h2>
      <ErrorNote error={list.error} />
      {list.isPending && <Loading />}
      {list.data && rows.length === 0 && (
        <Empty>No preview yet. A pull request against the branch a service with auto_preview tracks gets a copy of this environment, deployed from the pull request&apos;s branch and deleted when it closes (the git webhook must send pull request events).</Empty>
      )}
      {rows.length > 0 && (
        <table className="previews">
          <thead><tr><th>Pull request</th><th>Branch</th><th>Commit</th><th>State</th><th>On the provider</th><th>Preview environment</th><th>Updated</th></tr></thead>
          <tbody>
            {rows.map((p) => (
              <tr key={p.id} data-preview={p.pull_request_number}>
                <td>{number(p)} {p.title}{p.author && <span className="muted small"> by {p.author}</span>}</td>
                <td>{p.head_branch} <span className="muted">→ {p.base_branch}</span></td>
                <td><code title={p.head_commit}>{p.head_commit.slice(0, 7)}</code></td>
                <td>
                  <Status value={p.state} />
                  {p.from_fork && <span className="badge muted">fork</span>}
                  {p.message && <div className="muted small" data-preview-message>{p.message}</div>}
                  {p.approved_by && p.approved_at && <div className="muted small">last approved by {p.approved_by} <When at={p.approved_at} /></div>}
                  {p.state === 'AWAITING_APPROVAL' && canApprove && (
                    <ConfirmButton
                      label="Approve" confirmLabel={`Approve ${p.head_commit.slice(0, 7)}`}
                      question={`${what(p)[0]!.toUpperCase()}${what(p).slice(1)} ${number(p)} comes from a fork. Approving runs its head commit ${p.head_commit.slice(0, 7)} `
                        + `in a copy of this environment, with its variables and secrets. Read the changes first. A new commit waits for approval again.`}
                      onConfirm={() => approve(p)}
                    />
                  )}
                </td>
                <td data-provider-status>{providerStatusText(p.provider_status)}</td>
                <td>
                  {p.preview_environment_id
                    ? <Link href={`/ui/environments/${p.preview_environment_id}`}>{p.preview_environment_name}</Link>
                    : <span className="muted">{p.preview_environment_name ?? 'none'}</span>}
                </td>
                <td><When at={p.updated_at ?? p.created_at} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** how berth reports the pull request to its provider, as text: posting, or why not, and the last error */
function providerStatusText(s: { reporting: boolean; reason: string | null; last_error: string | null; last_posted_at: string | null } | null) {
  if (!s) return <span className="muted">nothing posted yet</span>;
  return (
    <>
      {s.reporting ? <span>posting statuses and a comment</span> : <span>not posting: {s.reason}</span>}
      {s.last_error && <div className="muted small">last error: {s.last_error}</div>}
      {s.last_posted_at && <div className="muted small">last posted <When at={s.last_posted_at} /></div>}
    </>
  );
}

/** on a preview environment: the pull request and environment it previews, and when it goes */
export function PreviewOf({ env }: { env: { id: string; mode: string; cloned_from_id: string | null; expires_at: string | null } }) {
  const sourceId = env.mode === 'PREVIEW' ? env.cloned_from_id : null;
  const source = useQuery({
    queryKey: ['environment', sourceId],
    queryFn: () => call(api.GET('/environment/{environmentId}', { params: { path: { environmentId: sourceId! } } })),
  });
  const previews = usePreviews(sourceId);
  if (env.mode !== 'PREVIEW') return null;
  const p = previews.data?.results.find((x) => x.preview_environment_id === env.id);
  return (
    <p className="note" role="note" aria-label="Preview of a pull request">
      {'Preview of '}
      {p ? <>{what(p)} <strong>{number(p)}</strong> {p.title && <q>{p.title}</q>} ({p.head_branch} at <code>{p.head_commit.slice(0, 7)}</code>)</> : 'a pull request'}
      {' of '}
      {sourceId ? <Link href={`/ui/environments/${sourceId}`}>{source.data?.name ?? 'its environment'}</Link> : 'an environment that no longer exists'}
      {'. It is deleted when the pull request closes'}
      {env.expires_at ? <>, or if no event of it comes before <When at={env.expires_at} /></> : null}.
    </p>
  );
}
