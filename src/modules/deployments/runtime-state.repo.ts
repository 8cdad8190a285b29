// SQL of the runtime state (runtime-state.ts): the engine's leases (engine_leases: the lease one
// process holds to watch the daemon or run a periodic loop), a service's current generation read
// with its deployments, and the RUNTIME lines of deployment_logs with where following resumes.
import type { Queryable } from '../../db/db.ts';

/** takes or renews the named lease for `holder`; true while it holds it */
export async function holdLease(db: Queryable, name: string, holder: string, ttlSeconds: number): Promise<boolean> {
  const rows = await db.query<{ holder: string }>(
    `insert into engine_leases (name, holder, expires_at) values ($1, $2, now() + make_interval(secs => $3::int))
     on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
       where engine_leases.holder = excluded.holder or engine_leases.expires_at < now()
     returning holder`, [name, holder, ttlSeconds]);
  return rows[0]?.holder === holder;
}

export async function releaseLease(db: Queryable, name: string, holder: string): Promise<void> {
  await db.query('delete from engine_leases where name = $1 and holder = $2', [name, holder]);
}

/** a service's current generation: the last successful deploy, whose replicas should be running */
const GENERATION = `(select d.id from deployments d where d.service_id = s.id and d.action in ('DEPLOY', 'REDEPLOY') and d.status = 'DEPLOYED'
  order by d.finished_at desc nulls last limit 1)`;

interface CurrentRow {
  id: string; state: string; organization_id: string; project_id: string; environment_id: string; type: string; name: string;
  project_name: string; environment_mode: string; generation: string | null; last_action: string | null; last_status: string | null;
}

/** the service with its current generation: the last deployment that put replicas in place */
export async function currentGeneration(db: Queryable, serviceId: string, lock: boolean): Promise<CurrentRow | null> {
  const rows = await db.query<CurrentRow>(
    `select s.id, s.state, s.organization_id, s.project_id, s.environment_id, s.type, s.name, p.name as project_name, e.mode as environment_mode,
       ${GENERATION} as generation,
       (select d.action from deployments d where d.service_id = s.id order by d.created_at desc, d.position desc limit 1) as last_action,
       (select d.status from deployments d where d.service_id = s.id order by d.created_at desc, d.position desc limit 1) as last_status
     from services s join projects p on p.id = s.project_id join environments e on e.id = s.environment_id
     where s.id = $1 ${lock ? 'for update of s' : ''}`, [serviceId]);
  return rows[0] ?? null;
}

export async function findServiceStates(db: Queryable, serviceIds: string[]): Promise<Array<{ id: string; state: string; generation: string | null }>> {
  return db.query<{ id: string; state: string; generation: string | null }>(
    `select s.id, s.state,
       ${GENERATION} as generation
     from services s where s.id = any($1::uuid[])`, [serviceIds]);
}

/** one RUNTIME line of a service that still exists */
export async function insertRuntimeLogLine(db: Queryable, serviceId: string, containerId: string, at: string, text: string): Promise<void> {
  await db.query(`insert into deployment_logs (deployment_id, service_id, kind, message, created_at, container_id)
    select null, $1, 'RUNTIME', $2, $3::timestamptz, $4 where exists (select 1 from services where id = $1)`, [serviceId, text, at, containerId]);
}

/** a container's last recorded line: its time in microseconds and how many of its lines carry that time */
export async function containerLastLine(db: Queryable, containerId: string): Promise<{ micros: string; recorded: number } | null> {
  return (await db.query<{ micros: string; recorded: number }>(CONTAINER_LAST_LINE, [containerId]))[0] ?? null;
}

/** the time (microseconds) of the service's last RUNTIME line recorded before lines named their container */
export async function untaggedLastLine(db: Queryable, serviceId: string): Promise<string | null> {
  return (await db.query<{ micros: string | null }>(UNTAGGED_LAST_LINE, [serviceId]))[0]?.micros ?? null;
}

export const CONTAINER_LAST_LINE = `select (extract(epoch from last.created_at) * 1000000)::bigint::text as micros,
    (select count(*) from deployment_logs c where c.container_id = $1 and c.created_at = last.created_at)::int as recorded
  from (select created_at from deployment_logs where container_id = $1 order by created_at desc limit 1) last`;
export const UNTAGGED_LAST_LINE = `select (extract(epoch from max(created_at)) * 1000000)::bigint::text as micros from deployment_logs
  where service_id = $1 and kind = 'RUNTIME' and deployment_id is null and run_id is null and container_id is null`;
