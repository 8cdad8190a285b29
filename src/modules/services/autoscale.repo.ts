// SQL of autoscaling (decision 0338): the services the autoscaler looks at, whether one is still
// running the version it scales, the scale event (a RUNTIME line in the service's log and a
// SERVICE_SCALED event in one transaction), and the marks on replicas being added or removed —
// rows of engine_leases named after the container — by which the engine observer tells a
// replica the autoscaler is starting or stopping from one that failed.
import type { Queryable } from '../../db/db.ts';
import { emitEvent } from '../webhooks/emit.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import type { DeploymentsService } from '../deployments/deployments.service.ts';

/** the deployments module's log line writer (the service's log is its table) */
type AppendLog = DeploymentsService['appendLog'];
import { serviceIdKey } from '../deployments/deployments.rules.ts';

export interface AutoscaleCandidate {
  id: string; type: string; name: string; slug: string;
  spec: Record<string, unknown>; advanced_settings: Record<string, unknown>;
  /** UP_TO_DATE: the configuration is what the running version was deployed with */
  deployment_status: string;
  environment_id: string; project_id: string; organization_id: string; project_name: string; environment_mode: string;
  /** the deployment whose replicas run (the last successful deploy) */
  generation: string;
}

/** the deployment whose replicas should be running: the last successful deploy (as the observer's) */
const GENERATION = `(select d.id from deployments d where d.service_id = s.id and d.action in ('DEPLOY', 'REDEPLOY') and d.status = 'DEPLOYED'
  order by d.finished_at desc nulls last limit 1)`;

/** RUNNING applications and containers whose max differs from their min, with no deployment queued or running */
export async function autoscaleCandidates(db: Queryable): Promise<AutoscaleCandidate[]> {
  return db.query<AutoscaleCandidate>(
    `select * from (select s.id, s.type, s.name, s.slug, s.spec, s.advanced_settings, s.deployment_status, s.environment_id, s.project_id,
        s.organization_id, p.name as project_name, e.mode as environment_mode, ${GENERATION} as generation
      from services s join projects p on p.id = s.project_id join environments e on e.id = s.environment_id
      where s.type in ('APPLICATION', 'CONTAINER') and s.state = 'RUNNING'
        and coalesce(s.spec->>'max_running_instances', '1') <> coalesce(s.spec->>'min_running_instances', '1')
        and not exists (select 1 from deployments d where d.service_id = s.id and not d.finished)) c
     where c.generation is not null order by c.id`);
}

/** whether the service still runs `generation` with no deployment queued or running (a scale action may go on) */
export async function stillScalable(db: Queryable, serviceId: string, generation: string): Promise<boolean> {
  const rows = await db.query<{ ok: boolean }>(
    `select (s.state = 'RUNNING' and ${GENERATION} = $2::uuid
       and not exists (select 1 from deployments d where d.service_id = s.id and not d.finished)) as ok
     from services s where s.id = $1`, [serviceId, generation]);
  return rows[0]?.ok === true;
}

export interface ScaleEvent {
  service: AutoscaleCandidate;
  from: number; to: number; min: number; max: number;
  reason: 'METRICS' | 'MIN' | 'MAX';
  metrics: Array<{ name: string; averagePercent: number; targetPercent: number }>;
  windowSeconds: number;
  message: string;
}

/** the scale event: a RUNTIME line of the service (under its running deployment) and SERVICE_SCALED to subscribed webhooks */
export async function recordScale(tx: Queryable, deps: { queue: TaskQueue; appendLog: AppendLog }, e: ScaleEvent): Promise<void> {
  const s = e.service;
  await deps.appendLog(tx, s.generation, s.id, 'RUNTIME', e.message);
  await emitEvent(tx, deps, {
    organizationId: s.organization_id, kind: 'SERVICE_SCALED', projectName: s.project_name, environmentMode: s.environment_mode,
    payload: {
      service_id: s.id, service_type: s.type, service_name: s.name, [serviceIdKey(s.type)]: s.id,
      environment_id: s.environment_id, project_id: s.project_id, organization_id: s.organization_id, deployment_id: s.generation,
      direction: e.to > e.from ? 'UP' : 'DOWN', from_replicas: e.from, to_replicas: e.to, min_replicas: e.min, max_replicas: e.max,
      reason: e.reason, window_seconds: e.windowSeconds, message: e.message,
      metrics: e.metrics.map((m) => ({ name: m.name, average_utilization_percent: Math.round(m.averagePercent * 10) / 10, target_utilization_percent: m.targetPercent })),
    },
  });
}

/** a line in the service's log about autoscaling that is not a scale event (a failed or held scale-up) */
export async function autoscaleNote(db: Queryable, appendLog: AppendLog, service: Pick<AutoscaleCandidate, 'id' | 'generation'>, message: string): Promise<void> {
  await appendLog(db, service.generation, service.id, 'RUNTIME', message);
}

const MARK = 'autoscale-replica:';

/** marks a replica (by container name) as being started or stopped by the autoscaler, for `seconds` */
export async function markScaling(db: Queryable, containerName: string, seconds: number): Promise<void> {
  await db.query(
    `insert into engine_leases (name, holder, expires_at) values ($1, 'autoscaler', now() + make_interval(secs => $2::int))
     on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at`, [`${MARK}${containerName}`, seconds]);
}

/** the replica is an ordinary one again (a scale-up's new replica once ready) */
export async function unmarkScaling(db: Queryable, containerName: string): Promise<void> {
  await db.query('delete from engine_leases where name = $1', [`${MARK}${containerName}`]);
}

/** names of the containers the autoscaler is starting or stopping now */
export async function scalingReplicaNames(db: Queryable): Promise<Set<string>> {
  const rows = await db.query<{ name: string }>(
    `select substr(name, ${MARK.length + 1}) as name from engine_leases where name like '${MARK}%' and expires_at > now()`);
  return new Set(rows.map((r) => r.name));
}

export async function dropExpiredMarks(db: Queryable): Promise<void> {
  await db.query(`delete from engine_leases where name like '${MARK}%' and expires_at < now() - interval '1 hour'`);
}
