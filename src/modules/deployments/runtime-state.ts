// What the engine observed, written down: a service whose replica died while berth believed it
// RUNNING becomes ERROR with a DEPLOYMENT_FAILED event (reason RUNTIME_FAILURE) about its last
// deployment; one that Docker brought back recovers to RUNNING; container output becomes RUNTIME
// lines. Also the lease that makes exactly one process watch the daemon at a time.
import type { Queryable } from '../../db/db.ts';
import { emitEvent } from '../webhooks/emit.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import * as repo from './deployments.repo.ts';
import { serviceIdKey } from './deployments.rules.ts';

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
async function current(db: Queryable, serviceId: string, lock: boolean): Promise<CurrentRow | null> {
  const rows = await db.query<CurrentRow>(
    `select s.id, s.state, s.organization_id, s.project_id, s.environment_id, s.type, s.name, p.name as project_name, e.mode as environment_mode,
       ${GENERATION} as generation,
       (select d.action from deployments d where d.service_id = s.id order by d.created_at desc, d.position desc limit 1) as last_action,
       (select d.status from deployments d where d.service_id = s.id order by d.created_at desc, d.position desc limit 1) as last_status
     from services s join projects p on p.id = s.project_id join environments e on e.id = s.environment_id
     where s.id = $1 ${lock ? 'for update of s' : ''}`, [serviceId]);
  return rows[0] ?? null;
}

/** ERROR + DEPLOYMENT_FAILED when the service was RUNNING on this generation; false when it was not */
export async function markRuntimeFailure(tx: Queryable, deps: { queue: TaskQueue }, serviceId: string, generation: string | null, message: string): Promise<boolean> {
  const s = await current(tx, serviceId, true);
  if (!s || s.state !== 'RUNNING' || !s.generation) return false;
  if (generation !== null && generation !== s.generation) return false;
  await repo.setServiceState(tx, s.id, 'ERROR');
  await repo.insertLog(tx, s.generation, s.id, 'DEPLOY', message);
  await emitEvent(tx, deps, {
    organizationId: s.organization_id, kind: 'DEPLOYMENT_FAILED', projectName: s.project_name, environmentMode: s.environment_mode,
    payload: {
      deployment_id: s.generation, status: 'ERROR', action: s.last_action ?? 'DEPLOY', reason: 'RUNTIME_FAILURE',
      service_id: s.id, service_type: s.type, service_name: s.name, [serviceIdKey(s.type)]: s.id,
      environment_id: s.environment_id, project_id: s.project_id, organization_id: s.organization_id,
      git_commit_id: null, image_tag: null, message,
    },
  });
  return true;
}

/** after these, the replicas of the last good deployment may still serve (a failed rollout keeps the old version) */
const SERVING_AFTER = new Set(['DEPLOYED', 'RESTARTED', 'DEPLOYMENT_ERROR', 'BUILD_ERROR', 'RESTART_ERROR']);

/**
 * A service in ERROR whose current replicas all run is RUNNING: Docker brought a crashed replica
 * back, or a failed deployment left the previous version serving. Status is what runs.
 */
export async function markRecovered(tx: Queryable, serviceId: string): Promise<boolean> {
  const s = await current(tx, serviceId, true);
  if (!s || s.state !== 'ERROR' || !s.generation || !SERVING_AFTER.has(s.last_status ?? '')) return false;
  await repo.setServiceState(tx, s.id, 'RUNNING');
  await repo.insertLog(tx, s.generation, s.id, 'DEPLOY', 'Every replica of the current version is running');
  return true;
}

export async function serviceStates(db: Queryable, serviceIds: string[]): Promise<Map<string, { state: string; generation: string | null }>> {
  if (serviceIds.length === 0) return new Map();
  const rows = await db.query<{ id: string; state: string; generation: string | null }>(
    `select s.id, s.state,
       ${GENERATION} as generation
     from services s where s.id = any($1::uuid[])`, [serviceIds]);
  return new Map(rows.map((r) => [r.id, { state: r.state, generation: r.generation }]));
}

/**
 * One output line of a replica, with the container that wrote it and Docker's time of it:
 * `at` is RFC 3339 with at most six fraction digits, so the database keeps it exactly.
 */
export async function insertRuntimeLine(db: Queryable, serviceId: string, containerId: string, at: string, text: string): Promise<void> {
  await db.query(`insert into deployment_logs (deployment_id, service_id, kind, message, created_at, container_id)
    select null, $1, 'RUNTIME', $2, $3::timestamptz, $4 where exists (select 1 from services where id = $1)`, [serviceId, text, at, containerId]);
}

/**
 * Where following a replica berth re-adopts resumes (decision 0332): after its own last recorded
 * line — its time in microseconds and how many of its lines carry exactly that time (a burst of
 * lines can share a microsecond) — found on (container_id, created_at). A container with no line
 * of its own yet resumes after the service's last line recorded before lines named their
 * container (migration 0021; those are kept to the millisecond, hence the whole millisecond), or
 * from its start when there is none.
 */
export async function runtimeResumePoint(db: Queryable, serviceId: string, containerId: string): Promise<{ micros: bigint; recorded: number } | null> {
  const own = await db.query<{ micros: string; recorded: number }>(CONTAINER_LAST_LINE, [containerId]);
  if (own[0]) return { micros: BigInt(own[0].micros), recorded: Number(own[0].recorded) };
  const untagged = await db.query<{ micros: string | null }>(UNTAGGED_LAST_LINE, [serviceId]);
  return untagged[0]?.micros ? { micros: BigInt(untagged[0].micros) + 999n, recorded: Infinity } : null;
}
export const CONTAINER_LAST_LINE = `select (extract(epoch from last.created_at) * 1000000)::bigint::text as micros,
    (select count(*) from deployment_logs c where c.container_id = $1 and c.created_at = last.created_at)::int as recorded
  from (select created_at from deployment_logs where container_id = $1 order by created_at desc limit 1) last`;
export const UNTAGGED_LAST_LINE = `select (extract(epoch from max(created_at)) * 1000000)::bigint::text as micros from deployment_logs
  where service_id = $1 and kind = 'RUNTIME' and deployment_id is null and run_id is null and container_id is null`;
