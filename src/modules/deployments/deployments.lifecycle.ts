// Transitions of a deployment that touch several things at once, always inside the caller's
// transaction: start (status, service state, DEPLOYMENT_STARTED) and settle (final status,
// service status columns, the event, what other modules do with a settled deployment —
// `onSettled`, wired by the composition root — and waking the next deployment of the
// environment's queue).
import { bumpCounter } from '../../db/counters.ts';
import type { Queryable } from '../../db/db.ts';
import { emitEvent } from '../webhooks/emit.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import * as repo from './deployments.repo.ts';
import {
  STABLE_STATES, serviceIdKey, settledEvent, type DeploymentRecord,
} from './deployments.rules.ts';

/** what deployments ask of the services module (its table holds a service's state, deployment
 * status and last deployment); declared here, given by the composition root */
export interface ServiceRuntimeState {
  setState(tx: Queryable, serviceId: string, state: string): Promise<void>;
  markDeployed(tx: Queryable, serviceId: string, startedAt: Date | null): Promise<void>;
  markUninstalled(tx: Queryable, serviceId: string): Promise<void>;
}

export interface LifecycleDeps {
  queue: TaskQueue;
  services: ServiceRuntimeState;
  /** what other modules do with a settled deployment (a workflow run's outcome, a cron job's schedule), inside the settling transaction */
  onSettled(tx: Queryable, d: DeploymentRecord): Promise<void>;
  /** what other modules do when a deployment starts (its first running status), inside the starting transaction */
  onStarted?(tx: Queryable, d: DeploymentRecord): Promise<void>;
  /** abort controllers of the deployments this instance's runner is running, by deployment id: the
   * runner adds and removes them, a cancel through this instance's service aborts the step */
  readonly running: Map<string, AbortController>;
}

function eventPayload(d: repo.DeploymentRow, status: string, message: string | null): Record<string, unknown> {
  return {
    deployment_id: d.id, status, action: d.action, service_id: d.service_id, service_type: d.service_type,
    service_name: d.service_name ?? '', [serviceIdKey(d.service_type)]: d.service_id,
    environment_id: d.environment_id, project_id: d.project_id, organization_id: d.organization_id,
    git_commit_id: d.git_commit_id, image_tag: d.image_tag, message,
  };
}

async function emitFor(tx: Queryable, deps: LifecycleDeps, d: repo.DeploymentRow, kind: Parameters<typeof emitEvent>[2]['kind'], status: string, message: string | null) {
  const svc = await repo.findService(tx, d.service_id);
  await emitEvent(tx, deps, {
    organizationId: d.organization_id, kind, payload: eventPayload(d, status, message),
    ...(svc ? { projectName: svc.project_name, environmentMode: svc.environment_mode } : {}),
  });
}

/** enqueue a run of the oldest unfinished deployment of the environment (its turn has come) */
export async function wakeQueue(tx: Queryable, deps: LifecycleDeps, environmentId: string): Promise<void> {
  const head = await repo.queueHead(tx, environmentId);
  if (head) await deps.queue.enqueue(tx, 'deployments.run', { deploymentId: head });
}

export async function start(tx: Queryable, deps: LifecycleDeps, d: repo.DeploymentRow, status: string): Promise<void> {
  await repo.setStatus(tx, d.id, status, true);
  await deps.services.setState(tx, d.service_id, status);
  await emitFor(tx, deps, d, 'DEPLOYMENT_STARTED', status, null);
  if (deps.onStarted) await deps.onStarted(tx, repo.toRecord((await repo.findDeployment(tx, d.id))!));
}

/** the next running status of a started deployment */
export async function advance(tx: Queryable, deps: Pick<LifecycleDeps, 'services'>, d: repo.DeploymentRow, status: string): Promise<void> {
  await repo.setStatus(tx, d.id, status, true);
  await deps.services.setState(tx, d.service_id, status);
}

export async function settle(tx: Queryable, deps: LifecycleDeps, d: repo.DeploymentRow, status: string, message: string | null): Promise<DeploymentRecord> {
  await repo.lockEnvironment(tx, d.environment_id);
  const wasHead = await repo.queueHead(tx, d.environment_id) === d.id;
  await repo.finish(tx, d.id, status, message);
  await bumpCounter(tx, 'berth_deployments_total', { action: d.action, status });
  const othersPending = await repo.unfinishedOfService(tx, d.service_id, d.id);
  if (status === 'DEPLOYED') await deps.services.markDeployed(tx, d.service_id, d.started_at);
  else if (status === 'RESTARTED') await deps.services.setState(tx, d.service_id, 'RUNNING');
  else if (status === 'STOPPED') await deps.services.setState(tx, d.service_id, 'STOPPED');
  else if (status === 'DELETED') await deps.services.markUninstalled(tx, d.service_id);
  else if (status === 'CANCELED') {
    if (othersPending === 0) await deps.services.setState(tx, d.service_id, d.previous_state && STABLE_STATES.has(d.previous_state) ? d.previous_state : 'STOPPED');
  } else await deps.services.setState(tx, d.service_id, 'ERROR');
  await emitFor(tx, deps, d, settledEvent(status), status, message);
  const record = repo.toRecord((await repo.findDeployment(tx, d.id))!);
  await deps.onSettled(tx, record);
  if (wasHead) await wakeQueue(tx, deps, d.environment_id);
  return record;
}
