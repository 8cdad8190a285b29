// An agentic workflow: its incoming webhook URL, its schedule and next run, "Run now", its runs
// (WorkflowRuns.tsx; each opens its own page, WorkflowRun.tsx), its settings form, and delete
// after a confirmation. The model's api_key is write-only.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { api, call } from '../api.ts';
import { useCaps } from '../caps.ts';
import { ResourceForm, valuesOf } from '../form.tsx';
import type { PageProps } from '../page-props.ts';
import { WORKFLOW_FIELDS } from '../specs.ts';
import { ConfirmButton, ErrorNote, Frame, Status, When } from '../ui.tsx';
import { useEnvironment, useEnvironmentCrumbs } from './Environment.tsx';
import { useOrgOptions } from './NewService.tsx';
import { RunNowForm, RunsList } from './WorkflowRuns.tsx';

export function WorkflowPage(p: PageProps & { id: string }) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [editing, setEditing] = useState(false);
  const [starting, setStarting] = useState(false);
  const path = { params: { path: { agenticWorkflowId: p.id } } };
  const wf = useQuery({ queryKey: ['workflow', p.id], queryFn: () => call(api.GET('/agenticWorkflow/{agenticWorkflowId}', path)) });
  const envId = wf.data?.environment.id;
  const env = useEnvironment(envId);
  const orgId = env.data?.organization.id;
  const caps = useCaps(orgId);
  const fields = useOrgOptions(orgId, WORKFLOW_FIELDS);
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
        <div className="row actions" role="group" aria-label="Actions">
          <button
            type="button" className="primary" aria-expanded={starting} disabled={!w.enabled}
            title={w.enabled ? undefined : 'The workflow is disabled: enable it in its settings to start runs'}
            onClick={() => setStarting((x) => !x)}
          >Run now</button>
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
      {starting && w && <RunNowForm workflowId={p.id} name={name} onCancel={() => setStarting(false)} />}
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
      {w && (
        <RunsList
          workflowId={p.id}
          emptyHint={`${caps.canWrite ? 'Press Run now, or POST' : 'POST'} to the incoming webhook${w.schedule ? ' or wait for the schedule' : ''} to start one.`}
        />
      )}
    </Frame>
  );
}
