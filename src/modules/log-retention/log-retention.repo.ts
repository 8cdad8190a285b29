// SQL of the retention of runtime lines (decision 0408, rules in log-retention.rules.ts). Each
// delete removes at most one batch of lines, chosen on indexes: a service's runtime lines oldest
// first on (service_id, created_at) (migration 0023), and whether a line is its replica's last on
// (container_id, created_at) (0021) — never a scan of the table. Which services are over their
// count comes from the stored counts (`row_counts`, kind runtime_logs), not from counting lines.
import type { Queryable } from '../../db/db.ts';

/** a service's runtime line: a running app's output, not a deployment's nor a job run's */
const RUNTIME = `d.kind = 'RUNTIME' and d.deployment_id is null and d.run_id is null`;

/** not at its replica's last recorded instant (the resume point of 0332), nor at the last instant
 * of the service's lines recorded without a replica (the fallback resume point). Each last instant
 * is a max the planner reads as one step down an index (an `exists` of a later line was planned as
 * a scan of the table when one replica wrote most of it) */
const RELEASED = `(d.container_id is null
    or d.created_at < (select max(n.created_at) from deployment_logs n where n.container_id = d.container_id))
  and (d.container_id is not null
    or d.created_at < (select max(n.created_at) from deployment_logs n where n.service_id = d.service_id and n.kind = 'RUNTIME'
      and n.deployment_id is null and n.run_id is null and n.container_id is null))`;

/** deletes the lines whose ids the select returns; answers how many went */
const deleting = (select: string) => `with gone as (delete from deployment_logs where id = any(array(${select})) returning 1)
  select count(*)::int as n from gone`;

/** at most $2 runtime lines written before $1, the oldest of each service first */
export const DELETE_OLDER_THAN = deleting(`select o.id from services s cross join lateral (
    select d.id from deployment_logs d where d.service_id = s.id and ${RUNTIME} and d.created_at < $1 and ${RELEASED}
    order by d.created_at limit $2) o
  limit $2`);

/** the $2 oldest runtime lines of the service $1 that may go */
export const DELETE_OLDEST_OF_SERVICE = deleting(`select d.id from deployment_logs d
  where d.service_id = $1 and ${RUNTIME} and ${RELEASED}
  order by d.created_at limit $2`);

/** the services with more than $1 runtime lines, and how many they have */
const SERVICES_OVER = `select s.id as service_id, c.n::text as lines from services s
  cross join lateral (select coalesce(sum(r.n), 0) as n from row_counts r where r.parent_id = s.id and r.kind = 'runtime_logs') c
  where c.n > $1`;

export async function deleteOlderThan(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const rows = await db.query<{ n: number }>(DELETE_OLDER_THAN, [cutoff, limit]);
  return rows[0]!.n;
}

export async function deleteOldestOfService(db: Queryable, serviceId: string, limit: number): Promise<number> {
  const rows = await db.query<{ n: number }>(DELETE_OLDEST_OF_SERVICE, [serviceId, limit]);
  return rows[0]!.n;
}

export async function servicesOver(db: Queryable, linesPerService: number): Promise<Array<{ serviceId: string; lines: number }>> {
  const rows = await db.query<{ service_id: string; lines: string }>(SERVICES_OVER, [linesPerService]);
  return rows.map((r) => ({ serviceId: r.service_id, lines: Number(r.lines) }));
}

/** the planner's estimate of the table's rows (kept by VACUUM and ANALYZE), not a count */
export async function estimatedRows(db: Queryable): Promise<number> {
  const rows = await db.query<{ n: number }>(`select greatest(reltuples, 0)::float8 as n from pg_class where oid = 'deployment_logs'::regclass`);
  return Number(rows[0]?.n ?? 0);
}

export async function vacuum(db: Queryable): Promise<void> {
  await db.exec('VACUUM deployment_logs');
}
