// SQL for workflow runs and the schedule's due workflows.
import type { Queryable } from '../../db/db.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import type { WorkflowSpec } from './workflows.rules.ts';
import type { WorkflowRun } from './runs.schemas.ts';

export interface RunRow {
  id: string; workflow_id: string; organization_id: string; trigger: string; payload: unknown; status: string;
  scheduled_for: Date | null; deployment_id: string | null; clone_environment_id: string | null; message: string | null;
  created_at: Date; started_at: Date | null; finished_at: Date | null; updated_at: Date | null;
  triggered_by: string | null; result: string | null; num_turns: number | null; input_tokens: string | number | null;
  output_tokens: string | number | null; cost_usd: number | null; duration_ms: number | null;
  /** a PULL_REQUEST run's preview and the head commit it tests */
  preview_id: string | null; head_commit: string | null;
}

const COLUMNS = `id, workflow_id, organization_id, trigger, payload, status, scheduled_for, deployment_id, clone_environment_id,
  message, created_at, started_at, finished_at, updated_at, triggered_by, result, num_turns, input_tokens, output_tokens, cost_usd, duration_ms,
  preview_id, head_commit`;

// a QUEUED run whose deployment has left the queue is RUNNING (derived on read: the deployments
// module announces only settled deployments to other modules)
const READ = `select r.id, r.workflow_id, r.organization_id, r.trigger, r.payload,
  case when r.status = 'QUEUED' and d.status is not null and d.status <> 'QUEUED' and not d.finished then 'RUNNING' else r.status end as status,
  r.scheduled_for, r.deployment_id, r.clone_environment_id, r.message, r.created_at,
  coalesce(r.started_at, d.started_at) as started_at, r.finished_at, r.updated_at, r.triggered_by, r.result, r.num_turns,
  r.input_tokens, r.output_tokens, r.cost_usd, r.duration_ms, r.preview_id, r.head_commit
  from agentic_workflow_runs r left join deployments d on d.id = r.deployment_id`;

const num = (v: string | number | null): number | null => (v === null ? null : Number(v));

export function toRun(r: RunRow): WorkflowRun {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), agentic_workflow_id: r.workflow_id,
    trigger: r.trigger, status: r.status, payload: r.payload ?? null, scheduled_for: iso(r.scheduled_for),
    started_at: iso(r.started_at), finished_at: iso(r.finished_at), deployment_id: r.deployment_id,
    clone_environment_id: r.clone_environment_id, message: r.message, triggered_by: r.triggered_by,
    preview_id: r.preview_id ?? null, head_commit: r.head_commit ?? null,
    result: r.result, num_turns: r.num_turns, input_tokens: num(r.input_tokens), output_tokens: num(r.output_tokens),
    cost_usd: r.cost_usd === null ? null : Number(r.cost_usd), duration_ms: r.duration_ms,
  };
}

/** a new QUEUED run; null when this schedule occurrence already has one */
export async function insertRun(db: Queryable, r: {
  workflowId: string; organizationId: string; trigger: 'WEBHOOK' | 'SCHEDULE' | 'MANUAL'; payload: unknown; scheduledFor: Date | null; triggeredBy?: string | null;
}): Promise<RunRow | null> {
  const rows = await db.query<RunRow>(
    `insert into agentic_workflow_runs (workflow_id, organization_id, trigger, payload, scheduled_for, triggered_by)
     values ($1, $2, $3, $4::jsonb, $5, $6) on conflict (workflow_id, scheduled_for) do nothing returning ${COLUMNS}`,
    [r.workflowId, r.organizationId, r.trigger, r.payload === undefined ? null : JSON.stringify(r.payload), r.scheduledFor, r.triggeredBy ?? null]);
  return rows[0] ?? null;
}

export async function findRun(db: Queryable, workflowId: string, runId: string): Promise<RunRow | null> {
  const rows = await db.query<RunRow>(`${READ} where r.workflow_id = $1 and r.id = $2`, [workflowId, runId]);
  return rows[0] ?? null;
}

export async function findRunByDeployment(db: Queryable, deploymentId: string): Promise<RunRow | null> {
  const rows = await db.query<RunRow>(`select ${COLUMNS} from agentic_workflow_runs where deployment_id = $1 for update`, [deploymentId]);
  return rows[0] ?? null;
}

export async function listRuns(db: Queryable, workflowId: string, limit: number | null, offset: number, withDeploymentOnly = false): Promise<{ rows: RunRow[]; total: number }> {
  const where = `where r.workflow_id = $1${withDeploymentOnly ? ' and r.deployment_id is not null' : ''}`;
  const rows = await db.query<RunRow>(`${READ} ${where} order by r.created_at desc, r.id desc limit $2 offset $3`, [workflowId, limit, offset]);
  const count = await db.query<{ n: number }>(`select count(*)::int as n from agentic_workflow_runs r ${where}`, [workflowId]);
  return { rows, total: count[0]!.n };
}

/** keeps a run's log lines with the run (its deployment goes with a throwaway copy) */
export async function keepRunLog(db: Queryable, runId: string, deploymentId: string): Promise<void> {
  await db.query(`insert into agentic_workflow_run_logs (run_id, deployment_id, service_id, kind, message, created_at)
    select $1, deployment_id, service_id, kind, message, created_at from deployment_logs where deployment_id = $2 order by id`, [runId, deploymentId]);
}

export interface KeptLogRow { id: number; deployment_id: string | null; service_id: string; kind: string; message: string; created_at: Date }

export async function keptRunLog(db: Queryable, runId: string, limit: number | null, offset: number, tail: boolean): Promise<{ items: KeptLogRow[]; total: number }> {
  const rows = await db.query<KeptLogRow>(
    `select id, deployment_id, service_id, kind, message, created_at from agentic_workflow_run_logs where run_id = $1
     order by id ${tail ? 'desc' : ''} limit $2 offset $3`, [runId, limit, offset]);
  const total = await db.query<{ n: number }>('select count(*)::int as n from agentic_workflow_run_logs where run_id = $1', [runId]);
  return { items: tail ? rows.reverse() : rows, total: total[0]!.n };
}

/** one run, locked (a cancel) */
export async function lockRun(db: Queryable, workflowId: string, runId: string): Promise<RunRow | null> {
  const rows = await db.query<RunRow>(`select ${COLUMNS} from agentic_workflow_runs where workflow_id = $1 and id = $2 for update`, [workflowId, runId]);
  return rows[0] ?? null;
}

/** the newest run not yet finished, locked */
export async function currentRun(db: Queryable, workflowId: string): Promise<RunRow | null> {
  const rows = await db.query<RunRow>(
    `select ${COLUMNS} from agentic_workflow_runs where workflow_id = $1 and status in ('QUEUED', 'RUNNING')
     order by created_at desc, id desc limit 1 for update`, [workflowId]);
  return rows[0] ?? null;
}

export async function setRun(db: Queryable, id: string, v: { status?: string; deploymentId?: string | null; cloneEnvironmentId?: string | null; message?: string | null }): Promise<void> {
  await db.query(
    `update agentic_workflow_runs set
       status = coalesce($2, status),
       deployment_id = case when $3::boolean then $4::uuid else deployment_id end,
       clone_environment_id = case when $5::boolean then $6::uuid else clone_environment_id end,
       message = case when $7::boolean then $8 else message end,
       started_at = case when $2 = 'RUNNING' and started_at is null then now() else started_at end,
       finished_at = case when $2 in ('SUCCEEDED', 'FAILED', 'CANCELED') then now() else finished_at end,
       updated_at = now()
     where id = $1`,
    [id, v.status ?? null, v.deploymentId !== undefined, v.deploymentId ?? null, v.cloneEnvironmentId !== undefined,
      v.cloneEnvironmentId ?? null, v.message !== undefined, v.message ?? null]);
}

export interface DueRow { service_id: string; organization_id: string; next_run_at: Date; spec: WorkflowSpec }

/** workflows whose next firing has come, locked; rows another worker holds are skipped */
export async function lockDueWorkflows(tx: Queryable, now: Date, limit: number): Promise<DueRow[]> {
  return tx.query<DueRow>(
    `select w.service_id, w.organization_id, w.next_run_at, s.spec from agentic_workflows w join services s on s.id = w.service_id
     where w.next_run_at <= $1 order by w.next_run_at limit $2 for update of w skip locked`, [now, limit]);
}

export async function setNextRunAt(tx: Queryable, serviceId: string, next: Date | null): Promise<void> {
  await tx.query('update agentic_workflows set next_run_at = $2 where service_id = $1', [serviceId, next]);
}

export interface RunEventFacts {
  id: string; workflow_id: string; workflow_name: string; trigger: string; status: string; deployment_id: string | null;
  environment_id: string; organization_id: string; message: string | null; project_name: string; environment_mode: string;
  result: string | null; num_turns: number | null; input_tokens: string | number | null; output_tokens: string | number | null;
  cost_usd: number | null; duration_ms: number | null;
}

export async function runEventFacts(db: Queryable, runId: string): Promise<RunEventFacts | null> {
  const rows = await db.query<RunEventFacts>(
    `select r.id, r.workflow_id, s.name as workflow_name, r.trigger, r.status, r.deployment_id, s.environment_id, r.organization_id,
       r.message, p.name as project_name, e.mode as environment_mode, r.result, r.num_turns, r.input_tokens, r.output_tokens,
       r.cost_usd, r.duration_ms
     from agentic_workflow_runs r join services s on s.id = r.workflow_id join environments e on e.id = s.environment_id
     join projects p on p.id = s.project_id where r.id = $1`, [runId]);
  return rows[0] ?? null;
}

/** a cloned workflow gets its own agentic_workflows row and attachments; a throwaway copy
 * (expires_at set) never fires on schedule */
export async function copyWorkflowRows(tx: Queryable, fromServiceId: string, toServiceId: string, toEnvironmentId: string): Promise<void> {
  await tx.query(
    `insert into agentic_workflows (service_id, organization_id, next_run_at, llm_provider_id)
     select $2, w.organization_id, case when e.expires_at is null then w.next_run_at end, w.llm_provider_id
     from agentic_workflows w, environments e where w.service_id = $1 and e.id = $3 on conflict do nothing`,
    [fromServiceId, toServiceId, toEnvironmentId]);
  await tx.query(
    `insert into agentic_workflow_mcp_servers (service_id, mcp_server_id, required, position)
     select $2, mcp_server_id, required, position from agentic_workflow_mcp_servers where service_id = $1
       and exists (select 1 from agentic_workflows where service_id = $2) on conflict do nothing`,
    [fromServiceId, toServiceId]);
}

export interface RunTarget { environment_id: string; name: string; slug: string; execution_mode: string | null }

export async function runTarget(db: Queryable, workflowId: string): Promise<RunTarget | null> {
  const rows = await db.query<RunTarget>(
    `select environment_id, name, slug, spec->>'execution_mode' as execution_mode from services where id = $1`, [workflowId]);
  return rows[0] ?? null;
}

/** services of an environment copy in deployment order: the workflow (by name) last */
export async function copyDeploymentOrder(db: Queryable, environmentId: string, workflowName: string): Promise<Array<{ id: string; is_workflow: boolean }>> {
  return db.query<{ id: string; is_workflow: boolean }>(
    `select id, (type = 'AGENTIC_WORKFLOW' and lower(name) = lower($2)) as is_workflow from services
     where environment_id = $1 order by 2, created_at, id`, [environmentId, workflowName]);
}

export async function runCopyOrganization(db: Queryable, environmentId: string): Promise<string | null> {
  const rows = await db.query<{ organization_id: string }>(
    'select organization_id from environments where id = $1 and cloned_from_id is not null and expires_at is not null', [environmentId]);
  return rows[0]?.organization_id ?? null;
}

export interface RunFacts {
  id: string; workflow_id: string; trigger: string; triggered_by: string | null; payload: unknown; scheduled_for: Date | null;
  clone_environment_id: string | null;
}

/** what a run's agent is told of its run (agent-run.ts), by the run's deployment */
export async function runFactsByDeployment(db: Queryable, deploymentId: string): Promise<RunFacts | null> {
  const rows = await db.query<RunFacts>(`select id, workflow_id, trigger, triggered_by, payload, scheduled_for, clone_environment_id
    from agentic_workflow_runs where deployment_id = $1`, [deploymentId]);
  return rows[0] ?? null;
}

/** the harness's figures, on the run */
export async function recordRunOutcome(db: Queryable, runId: string, o: {
  result: string | null; numTurns: number | null; inputTokens: number | null; outputTokens: number | null; costUsd: number | null; durationMs: number | null;
}): Promise<void> {
  await db.query(`update agentic_workflow_runs set result = $2, num_turns = $3, input_tokens = $4, output_tokens = $5, cost_usd = $6,
    duration_ms = $7, updated_at = now() where id = $1`, [runId, o.result, o.numTurns, o.inputTokens, o.outputTokens, o.costUsd, o.durationMs]);
}
