// What the engine observed, written down: a service whose replica died while berth believed it
// RUNNING becomes ERROR with a DEPLOYMENT_FAILED event (reason RUNTIME_FAILURE) about its last
// deployment; one that Docker brought back recovers to RUNNING; container output becomes RUNTIME
// lines. Also the lease that makes exactly one process watch the daemon at a time. Its SQL is in
// runtime-state.repo.ts.
import type { Queryable } from '../../db/db.ts';
import { emitEvent } from '../webhooks/emit.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import * as repo from './deployments.repo.ts';
import * as runtime from './runtime-state.repo.ts';
import { serviceIdKey } from './deployments.rules.ts';
import type { ServiceRuntimeState } from './deployments.lifecycle.ts';

/** takes or renews the named lease for `holder`; true while it holds it */
export const holdLease = (db: Queryable, name: string, holder: string, ttlSeconds: number): Promise<boolean> => runtime.holdLease(db, name, holder, ttlSeconds);

export const releaseLease = (db: Queryable, name: string, holder: string): Promise<void> => runtime.releaseLease(db, name, holder);

/** ERROR + DEPLOYMENT_FAILED when the service was RUNNING on this generation; false when it was not */
export async function markRuntimeFailure(tx: Queryable, deps: { queue: TaskQueue; services: Pick<ServiceRuntimeState, 'setState'> }, serviceId: string, generation: string | null, message: string): Promise<boolean> {
  const s = await runtime.currentGeneration(tx, serviceId, true);
  if (!s || s.state !== 'RUNNING' || !s.generation) return false;
  if (generation !== null && generation !== s.generation) return false;
  await deps.services.setState(tx, s.id, 'ERROR');
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
export async function markRecovered(tx: Queryable, deps: { services: Pick<ServiceRuntimeState, 'setState'> }, serviceId: string): Promise<boolean> {
  const s = await runtime.currentGeneration(tx, serviceId, true);
  if (!s || s.state !== 'ERROR' || !s.generation || !SERVING_AFTER.has(s.last_status ?? '')) return false;
  await deps.services.setState(tx, s.id, 'RUNNING');
  await repo.insertLog(tx, s.generation, s.id, 'DEPLOY', 'Every replica of the current version is running');
  return true;
}

export async function serviceStates(db: Queryable, serviceIds: string[]): Promise<Map<string, { state: string; generation: string | null }>> {
  if (serviceIds.length === 0) return new Map();
  const rows = await runtime.findServiceStates(db, serviceIds);
  return new Map(rows.map((r) => [r.id, { state: r.state, generation: r.generation }]));
}

/**
 * One output line of a replica, with the container that wrote it and Docker's time of it:
 * `at` is RFC 3339 with at most six fraction digits, so the database keeps it exactly.
 */
export async function insertRuntimeLine(db: Queryable, serviceId: string, containerId: string, at: string, text: string): Promise<void> {
  await runtime.insertRuntimeLogLine(db, serviceId, containerId, at, text);
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
  const own = await runtime.containerLastLine(db, containerId);
  if (own) return { micros: BigInt(own.micros), recorded: Number(own.recorded) };
  const untagged = await runtime.untaggedLastLine(db, serviceId);
  return untagged ? { micros: BigInt(untagged) + 999n, recorded: Infinity } : null;
}
