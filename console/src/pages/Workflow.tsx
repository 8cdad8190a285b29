// An agentic workflow: its incoming webhook URL, its schedule and next run, its runs, its
// settings form, and delete after a confirmation. The model's api_key is write-only.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api, call } from '../api.ts';
import { useCaps } from '../caps.ts';
import { ResourceForm, valuesOf } from '../form.tsx';
import type { PageProps } from '../main.tsx';
import { WORKFLOW_FIELDS } from '../specs.ts';
import { ConfirmButton, Empty, ErrorNote, Frame, Loading, Status, When } from '../ui.tsx';
import { useEnvironment, useEnvironmentCrumbs } from './Environment.tsx';
import { useOrgOptions } from './NewService.tsx';

export function WorkflowPage(p: PageProps & { id: string }) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [editing, setEditing] = useState(false);
  const path = { params: { path: { agenticWorkflowId: p.id } } };
  const wf = useQuery({ queryKey: ['workflow', p.id], queryFn: () => call(api.GET('/agenticWorkflow/{agenticWorkflowId}', path)) });
  const envId = wf.data?.environment.id;
  const env = useEnvironment(envId);
  const orgId = env.data?.organization.id;
  const caps = useCaps(orgId);
  const fields = useOrgOptions(orgId ?? '', WORKFLOW_FIELDS);
  const runs = useQuery({
    queryKey: ['runs', p.id], refetchInterval: 5000,
    queryFn: () => call(api.GET('/agenticWorkflow/{agenticWorkflowId}/run', { params: { path: { agenticWorkflowId: p.id }, query: { page_size: 20 } } })),
  });
  const w = wf.data;
  const crumbs = useEnvironmentCrumbs(envId, wf.data?.name ?? '…');
  const name = w?.name ?? '…';
  return (
    <Frame
      crumbs={crumbs}
      onSignOut={p.signOut} engine={p.engine}
    >
      <div className="row spread">
        <h1>{name} <span className="muted small">agentic workflow</span></h1>
        {w && <Status value={w.enabled ? 'ENABLED' : 'DISABLED'} />}
      </div>
      <ErrorNote error={wf.error} />
      {w && (
        <dl className="facts">
          <dt>Incoming webhook</dt><dd><code className="id">{w.webhook.url}</code></dd>
          <dt>Schedule</dt>
          <dd>{w.schedule ? <>{w.schedule.cron_expression} ({w.schedule.timezone}) · next run <When at={w.schedule.next_run_at} /></> : 'webhook only'}</dd>
          <dt>Model</dt><dd>{w.model ? `${w.model.type}${w.model.llm_provider_id ? ' through an LLM provider' : ''}` : '—'}</dd>
          <dt>Execution</dt><dd>{w.execution_mode === 'CLONE_ENVIRONMENT' ? 'in a throwaway copy of the environment' : 'in place'}</dd>
        </dl>
      )}
      {caps.canWrite && w && (
        <div className="row actions">
          <button type="button" onClick={() => setEditing((x) => !x)} aria-expanded={editing}>Edit settings</button>
          <ConfirmButton
            label="Delete" danger question={`Delete the workflow "${name}"? Its webhook stops answering and its schedule stops.`}
            onConfirm={async () => {
              await call(api.DELETE('/agenticWorkflow/{agenticWorkflowId}', path));
              navigate(`/ui/environments/${envId}`);
            }}
          />
        </div>
      )}
      {editing && w && (
        <ResourceForm
          title={`Settings of ${name}`} submitLabel="Save" fields={fields} initial={valuesOf(fields, w)} alwaysSend={['name']} onCancel={() => setEditing(false)}
          onSubmit={async (body) => {
            await call(api.PUT('/agenticWorkflow/{agenticWorkflowId}', { ...path, body: body as never }));
            setEditing(false);
            await qc.invalidateQueries({ queryKey: ['workflow', p.id] });
          }}
        />
      )}
      <section aria-label="Runs">
        <h2>Runs</h2>
        <ErrorNote error={runs.error} />
        {runs.isPending && <Loading />}
        {runs.data?.results.length === 0 && <Empty>No run yet. POST to the incoming webhook{w?.schedule ? ' or wait for the schedule' : ''} to start one.</Empty>}
        {runs.data && runs.data.results.length > 0 && (
          <table>
            <thead><tr><th>Triggered</th><th>By</th><th>Status</th><th>Finished</th><th>Deployment</th></tr></thead>
            <tbody>
              {runs.data.results.map((r) => (
                <tr key={r.id}>
                  <td><When at={r.created_at} /></td><td>{r.trigger.toLowerCase()}</td><td><Status value={r.status} /></td>
                  <td><When at={r.finished_at} /></td>
                  <td>{r.deployment_id ? <Link href={`/ui/deployments/${r.deployment_id}`}>log</Link> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </Frame>
  );
}
