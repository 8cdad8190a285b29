// One organization webhook: its delivery history with every attempt, redeliver, a test ping,
// and delete after a confirmation. The signing secret is never shown.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { api, call } from '../api.ts';
import type { PageProps } from '../page-props.ts';
import { ConfirmButton, Empty, ErrorNote, Frame, Loading, Pager, Status, When } from '../ui.tsx';
import { useOrganization } from './Organization.tsx';

export function WebhookPage(p: PageProps & { orgId: string; hookId: string }) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [page, setPage] = useState(1);
  const [error, setError] = useState<unknown>(null);
  const path = { organizationId: p.orgId, webhookId: p.hookId };
  const org = useOrganization(p.orgId);
  const hook = useQuery({ queryKey: ['webhook', p.hookId], queryFn: () => call(api.GET('/organization/{organizationId}/webhook/{webhookId}', { params: { path } })) });
  const events = useQuery({
    queryKey: ['webhook-events', p.hookId, page], refetchInterval: 5000,
    queryFn: () => call(api.GET('/organization/{organizationId}/webhook/{webhookId}/event', { params: { path, query: { page, page_size: 20 } } })),
  });
  const refresh = () => qc.invalidateQueries({ queryKey: ['webhook-events', p.hookId] });
  const h = hook.data;
  return (
    <Frame
      crumbs={[{ label: 'Organizations', href: '/ui' }, { label: org.data?.name ?? '…', href: `/ui/organizations/${p.orgId}/webhooks` }, { label: h?.description || 'webhook' }]}
      onSignOut={p.signOut} engine={p.engine}
    >
      <h1>Webhook {h && <span className="muted small">{h.target_url}</span>}</h1>
      <ErrorNote error={hook.error ?? error} />
      {h && (
        <div className="row actions">
          <Status value={h.enabled ? 'ENABLED' : 'DISABLED'} />
          <span className="muted">{h.events.join(', ')} · signed with {h.target_secret_set ? 'your secret' : 'a generated secret'} (never shown)</span>
          <button type="button" onClick={async () => {
            setError(null);
            try { await call(api.POST('/organization/{organizationId}/webhook/{webhookId}/test', { params: { path }, body: {} })); await refresh(); } catch (err) { setError(err); }
          }}>Send a test ping</button>
          <ConfirmButton
            label="Delete" danger question="Delete this webhook? Its delivery history goes with it."
            onConfirm={async () => {
              await call(api.DELETE('/organization/{organizationId}/webhook/{webhookId}', { params: { path } }));
              await qc.invalidateQueries({ queryKey: ['webhooks', p.orgId] });
              navigate(`/ui/organizations/${p.orgId}/webhooks`);
            }}
          />
        </div>
      )}
      <section aria-label="Deliveries">
        <h2>Deliveries</h2>
        {events.isPending && <Loading />}
        <ErrorNote error={events.error} />
        {events.data?.results.length === 0 && <Empty>Nothing delivered yet. Send a test ping, or deploy something.</Empty>}
        {events.data?.results.map((e) => (
          <details key={e.id} className="card">
            <summary>
              <Status value={e.status} /> {e.matched_event} · <When at={e.created_at} /> · {e.attempts} attempt{e.attempts === 1 ? '' : 's'}
              {e.target_response_status_code !== null && <> · answered {e.target_response_status_code}</>}
            </summary>
            <table>
              <thead><tr><th>#</th><th>When</th><th>Answer</th><th>Duration</th></tr></thead>
              <tbody>
                {e.attempt_history.map((a) => (
                  <tr key={a.attempt}>
                    <td>{a.attempt}</td><td><When at={a.created_at} /></td>
                    <td>{a.error ?? a.response_status_code ?? '—'}</td><td>{a.duration_ms !== null ? `${a.duration_ms} ms` : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {e.next_attempt_at && <p className="muted">Next attempt <When at={e.next_attempt_at} /></p>}
            <ConfirmButton
              label="Redeliver" question={`Send the ${e.matched_event} event again to ${h?.target_url ?? 'the target'}?`}
              onConfirm={async () => {
                await call(api.POST('/organization/{organizationId}/webhook/{webhookId}/event/{eventId}/redeliver', { params: { path: { ...path, eventId: e.id } }, body: {} }));
                await refresh();
              }}
            />
          </details>
        ))}
        {events.data && <Pager page={events.data.pagination.page} totalPages={events.data.pagination.total_pages} total={events.data.pagination.total_count} onPage={setPage} />}
      </section>
    </Frame>
  );
}
