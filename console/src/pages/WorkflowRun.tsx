// One run of an agentic workflow: its status and figures, why it failed, the agent's result and
// the trigger payload (as text, never markup), the transcript (the run's deployment log, live
// while the run is queued or running, each line styled by kind), cancel while it is queued or
// running (after a confirmation), and the deliveries of its result to the outputs.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef } from 'react';
import { Link } from 'wouter';
import { ApiError, api, call } from '../api.ts';
import { useCaps } from '../caps.ts';
import type { PageProps } from '../page-props.ts';
import { formatCost, formatCount, formatDuration, isActive, prettyJson, transcriptClass, triggerLabel } from '../runs.ts';
import { ConfirmButton, CopyId, Empty, ErrorNote, Frame, Loading, Status, When } from '../ui.tsx';
import { LogLines, useDeploymentLog, type Deployment } from './Deployment.tsx';
import { useEnvironment, useEnvironmentCrumbs } from './Environment.tsx';
import { RunDeliveries } from './RunDeliveries.tsx';

function getRun(workflowId: string, runId: string) {
  return call(api.GET('/agenticWorkflow/{agenticWorkflowId}/run/{runId}', { params: { path: { agenticWorkflowId: workflowId, runId } } }));
}

/** the run's log, live: the deployment log hook, reporting each change of the deployment's status */
function Transcript(props: { deploymentId: string; active: boolean; onChange: () => void }) {
  const last = useRef<string | undefined>(undefined);
  const { onChange } = props;
  const onStatus = useCallback((d: Deployment) => {
    if (last.current !== undefined && last.current !== d.status) onChange();
    last.current = d.status;
  }, [onChange]);
  const { lines } = useDeploymentLog(props.deploymentId, onStatus);
  return (
    <LogLines
      lines={lines} label="Transcript" classOf={transcriptClass} className="transcript"
      empty={props.active ? 'Waiting for the run to start…' : 'No transcript line.'}
    />
  );
}

export function WorkflowRunPage(p: PageProps & { id: string; runId: string }) {
  const qc = useQueryClient();
  const wf = useQuery({ queryKey: ['workflow', p.id], queryFn: () => call(api.GET('/agenticWorkflow/{agenticWorkflowId}', { params: { path: { agenticWorkflowId: p.id } } })) });
  const envId = wf.data?.environment.id;
  const env = useEnvironment(envId);
  const caps = useCaps(env.data?.organization.id);
  const run = useQuery({
    queryKey: ['run', p.id, p.runId], queryFn: () => getRun(p.id, p.runId),
    // a backstop only: with streams, each status change of the run's deployment refreshes it
    refetchInterval: (q) => (isActive(q.state.data?.status) ? 5000 : false),
  });
  const refresh = useCallback(() => {
    void qc.invalidateQueries({ queryKey: ['run', p.id, p.runId] });
    void qc.invalidateQueries({ queryKey: ['runs', p.id] });
    void qc.invalidateQueries({ queryKey: ['run-deliveries', p.id, p.runId] });
  }, [qc, p.id, p.runId]);
  // however the run's new status arrived (stream or polling), the workflow's list of runs is stale
  const status = run.data?.status;
  useEffect(() => { if (status) void qc.invalidateQueries({ queryKey: ['runs', p.id] }); }, [qc, p.id, status]);
  const name = wf.data?.name ?? '…';
  const crumbs = useEnvironmentCrumbs(envId, name);
  crumbs[crumbs.length - 1] = { label: name, href: `/ui/workflows/${p.id}` };
  crumbs.push({ label: `run ${p.runId.slice(0, 8)}` });
  const r = run.data;
  const active = isActive(r?.status);
  return (
    <Frame crumbs={crumbs} onSignOut={p.signOut} engine={p.engine}>
      <div className="row spread">
        <h1>Run of <Link href={`/ui/workflows/${p.id}`}>{name}</Link></h1>
        {r && <span className="row">Status: <Status value={r.status} /></span>}
      </div>
      <ErrorNote error={run.error ?? wf.error} />
      {run.isPending && <Loading />}
      {r?.message && <p className={`run-message ${r.status === 'FAILED' ? 'error' : 'note'}`}>{r.message}</p>}
      {caps.canWrite && r && active && (
        <div className="row actions" role="group" aria-label="Actions">
          <ConfirmButton
            label="Cancel run" danger dismissLabel="Keep it"
            question={r.status === 'QUEUED'
              ? 'Cancel this run? It has not started; it ends canceled and never runs.'
              : 'Cancel this run? Its agent is stopped (its container killed) and the run ends canceled.'}
            onConfirm={async () => {
              try {
                await call(api.POST('/agenticWorkflow/{agenticWorkflowId}/run/{runId}/cancel', { params: { path: { agenticWorkflowId: p.id, runId: p.runId } } }));
              } catch (err) {
                // 409: it ended meanwhile; what it ended as is shown once refreshed
                if (!(err instanceof ApiError && err.status === 409)) throw err;
              }
              refresh();
            }}
          />
        </div>
      )}
      {r && (
        <dl className="facts run-facts">
          <dt>Trigger</dt><dd>{triggerLabel(r)}{r.scheduled_for && <> (occurrence of <When at={r.scheduled_for} />)</>}</dd>
          <dt>Created</dt><dd><When at={r.created_at} /></dd>
          <dt>Started</dt><dd>{r.started_at ? <When at={r.started_at} /> : <span className="muted">not yet</span>}</dd>
          <dt>Finished</dt><dd>{r.finished_at ? <When at={r.finished_at} /> : <span className="muted">not yet</span>}</dd>
          <dt>Duration</dt><dd>{formatDuration(r.duration_ms)}</dd>
          <dt>Turns</dt><dd>{formatCount(r.num_turns)}</dd>
          <dt>Tokens</dt><dd>{r.input_tokens === null && r.output_tokens === null ? '—' : `${formatCount(r.input_tokens)} in · ${formatCount(r.output_tokens)} out`}</dd>
          <dt>Cost</dt><dd>{formatCost(r.cost_usd)}</dd>
          <dt>Deployment</dt><dd>{r.deployment_id ? <Link href={`/ui/deployments/${r.deployment_id}`}>its deployment</Link> : '—'}</dd>
          {r.clone_environment_id && <><dt>Environment copy</dt><dd><CopyId id={r.clone_environment_id} /></dd></>}
        </dl>
      )}
      {r && (
        <section aria-label="Result">
          <h2>Result</h2>
          {r.result !== null
            ? <pre className="result" tabIndex={0}>{r.result}</pre>
            : <Empty>{active ? 'The result appears when the run ends.' : 'No result.'}</Empty>}
        </section>
      )}
      {r && (
        <section className="transcript">
          <h2>Transcript</h2>
          {r.deployment_id
            ? <Transcript deploymentId={r.deployment_id} active={active} onChange={refresh} />
            : <Empty>No transcript: the run never started.</Empty>}
        </section>
      )}
      {r && (
        <section aria-label="Payload">
          <h2>Payload</h2>
          {r.payload === null || r.payload === undefined
            ? <Empty>No payload.</Empty>
            : <pre className="payload" tabIndex={0}>{prettyJson(r.payload)}</pre>}
        </section>
      )}
      {r && <RunDeliveries workflowId={p.id} runId={p.runId} runActive={active} canWrite={caps.canWrite} />}
    </Frame>
  );
}
