// Runtime lines for retention tests (decision 0408): a replica's output written in bulk, one
// statement per run of lines (the counting trigger sees them as the observer's inserts), and a
// service's runtime lines and stored count read back.
import type { Queryable } from '../../src/db/db.ts';
import type { RuntimeLine } from '../../src/modules/log-retention/log-retention.rules.ts';

/** `count` lines of `container` (null: as recorded before 0021), `stepMs` apart from `from` */
export async function writeLines(db: Queryable, serviceId: string, container: string | null, from: Date, count: number, stepMs = 1, label = 'line'): Promise<void> {
  await db.query(`insert into deployment_logs (service_id, kind, message, created_at, container_id)
    select $1, 'RUNTIME', $2 || ' ' || i, $3::timestamptz + (i - 1) * make_interval(secs => $4::float8 / 1000), $5
    from generate_series(1, $6::int) i order by i`, [serviceId, label, from, stepMs, container, count]);
}

/** the service's runtime lines (not a deployment's nor a job run's), oldest id first */
export async function runtimeLines(db: Queryable, serviceId: string): Promise<Array<RuntimeLine & { message: string }>> {
  const rows = await db.query<{ id: number; container_id: string | null; created_at: Date; message: string }>(
    `select id, container_id, created_at, message from deployment_logs
     where service_id = $1 and kind = 'RUNTIME' and deployment_id is null and run_id is null order by id`, [serviceId]);
  return rows.map((r) => ({ id: Number(r.id), containerId: r.container_id, createdAt: r.created_at, message: r.message }));
}

/** the stored count of the service's runtime lines (row_counts, kind runtime_logs) */
export async function storedRuntimeCount(db: Queryable, serviceId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(`select coalesce(sum(n), 0)::int as n from row_counts where parent_id = $1 and kind = 'runtime_logs'`, [serviceId]);
  return rows[0]!.n;
}
