// SQL of the live streams: log lines after a cursor in (writing transaction, id) order, only
// from transactions older than every one still open (so none can commit behind the cursor),
// and the environment's service states with each service's latest deployment.
import type { Queryable } from '../../db/db.ts';
import type { LogRow } from '../deployments/deployments.service.ts';

/** where a reader stands: after the line (tx, id); the start is (0, 0) */
export interface LogCursor { tx: string; id: number }
export const START: LogCursor = { tx: '0', id: 0 };

export interface StreamLogRow extends LogRow { tx: string }

const COLUMNS = 'id, deployment_id, service_id, kind, message, created_at, tx::text as tx';
const SETTLED = 'tx < pg_snapshot_xmin(pg_current_snapshot())';

export type LogFilter = { column: 'deployment_id' | 'service_id'; value: string };

export async function linesAfter(db: Queryable, f: LogFilter, after: LogCursor, limit: number): Promise<StreamLogRow[]> {
  return db.query<StreamLogRow>(
    `select ${COLUMNS} from deployment_logs where ${f.column} = $1 and (tx, id) > ($2::xid8, $3::bigint) and ${SETTLED}
     order by deployment_logs.tx, id limit $4`,
    [f.value, after.tx, after.id, limit]);
}

/** lines already committed after the cursor that are held back for an older open transaction */
export async function withheldAfter(db: Queryable, f: LogFilter, after: LogCursor): Promise<boolean> {
  const rows = await db.query<{ n: boolean }>(
    `select exists(select 1 from deployment_logs where ${f.column} = $1 and (tx, id) > ($2::xid8, $3::bigint)) as n`,
    [f.value, after.tx, after.id]);
  return rows[0]!.n;
}

/** the last `n` settled lines, oldest first */
export async function lastLines(db: Queryable, f: LogFilter, n: number): Promise<StreamLogRow[]> {
  const rows = await db.query<StreamLogRow>(
    `select ${COLUMNS} from deployment_logs where ${f.column} = $1 and ${SETTLED} order by deployment_logs.tx desc, id desc limit $2`,
    [f.value, n]);
  return rows.reverse();
}

/** the cursor just before any line written from now on (tail 0: live lines only) */
export async function settledHorizon(db: Queryable, f: LogFilter): Promise<LogCursor> {
  const rows = await db.query<{ tx: string; id: number }>(
    `select tx::text as tx, id from deployment_logs where ${f.column} = $1 and ${SETTLED} order by deployment_logs.tx desc, id desc limit 1`,
    [f.value]);
  return rows[0] ?? START;
}

export interface ServiceStateRow {
  service_id: string; service_type: string; name: string; state: string;
  last_deployment_id: string | null; last_deployment_status: string | null; last_deployment_date: Date | null;
}

export async function environmentServiceStates(db: Queryable, environmentId: string): Promise<ServiceStateRow[]> {
  return db.query<ServiceStateRow>(
    `select s.id as service_id, s.type as service_type, s.name, s.state,
       d.id as last_deployment_id, d.status as last_deployment_status, d.created_at as last_deployment_date
     from services s
     left join lateral (select id, status, created_at from deployments where service_id = s.id
       order by created_at desc, id desc limit 1) d on true
     where s.environment_id = $1 order by s.created_at, s.id`,
    [environmentId]);
}
