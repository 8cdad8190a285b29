// SQL of job runs and cron schedules: one run per cron occurrence (a unique index on
// (job_id, scheduled_for) makes a second insert a no-op), the schedule rows of deployed cron
// jobs, due rows locked with SKIP LOCKED so overlapping ticks share the work.
import type { Queryable } from '../../db/db.ts';
import { iso, isoRequired } from '../../lib/text.ts';

export interface RunRow {
  id: string; job_id: string; organization_id: string; environment_id: string; trigger: string; scheduled_for: Date | null;
  status: string; exit_code: number | null; attempts: number; message: string | null;
  created_at: Date; started_at: Date | null; finished_at: Date | null;
}

const COLUMNS = 'id, job_id, organization_id, environment_id, trigger, scheduled_for, status, exit_code, attempts, message, created_at, started_at, finished_at';

export function toRun(r: RunRow) {
  return {
    id: r.id, job_id: r.job_id, trigger: r.trigger, scheduled_for: iso(r.scheduled_for), status: r.status, exit_code: r.exit_code,
    attempts: r.attempts, message: r.message, created_at: isoRequired(r.created_at), started_at: iso(r.started_at), finished_at: iso(r.finished_at),
  };
}

/** null when the occurrence already has its run */
export async function insertRun(db: Queryable, r: { jobId: string; trigger: string; scheduledFor: Date | null }): Promise<RunRow | null> {
  const rows = await db.query<RunRow>(
    `insert into job_runs (job_id, organization_id, environment_id, trigger, scheduled_for)
     select s.id, s.organization_id, s.environment_id, $2, $3 from services s where s.id = $1
     on conflict do nothing returning ${COLUMNS}`, [r.jobId, r.trigger, r.scheduledFor]);
  return rows[0] ?? null;
}

export async function findRun(db: Queryable, jobId: string, runId: string): Promise<RunRow | null> {
  const rows = await db.query<RunRow>(`select ${COLUMNS} from job_runs where job_id = $1 and id = $2`, [jobId, runId]);
  return rows[0] ?? null;
}

export async function findRunById(db: Queryable, runId: string): Promise<RunRow | null> {
  const rows = await db.query<RunRow>(`select ${COLUMNS} from job_runs where id = $1`, [runId]);
  return rows[0] ?? null;
}

export async function listRuns(db: Queryable, jobId: string, limit: number | null, offset: number): Promise<{ rows: RunRow[]; total: number }> {
  const rows = await db.query<RunRow>(`select ${COLUMNS} from job_runs where job_id = $1 order by created_at desc, id desc limit $2 offset $3`, [jobId, limit, offset]);
  const count = await db.query<{ n: number }>('select count(*)::int as n from job_runs where job_id = $1', [jobId]);
  return { rows, total: count[0]!.n };
}

/** QUEUED → RUNNING; false when another worker took it or it is finished */
export async function claimRun(db: Queryable, runId: string): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `update job_runs set status = 'RUNNING', started_at = now() where id = $1 and status = 'QUEUED' returning id`, [runId]);
  return rows.length === 1;
}

export async function finishRun(db: Queryable, runId: string, v: { status: 'SUCCEEDED' | 'FAILED' | 'CANCELED'; exitCode: number | null; attempts: number; message: string | null }): Promise<void> {
  await db.query(
    'update job_runs set status = $2, exit_code = $3, attempts = $4, message = $5, finished_at = now() where id = $1 and status = \'RUNNING\'',
    [runId, v.status, v.exitCode, v.attempts, v.message]);
}

export async function runLines(db: Queryable, runId: string, limit: number): Promise<Array<{ id: string; message: string; created_at: Date }>> {
  return db.query('select id::text as id, message, created_at from deployment_logs where run_id = $1 order by id limit $2', [runId, limit]);
}

export async function setSchedule(db: Queryable, jobId: string, nextRunAt: Date | null): Promise<void> {
  if (nextRunAt === null) {
    await db.query('delete from job_schedules where job_id = $1', [jobId]);
    return;
  }
  await db.query(`insert into job_schedules (job_id, next_run_at) values ($1, $2)
    on conflict (job_id) do update set next_run_at = excluded.next_run_at`, [jobId, nextRunAt]);
}

export async function nextRunAt(db: Queryable, jobId: string): Promise<Date | null> {
  const rows = await db.query<{ next_run_at: Date }>('select next_run_at from job_schedules where job_id = $1', [jobId]);
  return rows[0]?.next_run_at ?? null;
}

export async function lockDueSchedules(db: Queryable, now: Date, limit: number): Promise<Array<{ job_id: string; next_run_at: Date; spec: Record<string, any> }>> {
  return db.query(
    `select js.job_id, js.next_run_at, s.spec from job_schedules js join services s on s.id = js.job_id
     where js.next_run_at <= $1 order by js.next_run_at limit $2 for update of js skip locked`, [now, limit]);
}
