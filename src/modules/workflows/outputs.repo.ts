// SQL for agentic workflow output deliveries (agentic_workflow_output_deliveries, one per run and
// output) and their attempts (agentic_workflow_output_attempts), plus what a delivery's body needs
// to know of a finished run. Decision 0192.
import type { Queryable } from '../../db/db.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import type { FinishedRunFacts } from './outputs.rules.ts';
import type { WorkflowSpec } from './workflows.rules.ts';

export interface RunForDelivery extends FinishedRunFacts { spec: Partial<WorkflowSpec> }

interface RunRow {
  id: string; status: string; trigger: string; message: string | null; result: string | null; num_turns: number | null;
  input_tokens: string | number | bigint | null; output_tokens: string | number | bigint | null; cost_usd: number | string | null;
  duration_ms: number | null; created_at: Date; started_at: Date | null; finished_at: Date | null;
  workflow_id: string; workflow_name: string; environment_id: string; organization_id: string; spec: Partial<WorkflowSpec>;
}

/** bigint columns arrive as strings from node-postgres */
const num = (v: string | number | bigint | null): number | null => (v === null ? null : Number(v));

/** the run, its workflow (name, spec) and where it ran */
export async function runForDelivery(db: Queryable, runId: string): Promise<RunForDelivery | null> {
  const rows = await db.query<RunRow>(
    `select r.id, r.status, r.trigger, r.message, r.result, r.num_turns, r.input_tokens, r.output_tokens, r.cost_usd, r.duration_ms,
       r.created_at, coalesce(r.started_at, d.started_at) as started_at, r.finished_at,
       r.workflow_id, s.name as workflow_name, s.environment_id, r.organization_id, s.spec
     from agentic_workflow_runs r join services s on s.id = r.workflow_id left join deployments d on d.id = r.deployment_id
     where r.id = $1`, [runId]);
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id, status: r.status, trigger: r.trigger, message: r.message, result: r.result, num_turns: r.num_turns,
    input_tokens: num(r.input_tokens), output_tokens: num(r.output_tokens), cost_usd: num(r.cost_usd), duration_ms: r.duration_ms,
    created_at: isoRequired(r.created_at), started_at: iso(r.started_at), finished_at: iso(r.finished_at),
    workflow_id: r.workflow_id, workflow_name: r.workflow_name, environment_id: r.environment_id, organization_id: r.organization_id,
    spec: r.spec ?? {},
  };
}

export interface DeliveryRow {
  id: string; run_id: string; workflow_id: string; output_name: string; target_url: string; header_names: string[];
  headers_sealed: string | null; message_id: string; body: string; status: string; attempts: number; last_status_code: number | null;
  next_attempt_at: Date | null; created_at: Date; updated_at: Date | null;
}

const COLUMNS = `o.id, o.run_id, r.workflow_id, o.output_name, o.target_url, o.header_names, o.headers_sealed, o.message_id, o.body,
  o.status, o.attempts, o.last_status_code, o.next_attempt_at, o.created_at, o.updated_at`;
const FROM = 'from agentic_workflow_output_deliveries o join agentic_workflow_runs r on r.id = o.run_id';

export interface NewDelivery {
  runId: string; outputName: string; targetUrl: string; headerNames: string[]; headersSealed: string | null; messageId: string; body: string;
}

/** the new delivery's id; null when the run already has one for this output */
export async function insertDelivery(db: Queryable, d: NewDelivery): Promise<string | null> {
  const rows = await db.query<{ id: string }>(
    `insert into agentic_workflow_output_deliveries (run_id, output_name, target_url, header_names, headers_sealed, message_id, body)
     values ($1, $2, $3, $4::jsonb, $5, $6, $7) on conflict (run_id, lower(output_name)) do nothing returning id`,
    [d.runId, d.outputName, d.targetUrl, JSON.stringify(d.headerNames), d.headersSealed, d.messageId, d.body]);
  return rows[0]?.id ?? null;
}

export async function findDelivery(db: Queryable, id: string): Promise<DeliveryRow | null> {
  const rows = await db.query<DeliveryRow>(`select ${COLUMNS} ${FROM} where o.id = $1`, [id]);
  return rows[0] ?? null;
}

/** the delivery when it belongs to this run of this workflow */
export async function findDeliveryOfRun(db: Queryable, workflowId: string, runId: string, id: string): Promise<DeliveryRow | null> {
  const rows = await db.query<DeliveryRow>(`select ${COLUMNS} ${FROM} where o.id = $1 and o.run_id = $2 and r.workflow_id = $3`, [id, runId, workflowId]);
  return rows[0] ?? null;
}

export async function runBelongsTo(db: Queryable, workflowId: string, runId: string): Promise<boolean> {
  const rows = await db.query('select 1 from agentic_workflow_runs where id = $1 and workflow_id = $2', [runId, workflowId]);
  return rows.length > 0;
}

export interface AttemptRow {
  id: number; delivery_id: string; attempt: number; target_url: string; response_status: number | null;
  response_body: string | null; error: string | null; duration_ms: number; created_at: Date;
}

const ATTEMPT_COLUMNS = 'id, delivery_id, attempt, target_url, response_status, response_body, error, duration_ms, created_at';

/** a run's deliveries in the workflow's output order of the time (creation order), with their attempts */
export async function listDeliveries(db: Queryable, runId: string, limit: number | null, offset: number) {
  const rows = await db.query<DeliveryRow>(`select ${COLUMNS} ${FROM} where o.run_id = $1 order by o.created_at, o.id limit $2 offset $3`, [runId, limit, offset]);
  const total = await db.query<{ n: number }>('select count(*)::int as n from agentic_workflow_output_deliveries where run_id = $1', [runId]);
  const ids = rows.map((r) => r.id);
  const attempts = ids.length === 0 ? [] : await db.query<AttemptRow>(
    `select ${ATTEMPT_COLUMNS} from agentic_workflow_output_attempts where delivery_id = any($1::uuid[]) order by delivery_id, id`, [ids]);
  return { rows, attempts, total: total[0]!.n };
}

export async function attemptsOf(db: Queryable, deliveryId: string): Promise<AttemptRow[]> {
  return db.query<AttemptRow>(`select ${ATTEMPT_COLUMNS} from agentic_workflow_output_attempts where delivery_id = $1 order by id`, [deliveryId]);
}

export async function recordAttempt(db: Queryable, a: {
  deliveryId: string; attempt: number; targetUrl: string; status: number | null; body: string | null; error: string | null; durationMs: number;
}): Promise<void> {
  await db.query(
    `insert into agentic_workflow_output_attempts (delivery_id, attempt, target_url, response_status, response_body, error, duration_ms)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [a.deliveryId, a.attempt, a.targetUrl, a.status, a.body, a.error, a.durationMs]);
}

export async function updateOutcome(db: Queryable, id: string, o: {
  status: 'PENDING' | 'DELIVERED' | 'FAILED'; attempts: number; lastStatusCode: number | null; nextAttemptAt: Date | null;
}): Promise<void> {
  await db.query(
    `update agentic_workflow_output_deliveries set status = $2, attempts = $3, last_status_code = $4, next_attempt_at = $5, updated_at = now()
     where id = $1`, [id, o.status, o.attempts, o.lastStatusCode, o.nextAttemptAt]);
}

/** PENDING again, to the output's current url and headers */
export async function resetForRedelivery(db: Queryable, id: string, target: { targetUrl: string; headerNames: string[]; headersSealed: string | null }): Promise<void> {
  await db.query(
    `update agentic_workflow_output_deliveries set status = 'PENDING', next_attempt_at = now(), target_url = $2, header_names = $3::jsonb,
       headers_sealed = $4, updated_at = now() where id = $1`,
    [id, target.targetUrl, JSON.stringify(target.headerNames), target.headersSealed]);
}
