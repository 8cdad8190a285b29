// SQL for deployments and their log lines, and the deployment-owned status columns of
// services (state, deployment_status, last_deployment_at).
import type { Queryable } from '../../db/db.ts';
import { STORED_COUNT } from '../../db/page.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import { serviceIdKey, type DeploymentAction, type DeploymentRecord, type SourceBaseline } from './deployments.rules.ts';

export interface DeploymentRow {
  id: string; position: number; organization_id: string; project_id: string; environment_id: string;
  service_id: string; service_type: string; service_name?: string; action: DeploymentAction; status: string; finished: boolean;
  git_commit_id: string | null; image_tag: string | null; origin: string; triggered_by: string | null;
  metadata: Record<string, unknown>; message: string | null; previous_state: string | null;
  cancel_requested: boolean; runner_task_id: string | null; heartbeat_at: Date | null; recoveries: number;
  created_at: Date; started_at: Date | null; finished_at: Date | null; updated_at: Date | null;
}

const COLUMNS = `d.id, d.position, d.organization_id, d.project_id, d.environment_id, d.service_id, d.service_type,
  s.name as service_name, d.action, d.status, d.finished, d.git_commit_id, d.image_tag, d.origin, d.triggered_by, d.metadata,
  d.message, d.previous_state, d.cancel_requested, d.runner_task_id, d.heartbeat_at, d.recoveries, d.created_at,
  d.started_at, d.finished_at, d.updated_at`;
const FROM = 'from deployments d join services s on s.id = d.service_id';

export function toRecord(r: DeploymentRow): DeploymentRecord {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at),
    status: r.status, action: r.action, service_id: r.service_id, service_type: r.service_type,
    service_name: r.service_name ?? '', [serviceIdKey(r.service_type)]: r.service_id,
    environment_id: r.environment_id, project_id: r.project_id, organization_id: r.organization_id,
    git_commit_id: r.git_commit_id, image_tag: r.image_tag, origin: r.origin, triggered_by: r.triggered_by,
    message: r.message, metadata: r.metadata ?? {}, finished: r.finished,
    started_at: iso(r.started_at), finished_at: iso(r.finished_at),
  };
}

export async function lockEnvironment(tx: Queryable, environmentId: string): Promise<{ deleting: boolean } | null> {
  const rows = await tx.query<{ deleting: boolean }>('select deleting from environments where id = $1 for update', [environmentId]);
  return rows[0] ?? null;
}

export interface ServiceRow {
  id: string; organization_id: string; project_id: string; environment_id: string; type: string; name: string;
  slug: string; spec: Record<string, unknown>; advanced_settings: Record<string, unknown>; state: string;
  deployment_status: string; last_deployment_at: Date | null; updated_at: Date | null; project_name: string; environment_mode: string;
}

export async function findService(db: Queryable, serviceId: string): Promise<ServiceRow | null> {
  const rows = await db.query<ServiceRow>(
    `select s.id, s.organization_id, s.project_id, s.environment_id, s.type, s.name, s.slug, s.spec, s.advanced_settings,
       s.state, s.deployment_status, s.last_deployment_at, s.updated_at, p.name as project_name, e.mode as environment_mode
     from services s join projects p on p.id = s.project_id join environments e on e.id = s.environment_id where s.id = $1`,
    [serviceId]);
  return rows[0] ?? null;
}

/** the simulated engine's failure marker variable (BERTH_SIMULATE_FAILURE), narrowest scope first */
export async function simulateFailureVariable(db: Queryable, svc: Pick<ServiceRow, 'id' | 'environment_id' | 'project_id'>): Promise<string | null> {
  const rows = await db.query<{ value: string | null }>(
    `select value from variables where key = 'BERTH_SIMULATE_FAILURE' and not is_secret and parent_id = any($1::uuid[])
     order by case when parent_id = $2 then 0 when parent_id = $3 then 1 else 2 end limit 1`,
    [[svc.id, svc.environment_id, svc.project_id], svc.id, svc.environment_id]);
  return rows[0]?.value ?? null;
}

export async function listEnvironmentServiceIds(db: Queryable, environmentId: string): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    'select id from services where environment_id = $1 order by created_at, id', [environmentId]);
  return rows.map((r) => r.id);
}

export async function insertDeployment(tx: Queryable, d: {
  organizationId: string; projectId: string; environmentId: string; serviceId: string; serviceType: string;
  action: DeploymentAction; gitCommitId: string | null; imageTag: string | null; origin: string;
  triggeredBy: string | null; metadata: Record<string, unknown>; previousState: string | null;
}): Promise<string> {
  const rows = await tx.query<{ id: string }>(
    `insert into deployments (organization_id, project_id, environment_id, service_id, service_type, action, git_commit_id,
       image_tag, origin, triggered_by, metadata, previous_state)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12) returning id`,
    [d.organizationId, d.projectId, d.environmentId, d.serviceId, d.serviceType, d.action, d.gitCommitId, d.imageTag,
      d.origin, d.triggeredBy, JSON.stringify(d.metadata), d.previousState]);
  return rows[0]!.id;
}

/** locks every deployment of the environments (in id order) */
export async function lockEnvironmentsDeployments(tx: Queryable, environmentIds: string[]): Promise<void> {
  await tx.query('select id from deployments where environment_id = any($1::uuid[]) order by id for update', [environmentIds]);
}

export async function findDeployment(db: Queryable, id: string): Promise<DeploymentRow | null> {
  const rows = await db.query<DeploymentRow>(`select ${COLUMNS} ${FROM} where d.id = $1`, [id]);
  return rows[0] ?? null;
}

/** the deployment allowed to run in an environment: the oldest unfinished one */
export async function queueHead(db: Queryable, environmentId: string): Promise<string | null> {
  const rows = await db.query<{ id: string }>(
    'select id from deployments where environment_id = $1 and not finished order by position limit 1', [environmentId]);
  return rows[0]?.id ?? null;
}

export async function unfinishedOfService(db: Queryable, serviceId: string, exceptId: string | null): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `select count(*)::int as n from deployments where service_id = $1 and not finished and ($2::uuid is null or id <> $2)`,
    [serviceId, exceptId]);
  return rows[0]!.n;
}

export async function unfinishedOfEnvironment(db: Queryable, environmentId: string): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    'select id from deployments where environment_id = $1 and not finished order by position', [environmentId]);
  return rows.map((r) => r.id);
}

/** takes the run of a deployment: when queued, or when its runner is this task or has gone silent */
export async function claim(tx: Queryable, id: string, taskId: string, staleSeconds: number): Promise<boolean> {
  const rows = await tx.query<{ id: string }>(
    `update deployments set runner_task_id = $2, heartbeat_at = now(), updated_at = now()
     where id = $1 and not finished and (status = 'QUEUED' or runner_task_id = $2 or heartbeat_at is null
       or heartbeat_at < now() - make_interval(secs => $3::int)) returning id`,
    [id, taskId, staleSeconds]);
  return rows.length > 0;
}

export async function setStatus(tx: Queryable, id: string, status: string, started: boolean): Promise<void> {
  await tx.query(
    `update deployments set status = $2, heartbeat_at = now(), updated_at = now(),
       started_at = case when $3::boolean then coalesce(started_at, now()) else started_at end where id = $1`,
    [id, status, started]);
}

export async function requestCancel(tx: Queryable, id: string): Promise<void> {
  await tx.query('update deployments set cancel_requested = true, updated_at = now() where id = $1', [id]);
}

export async function finish(tx: Queryable, id: string, status: string, message: string | null): Promise<void> {
  await tx.query(
    `update deployments set status = $2, message = $3, finished = true, finished_at = now(), updated_at = now(),
       heartbeat_at = null where id = $1`,
    [id, status, message]);
}

export async function staleRunning(db: Queryable, staleSeconds: number): Promise<Array<{ id: string; recoveries: number }>> {
  return db.query<{ id: string; recoveries: number }>(
    `select id, recoveries from deployments where not finished and status <> 'QUEUED'
       and (heartbeat_at is null or heartbeat_at < now() - make_interval(secs => $1::int)) order by position limit 100`,
    [staleSeconds]);
}

export async function heartbeat(db: Queryable, id: string): Promise<void> {
  await db.query('update deployments set heartbeat_at = now() where id = $1 and not finished', [id]);
}

export async function environmentsWaitingLong(db: Queryable, staleSeconds: number): Promise<string[]> {
  const rows = await db.query<{ environment_id: string }>(
    `select distinct environment_id from deployments where not finished and status = 'QUEUED'
       and created_at < now() - make_interval(secs => $1::int) limit 100`, [staleSeconds]);
  return rows.map((r) => r.environment_id);
}

export async function countRecovery(tx: Queryable, id: string): Promise<void> {
  await tx.query('update deployments set recoveries = recoveries + 1, updated_at = now() where id = $1', [id]);
}

export async function listEnvironmentQueue(db: Queryable, environmentId: string, limit: number | null, offset: number) {
  const rows = await db.query<DeploymentRow>(
    `select ${COLUMNS} ${FROM} where d.environment_id = $1 and not d.finished order by d.position limit $2 offset $3`,
    [environmentId, limit, offset]);
  const total = await db.query<{ n: number }>(
    'select count(*)::int as n from deployments where environment_id = $1 and not finished', [environmentId]);
  return { items: rows.map(toRecord), total: total[0]!.n };
}

export async function listServiceHistory(db: Queryable, serviceId: string, limit: number | null, offset: number) {
  const rows = await db.query<DeploymentRow>(
    `select ${COLUMNS} ${FROM} where d.service_id = $1 order by d.created_at desc, d.position desc limit $2 offset $3`,
    [serviceId, limit, offset]);
  const total = await db.query<{ n: number }>(STORED_COUNT, [serviceId, 'deployments']);
  return { items: rows.map(toRecord), total: total[0]!.n };
}

export interface LogRow { id: number; deployment_id: string | null; service_id: string; kind: string; message: string; created_at: Date }

/** a RUNTIME line of a job's run (deployment_logs rows with a run_id; the job-runs module reads them) */
export async function insertRunLine(db: Queryable, run: { id: string; job_id: string }, text: string): Promise<void> {
  await db.query(`insert into deployment_logs (deployment_id, service_id, kind, message, run_id) values (null, $1, 'RUNTIME', $2, $3)`, [run.job_id, text, run.id]);
}

export async function insertLog(db: Queryable, deploymentId: string | null, serviceId: string, kind: string, message: string): Promise<void> {
  await db.query('insert into deployment_logs (deployment_id, service_id, kind, message) values ($1, $2, $3, $4)',
    [deploymentId, serviceId, kind, message]);
}

/** the last `tail` lines of a service, oldest first; `since`: only lines written from then on */
export async function tailServiceLogs(db: Queryable, serviceId: string, tail: number, since: Date | null = null): Promise<LogRow[]> {
  const rows = await db.query<LogRow>(since === null
    ? 'select id, deployment_id, service_id, kind, message, created_at from deployment_logs where service_id = $1 order by id desc limit $2'
    : 'select id, deployment_id, service_id, kind, message, created_at from deployment_logs where service_id = $1 and created_at >= $3 order by id desc limit $2',
  since === null ? [serviceId, tail] : [serviceId, tail, since]);
  return rows.reverse();
}

export async function deploymentLogs(db: Queryable, deploymentId: string, limit: number | null, offset: number, tail: boolean) {
  const rows = await db.query<LogRow>(
    tail
      ? 'select id, deployment_id, service_id, kind, message, created_at from deployment_logs where deployment_id = $1 order by id desc limit $2 offset $3'
      : 'select id, deployment_id, service_id, kind, message, created_at from deployment_logs where deployment_id = $1 order by id limit $2 offset $3',
    [deploymentId, limit, offset]);
  const total = await db.query<{ n: number }>(STORED_COUNT, [deploymentId, 'logs']);
  return { items: tail ? rows.reverse() : rows, total: total[0]!.n };
}

/** marks which engine runs the deployment (metadata.engine; metadata.simulated for the simulated one) */
export async function setEngine(db: Queryable, id: string, engine: string): Promise<void> {
  await db.query(`update deployments set metadata = coalesce(metadata, '{}'::jsonb) || jsonb_build_object('engine', $2::text, 'simulated', $2::text = 'simulated')
    where id = $1`, [id, engine]);
}

/** what a build produced: the commit actually built (when the deployment named none) and the image */
export async function recordBuild(db: Queryable, id: string, gitCommitId: string | null, imageTag: string): Promise<void> {
  await db.query('update deployments set git_commit_id = coalesce(git_commit_id, $2), image_tag = $3, updated_at = now() where id = $1',
    [id, gitCommitId, imageTag]);
}

export async function environmentServiceStates(db: Queryable, environmentId: string) {
  const rows = await db.query<{ id: string; type: string; state: string; deployment_status: string; last_deployment_at: Date | null }>(
    'select id, type, state, deployment_status, last_deployment_at from services where environment_id = $1 order by created_at, id', [environmentId]);
  return rows.map((r) => ({ ...r, last_deployment_at: iso(r.last_deployment_at) }));
}

/** the newest deployments of an environment (newest first) */
export async function latestOfEnvironment(db: Queryable, environmentId: string, limit: number): Promise<DeploymentRow[]> {
  return db.query<DeploymentRow>(
    `select ${COLUMNS} ${FROM} where d.environment_id = $1 order by d.created_at desc, d.position desc limit $2`, [environmentId, limit]);
}

export async function listEnvironmentHistory(db: Queryable, environmentId: string, limit: number | null, offset: number) {
  const rows = await db.query<DeploymentRow>(
    `select ${COLUMNS} ${FROM} where d.environment_id = $1 order by d.created_at desc, d.position desc limit $2 offset $3`,
    [environmentId, limit, offset]);
  const total = await db.query<{ n: number }>(STORED_COUNT, [environmentId, 'deployments']);
  return { items: rows.map(toRecord), total: total[0]!.n };
}

/** the image the service's last successful deployment ran (built from git), if any */
export async function lastDeployedImage(db: Queryable, serviceId: string): Promise<string | null> {
  const rows = await db.query<{ image_tag: string | null }>(
    `select image_tag from deployments where service_id = $1 and status = 'DEPLOYED' order by finished_at desc nulls last limit 1`, [serviceId]);
  return rows[0]?.image_tag ?? null;
}

/**
 * What a service runs from git, for the poller's baseline: whether it was ever asked to deploy
 * (DEPLOY or REDEPLOY), and its newest such deployment that knows its commit or is still under
 * way (a deployment that names no commit learns it once its build has cloned).
 */
export async function sourceBaseline(db: Queryable, serviceId: string): Promise<SourceBaseline> {
  const rows = await db.query<{ deployed: boolean; git_commit_id: string | null; finished: boolean | null }>(
    `select exists (select 1 from deployments where service_id = $1 and action in ('DEPLOY', 'REDEPLOY')) as deployed, b.git_commit_id, b.finished
     from (select 1) as one left join lateral (
       select git_commit_id, finished from deployments
       where service_id = $1 and action in ('DEPLOY', 'REDEPLOY') and (git_commit_id is not null or not finished)
       order by created_at desc, position desc limit 1) as b on true`, [serviceId]);
  const r = rows[0]!;
  return { deployed: r.deployed, commit: r.git_commit_id, finished: r.finished };
}
