// Deployments: the actions on services and environments (deploy, redeploy, stop, restart,
// uninstall, cancel) recorded as deployment rows and run by the worker one at a time per
// environment; listing (queue, history, one record) and logs. `request` is the entry point other
// modules call inside their own transaction (e.g. agentic workflow runs).
import type { Db, Queryable } from '../../db/db.ts';
import { page, type PageRequest } from '../../http/pagination.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { refuseWhileDeleting } from '../environments/environments.rules.ts';
import { isoRequired } from '../../lib/text.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import type { Principal } from '../access/principal.ts';
import { displayName } from '../access/principal.ts';
import type { ScopeService } from '../scope/scope.service.ts';
import * as repo from './deployments.repo.ts';
import { settle, type LifecycleDeps } from './deployments.lifecycle.ts';
import { QUEUED_STATE, STABLE_STATES, type DeploymentAction, type DeploymentRecord, type SourceBaseline } from './deployments.rules.ts';
import { durationSeconds, environmentDeploymentStatus, environmentState, groupStatuses, type LastDeployment, type StatusGroups } from './environment-status.rules.ts';

export type { DeploymentAction, DeploymentRecord } from './deployments.rules.ts';

interface RequestInput {
  serviceId: string;
  action: DeploymentAction;
  gitCommitId?: string | null;
  imageTag?: string | null;
  /** API, CLI, CONSOLE, GIT, QOVERY_INTERNAL, … (default API) */
  origin?: string;
  triggeredBy?: string | null;
  metadata?: Record<string, unknown>;
  /** lines the deployment's log starts with (kind BUILD), e.g. the commit a push deploys */
  log?: string[];
}

interface EnvironmentActionResult {
  id: string;
  state: string;
  deployment_request_id: string | null;
  deployments: DeploymentRecord[];
}

interface EnvironmentStatus {
  id: string; state: string; last_deployment_date: string | null; last_deployment_state: string; last_deployment_id: string | null;
  total_deployment_duration_in_seconds: number | null; origin: string | null; triggered_by: string | null;
  deployment_status: string; deployment_request_id: string | null;
}

export interface LogLine { id: string; created_at: string; message: string; kind: string; deployment_id: string | null; service_id: string }

export interface DeploymentsService {
  /** inserts a QUEUED deployment and enqueues its task, in the caller's transaction (no authorization here) */
  request(tx: Queryable, input: RequestInput): Promise<DeploymentRecord>;
  /** what settling a deployment needs (the queue, and what other modules do with a settled one), for the runner */
  readonly lifecycle: LifecycleDeps;
  /** what the service runs from git (its deployments' commits), for deploy on push's baseline */
  sourceBaseline(db: Queryable, serviceId: string): Promise<SourceBaseline>;
  act(p: Principal, serviceId: string, type: string, label: string, action: DeploymentAction, body?: { git_commit_id?: string | null; image_tag?: string | null }): Promise<DeploymentRecord>;
  actOnEnvironment(p: Principal, environmentId: string, action: DeploymentAction): Promise<EnvironmentActionResult>;
  cancel(p: Principal, deploymentId: string): Promise<DeploymentRecord>;
  /** cancels a deployment not finished yet in the caller's transaction (no authorization: a rule of another module, e.g. a stale run per pull request); the runner that runs it stops at its next look */
  cancelInTransaction(tx: Queryable, deploymentId: string): Promise<void>;
  cancelEnvironment(p: Principal, environmentId: string): Promise<EnvironmentActionResult>;
  get(p: Principal, deploymentId: string): Promise<DeploymentRecord>;
  queue(p: Principal, environmentId: string, req: PageRequest): Promise<{ results: DeploymentRecord[]; pagination: ReturnType<typeof page>['pagination'] }>;
  history(p: Principal, serviceId: string, type: string, label: string, req: PageRequest): Promise<{ results: DeploymentRecord[]; pagination: ReturnType<typeof page>['pagination'] }>;
  /** the last `tail` lines (1..10000), from `since` on when given */
  serviceLogs(p: Principal, serviceId: string, type: string, label: string, tail: number, since?: Date): Promise<{ results: LogLine[] }>;
  deploymentLogs(p: Principal, deploymentId: string, req: PageRequest, tail: number | undefined): Promise<{ results: LogLine[]; pagination: ReturnType<typeof page>['pagination'] }>;
  environmentStatus(p: Principal, environmentId: string): Promise<EnvironmentStatus>;
  environmentStatuses(p: Principal, environmentId: string): Promise<StatusGroups & { environment: EnvironmentStatus }>;
  environmentHistory(p: Principal, environmentId: string, req: PageRequest): Promise<{ results: DeploymentRecord[]; pagination: ReturnType<typeof page>['pagination'] }>;

  // For other modules: what they read or write of this module's tables (deployments,
  // deployment_logs) outside a principal's request, often inside their own transaction.
  /** one deployment's record (no authorization), or null */
  findRecord(db: Queryable, deploymentId: string): Promise<DeploymentRecord | null>;
  /** a page of one deployment's log lines (the newest `limit` when `tail`), oldest first, with the total */
  logRows: typeof repo.deploymentLogs;
  /** a service with what a run of it needs (spec, settings, its project and environment), or null */
  deployableService: typeof repo.findService;
  /** the image the service's last successful deployment ran (built from git), if any */
  lastImage(db: Queryable, serviceId: string): Promise<string | null>;
  /** locks every deployment of the environments (in id order), in the caller's transaction (an environment removal) */
  lockEnvironments(tx: Queryable, environmentIds: string[]): Promise<void>;
  /** a line in a service's log (under `deploymentId` when given) */
  appendLog(db: Queryable, deploymentId: string | null, serviceId: string, kind: string, message: string): Promise<void>;
  /** a RUNTIME line of a job's run (job runs write their output into this module's log table) */
  appendRunLog(db: Queryable, runId: string, jobId: string, message: string): Promise<void>;
}

export function toLine(r: repo.LogRow): LogLine {
  return { id: String(r.id), created_at: isoRequired(r.created_at), message: r.message, kind: r.kind, deployment_id: r.deployment_id, service_id: r.service_id };
}

export type { LogRow } from './deployments.repo.ts';

export function createDeploymentsService(deps: {
  db: Db; queue: TaskQueue; scope: ScopeService;
  /** what other modules do with a settled deployment, inside the settling transaction */
  onSettled: LifecycleDeps['onSettled'];
  /** what other modules do when a deployment starts, inside the starting transaction */
  onStarted?: LifecycleDeps['onStarted'];
  /** what other modules do with a deployment just requested (QUEUED), inside the requesting transaction */
  onRequested?: (tx: Queryable, d: DeploymentRecord) => Promise<void>;
  /** the services module's state columns a deployment moves */
  services: LifecycleDeps['services'];
}): DeploymentsService {
  const { db, queue, scope } = deps;
  const lifecycle: LifecycleDeps = { queue, services: deps.services, onSettled: deps.onSettled, onStarted: deps.onStarted, running: new Map() };

  async function request(tx: Queryable, input: RequestInput): Promise<DeploymentRecord> {
    const svc = await repo.findService(tx, input.serviceId);
    if (!svc) throw notFound('Service');
    const env = await repo.lockEnvironment(tx, svc.environment_id);
    if (!env) throw notFound('Environment');
    refuseWhileDeleting(env);
    const othersPending = await repo.unfinishedOfService(tx, svc.id, null);
    const id = await repo.insertDeployment(tx, {
      organizationId: svc.organization_id, projectId: svc.project_id, environmentId: svc.environment_id, serviceId: svc.id,
      serviceType: svc.type, action: input.action, gitCommitId: input.gitCommitId ?? null, imageTag: input.imageTag ?? null,
      origin: input.origin ?? 'API', triggeredBy: input.triggeredBy ?? null, metadata: input.metadata ?? {},
      previousState: STABLE_STATES.has(svc.state) ? svc.state : null,
    });
    for (const line of input.log ?? []) await repo.insertLog(tx, id, svc.id, 'BUILD', line);
    if (othersPending === 0) await deps.services.setState(tx, svc.id, QUEUED_STATE[input.action]);
    // only the head of the environment's queue gets a task now; the others are woken in turn
    // by the settling of the one before (both hold the environment lock: no lost wake-up)
    if (await repo.queueHead(tx, svc.environment_id) === id) await queue.enqueue(tx, 'deployments.run', { deploymentId: id });
    const record = repo.toRecord((await repo.findDeployment(tx, id))!);
    if (deps.onRequested) await deps.onRequested(tx, record);
    return record;
  }

  async function cancelIn(tx: Queryable, d: repo.DeploymentRow): Promise<DeploymentRecord> {
    if (d.status === 'QUEUED') return settle(tx, lifecycle, d, 'CANCELED', 'Canceled before it started');
    await repo.requestCancel(tx, d.id);
    return repo.toRecord((await repo.findDeployment(tx, d.id))!);
  }

  async function environmentResult(environmentId: string, deployments: DeploymentRecord[]): Promise<EnvironmentActionResult> {
    return { id: environmentId, state: deployments[0]?.status ?? 'READY', deployment_request_id: deployments[0]?.id ?? null, deployments };
  }

  /** the environment's status and the ids of the services its last request touched */
  async function statusOf(environmentId: string) {
    const services = await repo.environmentServiceStates(db, environmentId);
    const latest = (await repo.latestOfEnvironment(db, environmentId, 100)).map(repo.toRecord);
    const headId = await repo.queueHead(db, environmentId);
    const headRow = headId ? await repo.findDeployment(db, headId) : null;
    const head = headRow ? (repo.toRecord(headRow) as LastDeployment) : null;
    const last = (latest[0] ?? null) as LastDeployment | null;
    const lastBatch = new Set(latest.filter((d) => d.created_at === last?.created_at).map((d) => d.service_id));
    const status: EnvironmentStatus = {
      id: environmentId,
      state: environmentState(services, head, last),
      last_deployment_date: last?.created_at ?? null,
      last_deployment_state: last?.status ?? 'READY',
      last_deployment_id: last?.id ?? null,
      total_deployment_duration_in_seconds: durationSeconds(last),
      origin: last?.origin ?? null,
      triggered_by: last?.triggered_by ?? null,
      deployment_status: environmentDeploymentStatus(services),
      deployment_request_id: head?.id ?? last?.id ?? null,
    };
    return { status, services, lastBatch };
  }

  return {
    request,
    lifecycle,
    async findRecord(q, deploymentId) {
      const row = await repo.findDeployment(q, deploymentId);
      return row ? repo.toRecord(row) : null;
    },
    logRows: (...args) => repo.deploymentLogs(...args),
    deployableService: (...args) => repo.findService(...args),
    lastImage: (q, serviceId) => repo.lastDeployedImage(q, serviceId),
    lockEnvironments: (tx, ids) => repo.lockEnvironmentsDeployments(tx, ids),
    appendLog: (q, deploymentId, serviceId, kind, message) => repo.insertLog(q, deploymentId, serviceId, kind, message),
    appendRunLog: (q, runId, jobId, message) => repo.insertRunLine(q, { id: runId, job_id: jobId }, message),
    sourceBaseline: (tx, serviceId) => repo.sourceBaseline(tx, serviceId),
    async environmentStatus(p, environmentId) {
      await scope.environment(p, environmentId, 'read');
      return (await statusOf(environmentId)).status;
    },
    async environmentStatuses(p, environmentId) {
      await scope.environment(p, environmentId, 'read');
      const { status, services, lastBatch } = await statusOf(environmentId);
      return { environment: status, ...groupStatuses(services, lastBatch) };
    },
    async environmentHistory(p, environmentId, req) {
      await scope.environment(p, environmentId, 'read');
      const { items, total } = await repo.listEnvironmentHistory(db, environmentId, req.limit, req.offset);
      return page(req, items, total);
    },
    async act(p, serviceId, type, label, action, body = {}) {
      const s = await scope.service(p, serviceId, 'write', type, label);
      refuseWhileDeleting(s);
      return db.transaction((tx) => request(tx, {
        serviceId, action, gitCommitId: body.git_commit_id ?? null, imageTag: body.image_tag ?? null, triggeredBy: displayName(p),
      }));
    },
    async actOnEnvironment(p, environmentId, action) {
      const s = await scope.environment(p, environmentId, 'write');
      refuseWhileDeleting(s);
      const records = await db.transaction(async (tx) => {
        const ids = await repo.listEnvironmentServiceIds(tx, environmentId);
        const out: DeploymentRecord[] = [];
        for (const serviceId of ids) out.push(await request(tx, { serviceId, action, triggeredBy: displayName(p) }));
        return out;
      });
      return environmentResult(environmentId, records);
    },
    async cancel(p, deploymentId) {
      const d = await repo.findDeployment(db, deploymentId);
      if (!d) throw notFound('Deployment');
      await scope.environment(p, d.environment_id, 'write');
      const record = await db.transaction(async (tx) => {
        await repo.lockEnvironment(tx, d.environment_id);
        const fresh = (await repo.findDeployment(tx, deploymentId))!;
        if (fresh.finished) throw conflict(`The deployment is already finished (${fresh.status}); it cannot be canceled`);
        return cancelIn(tx, fresh);
      });
      lifecycle.running.get(deploymentId)?.abort(new Error('canceled'));
      return record;
    },
    async cancelInTransaction(tx, deploymentId) {
      const d = await repo.findDeployment(tx, deploymentId);
      if (!d || d.finished) return;
      await repo.lockEnvironment(tx, d.environment_id);
      const fresh = await repo.findDeployment(tx, deploymentId);
      if (fresh && !fresh.finished) await cancelIn(tx, fresh);
    },
    async cancelEnvironment(p, environmentId) {
      await scope.environment(p, environmentId, 'write');
      const records = await db.transaction(async (tx) => {
        await repo.lockEnvironment(tx, environmentId);
        const ids = await repo.unfinishedOfEnvironment(tx, environmentId);
        if (ids.length === 0) throw conflict('No deployment is queued or in progress in this environment');
        const out: DeploymentRecord[] = [];
        // newest first, so canceling the queued ones never wakes a deployment that is canceled next
        for (const id of ids.reverse()) out.push(await cancelIn(tx, (await repo.findDeployment(tx, id))!));
        return out.reverse();
      });
      for (const r of records) lifecycle.running.get(r.id)?.abort(new Error('canceled'));
      return environmentResult(environmentId, records);
    },
    async get(p, deploymentId) {
      const d = await repo.findDeployment(db, deploymentId);
      if (!d) throw notFound('Deployment');
      await scope.environment(p, d.environment_id, 'read');
      return repo.toRecord(d);
    },
    async queue(p, environmentId, req) {
      await scope.environment(p, environmentId, 'read');
      const { items, total } = await repo.listEnvironmentQueue(db, environmentId, req.limit, req.offset);
      return page(req, items, total);
    },
    async history(p, serviceId, type, label, req) {
      await scope.service(p, serviceId, 'read', type, label);
      const { items, total } = await repo.listServiceHistory(db, serviceId, req.limit, req.offset);
      return page(req, items, total);
    },
    async serviceLogs(p, serviceId, type, label, tail, since) {
      if (!Number.isInteger(tail) || tail < 1 || tail > 10_000) throw badRequest('tail must be an integer between 1 and 10000');
      if (since !== undefined && Number.isNaN(since.getTime())) throw badRequest('since must be a date-time (ISO 8601)');
      await scope.service(p, serviceId, 'read', type, label);
      return { results: (await repo.tailServiceLogs(db, serviceId, tail, since ?? null)).map(toLine) };
    },
    async deploymentLogs(p, deploymentId, req, tail) {
      const d = await repo.findDeployment(db, deploymentId);
      if (!d) throw notFound('Deployment');
      await scope.environment(p, d.environment_id, 'read');
      const limited = tail !== undefined ? { ...req, limit: tail, offset: 0, page: 1, pageSize: tail } : req;
      const { items, total } = await repo.deploymentLogs(db, deploymentId, limited.limit, limited.offset, tail !== undefined);
      return page(limited, items.map(toLine), total);
    },
  };
}
