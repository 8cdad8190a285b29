// An organization's git settings: its git tokens (the credentials berth clones private
// repositories with; write-only, never shown back) and its git webhook (the signing secret,
// shown once when made, and the payload URL to give each provider). VIEWER reads tokens, ADMIN
// manages both (as the API enforces); the webhook's settings are for admins only.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { ApiError, api, call } from '../api.ts';
import { ResourceForm, valuesOf, type FieldSpec } from '../form.tsx';
import { ConfirmButton, CopyButton, Empty, ErrorNote, Loading, When } from '../ui.tsx';

const TOKEN_FIELDS: FieldSpec[] = [
  { name: 'name', label: 'Name', required: true },
  {
    name: 'type', label: 'Type', kind: 'select', required: true,
    options: [
      { value: 'GITHUB', label: 'GitHub' }, { value: 'GITLAB', label: 'GitLab' }, { value: 'BITBUCKET', label: 'Bitbucket' },
      { value: 'GENERIC', label: 'Generic (Gitea, Forgejo, any server taking it as a basic-auth password)' },
    ],
  },
  { name: 'token', label: 'Token', kind: 'password', required: true, help: 'write-only: sealed at rest, never shown back' },
  { name: 'description', label: 'Description' },
  { name: 'workspace', label: 'Workspace (Bitbucket)', help: 'required for a Bitbucket token' },
  { name: 'expired_at', label: 'Expires on', kind: 'date', help: 'optional, as your provider told you (berth records it; a clone with an expired token fails at the provider)' },
];

const EDIT_TOKEN_FIELDS: FieldSpec[] = TOKEN_FIELDS.map((f) => f.name === 'token'
  ? { ...f, required: false, label: 'New token', help: 'leave empty to keep the stored token (it is never shown back)' }
  : f);

type GitToken = NonNullable<Awaited<ReturnType<typeof listTokens>>>['results'][number];

function listTokens(orgId: string) {
  // a configuration list: every token when no page is asked for
  return call(api.GET('/organization/{organizationId}/gitToken', { params: { path: { organizationId: orgId } } }));
}

/** the tokens, for the git token selects of service forms */
export function useGitTokens(orgId: string | undefined, enabled = true) {
  return useQuery({ queryKey: ['git-tokens', orgId], enabled, queryFn: () => listTokens(orgId!) });
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

function Expiry({ at }: { at: string | undefined }) {
  if (!at) return <span className="muted">never</span>;
  const day = at.slice(0, 10);
  return Date.parse(at) <= Date.now() ? <span className="bad-text">expired {day}</span> : <time dateTime={at}>{day}</time>;
}

export function GitTokens(props: { orgId: string; canManage: boolean }) {
  const qc = useQueryClient();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<GitToken | null>(null);
  const [refused, setRefused] = useState<{ id: string; error: unknown } | null>(null);
  const tokens = useGitTokens(props.orgId);
  const key = ['git-tokens', props.orgId];
  const path = (gitTokenId: string) => ({ params: { path: { organizationId: props.orgId, gitTokenId } } });
  const reload = () => qc.invalidateQueries({ queryKey: key });
  return (
    <section aria-label="Git tokens">
      <div className="row spread">
        <h2>Git tokens</h2>
        {props.canManage && !adding && !editing && <button type="button" className="primary" onClick={() => setAdding(true)}>New git token</button>}
      </div>
      <p className="muted">Applications, jobs built from git and agentic workflows clone private repositories with one of these (their git repository's <em>Git token</em>).</p>
      {adding && (
        <ResourceForm
          title="New git token" submitLabel="Create git token" fields={TOKEN_FIELDS} onCancel={() => setAdding(false)}
          onSubmit={async (body) => {
            await call(api.POST('/organization/{organizationId}/gitToken', { params: { path: { organizationId: props.orgId } }, body: body as never }));
            setAdding(false);
            await reload();
          }}
        />
      )}
      {editing && (
        <ResourceForm
          key={editing.id} title={`Edit git token "${editing.name}"`} submitLabel="Save git token" fields={EDIT_TOKEN_FIELDS}
          initial={valuesOf(EDIT_TOKEN_FIELDS, editing)} alwaysSend={['name', 'type', 'description', 'workspace', 'expired_at']}
          onCancel={() => setEditing(null)}
          onSubmit={async (body) => {
            // every optional member is sent: an emptied one is cleared (null), an unchanged expiry kept as recorded
            body.description ??= null;
            body.workspace ??= null;
            const was = editing.expired_at;
            if (body.expired_at === undefined) body.expired_at = null;
            else if (was && String(body.expired_at).slice(0, 10) === was.slice(0, 10)) delete body.expired_at;
            await call(api.PUT('/organization/{organizationId}/gitToken/{gitTokenId}', { ...path(editing.id), body: body as never }));
            setEditing(null);
            await reload();
          }}
        />
      )}
      <ErrorNote error={tokens.error} />
      {tokens.isPending && <Loading />}
      {tokens.data?.results.length === 0 && (
        <Empty>No git token yet. {props.canManage ? 'Add one to deploy from a private repository.' : 'An admin can add one to deploy from private repositories.'}</Empty>
      )}
      {tokens.data && tokens.data.results.length > 0 && (
        <table className="git-tokens">
          <thead><tr><th>Name</th><th>Type</th><th>Description</th><th>Expires</th><th>Used by</th><th><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {tokens.data.results.map((t) => (
              <Fragment key={t.id}>
                <tr data-git-token={t.name}>
                  <td><strong>{t.name}</strong>{t.workspace && <span className="muted small"> · workspace {t.workspace}</span>}</td>
                  <td>{t.type}</td>
                  <td>{t.description || <span className="muted">—</span>}</td>
                  <td><Expiry at={t.expired_at} /></td>
                  <td>{plural(t.associated_services_count, 'service')}</td>
                  <td>
                    {props.canManage && (
                      <span className="row">
                        <button type="button" onClick={() => { setAdding(false); setRefused(null); setEditing(t); }}>Edit</button>
                        <ConfirmButton
                          label="Delete" danger question={`Delete the git token "${t.name}"? Services cannot clone with it any more. This cannot be undone.`}
                          onConfirm={async () => {
                            setRefused(null);
                            try {
                              await call(api.DELETE('/organization/{organizationId}/gitToken/{gitTokenId}', path(t.id)));
                            } catch (err) {
                              // in use: the API names the services; said next to the row once the dialog closes
                              if (err instanceof ApiError && err.status === 409) {
                                setRefused({ id: t.id, error: err });
                                await reload();
                                return;
                              }
                              throw err;
                            }
                            if (editing?.id === t.id) setEditing(null);
                            await reload();
                          }}
                        />
                      </span>
                    )}
                  </td>
                </tr>
                {refused?.id === t.id && (
                  <tr className="row-problem" data-git-token-problem={t.name}>
                    <td colSpan={6}><ErrorNote error={refused.error} /></td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

const PROVIDERS = [
  { key: 'github', name: 'GitHub', where: 'Settings → Webhooks → Add webhook; content type application/json; Secret', events: 'Pushes, Pull requests' },
  { key: 'gitlab', name: 'GitLab', where: 'Settings → Webhooks → Add new webhook; Secret token', events: 'Push events, Merge request events' },
  { key: 'bitbucket', name: 'Bitbucket Cloud', where: 'Repository settings → Webhooks → Add webhook; Secret', events: 'Repository: Push; Pull request: Created, Updated, Merged, Declined' },
  { key: 'gitea', name: 'Gitea', where: 'Settings → Webhooks → Add webhook → Gitea; Secret', events: 'Push events, Pull request events' },
  { key: 'forgejo', name: 'Forgejo', where: 'Settings → Webhooks → Add webhook → Forgejo; Secret', events: 'Push events, Pull request events' },
] as const;

export function GitWebhook(props: { orgId: string; canManage: boolean }) {
  const qc = useQueryClient();
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const key = ['git-webhook', props.orgId];
  const orgPath = { params: { path: { organizationId: props.orgId } } };
  const settings = useQuery({ queryKey: key, enabled: props.canManage, queryFn: () => call(api.GET('/organization/{organizationId}/gitWebhook', orgPath)) });
  if (!props.canManage) {
    return <section aria-label="Git webhook"><h2>Git webhook</h2><Empty>Only admins and owners can see the organization's git webhook.</Empty></section>;
  }
  const make = async () => {
    setError(null);
    // the answer holds the secret: kept in this component only, never in the query cache
    const made = await call(api.POST('/organization/{organizationId}/gitWebhook', orgPath));
    setSecret(made.secret);
    await qc.invalidateQueries({ queryKey: key });
  };
  const s = settings.data;
  return (
    <section aria-label="Git webhook">
      <h2>Git webhook</h2>
      <p className="muted">
        A push to a branch a service tracks deploys it (services with <em>Deploy automatically</em>); a pull request makes a preview
        environment (services with <em>Preview environment for each pull request</em>). Give each provider its payload URL and the secret.
      </p>
      <ErrorNote error={settings.error} />
      {settings.isPending && <Loading />}
      {secret && (
        <div className="card note" role="status" aria-label="New git webhook secret">
          <p>The webhook secret: paste it at each provider beside the payload URL. Copy it now: it will not be shown again.</p>
          <code className="secret-once">{secret}</code>
          <div className="row">
            <CopyButton text={secret} label="Copy secret" />
            <button type="button" onClick={() => setSecret(null)}>I have copied it</button>
          </div>
        </div>
      )}
      {s && (
        <>
          <p>
            {s.secret_set
              ? <>Secret: <strong>set</strong> <span className="muted">(made <When at={s.created_at} />; never shown again)</span></>
              : <>Secret: <strong>none</strong> <span className="muted">— every delivery is refused (401) until one is made.</span></>}
          </p>
          <div className="row actions" role="group" aria-label="Git webhook secret">
            {!s.secret_set && (
              <button type="button" className="primary" onClick={() => void make().catch(setError)}>Make a secret</button>
            )}
            {s.secret_set && (
              <ConfirmButton
                label="Replace secret" confirmLabel="Replace"
                question="Make a new secret? The current one stops working at once: deliveries are refused until each provider has the new one."
                onConfirm={make}
              />
            )}
            {s.secret_set && (
              <ConfirmButton
                label="Delete secret" danger
                question="Delete the secret? Every delivery is refused (401) until a new one is made; polling still deploys pushes."
                onConfirm={async () => {
                  await call(api.DELETE('/organization/{organizationId}/gitWebhook', orgPath));
                  setSecret(null);
                  await qc.invalidateQueries({ queryKey: key });
                }}
              />
            )}
          </div>
          <ErrorNote error={error} />
          <table className="git-webhook-urls">
            <thead><tr><th>Provider</th><th>Payload URL, where it goes and which events to send</th></tr></thead>
            <tbody>
              {PROVIDERS.map((p) => (
                <tr key={p.key} data-provider={p.key}>
                  <td>{p.name}</td>
                  <td>
                    <span className="row"><code className="id">{s.urls[p.key]}</code><CopyButton text={s.urls[p.key]} name={`Copy the ${p.name} URL`} /></span>
                    <span className="muted small">{p.where}. Events: {p.events}.</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted small">
            {s.poll_interval_seconds > 0
              ? `Without a webhook, berth also checks the tracked branches every ${s.poll_interval_seconds} s (git ls-remote); pull requests need the webhook.`
              : 'Polling is off (GIT_POLL_INTERVAL_SECONDS=0): pushes arrive by this webhook only.'}
          </p>
        </>
      )}
    </section>
  );
}
