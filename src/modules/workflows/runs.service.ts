// Runs of agentic workflows: started by the workflow's webhook (secret in the URL, source IP
// checked against webhook_ip_allowlist) or by the schedule (one run per occurrence, however many
// workers tick), recorded QUEUED → RUNNING → SUCCEEDED / FAILED / CANCELED; listed, cancelled.
import type { Db, Queryable } from '../../db/db.ts';
import { AppError, conflict, forbidden, notFound } from '../../lib/errors.ts';
import { cidrListContains } from '../../lib/cidr.ts';
import { safeEqual } from '../../lib/crypto.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import { displayName, type Principal } from '../access/principal.ts';
import type { ScopeService } from '../scope/scope.service.ts';
import * as workflowsRepo from './workflows.repo.ts';
import * as repo from './runs.repo.ts';
import { defaultSpec, nextRunAt } from './workflows.rules.ts';
import { WORKFLOW_LABEL, WORKFLOW_TYPE, type WorkflowsService } from './workflows.service.ts';
import type { Static } from 'typebox';
import type { WorkflowDeploymentHistoryItem, WorkflowRun } from './runs.schemas.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import type { DeploymentsService } from '../deployments/deployments.service.ts';
import type { EnvironmentsService } from '../environments/environments.service.ts';
import { deploymentRunStarter, onDeploymentSettled, type RunFinishedHook, type RunStarter } from './runs.lifecycle.ts';
import { toLine, type DeploymentRecord, type LogLine } from '../deployments/deployments.service.ts';
import { enqueueOutputDeliveries } from './outputs.service.ts';
import {
  beforeEnvironmentsRemoved, onPreviewDeploymentRequested, onPreviewDeploymentSettled, startPullRequestRuns, type PullRequestRunDeps,
} from './pull-request-runs.ts';
import type { Sealer } from '../../lib/crypto.ts';


export interface WorkflowRunsService {
  hook(workflowId: string, secret: string, ip: string, payload: unknown): Promise<WorkflowRun>;
  /** a run started by hand (POST …/run): its JSON body, if any, is the payload, as the webhook's is */
  start(p: Principal, workflowId: string, payload: unknown): Promise<WorkflowRun>;
  /** the run's log: its deployment's lines, or the copy the run kept once its throwaway environment went */
  log(p: Principal, workflowId: string, runId: string, req: PageRequest, tail: number | undefined): Promise<{ results: LogLine[]; pagination: PageInfo }>;
  /** cancels one run (queued or running): its agent container is killed */
  cancelRun(p: Principal, workflowId: string, runId: string): Promise<WorkflowRun>;
  list(p: Principal, workflowId: string, req: PageRequest): Promise<{ results: WorkflowRun[]; pagination: PageInfo }>;
  get(p: Principal, workflowId: string, runId: string): Promise<WorkflowRun>;
  cancel(p: Principal, workflowId: string): Promise<WorkflowRun>;
  deploymentHistory(p: Principal, workflowId: string, req: PageRequest): Promise<{ results: Static<typeof WorkflowDeploymentHistoryItem>[]; pagination: PageInfo }>;
  /** inserts the due schedule occurrences' runs and advances next_run_at; returns the runs made */
  tickSchedules(now?: Date): Promise<number>;
  /** a deployment settled (inside its transaction): a workflow's run takes its outcome; a preview's may start runs per pull request */
  onDeploymentSettled(tx: Queryable, d: DeploymentRecord): Promise<void>;
  /** a deployment requested (inside its transaction): a preview's new head commit cancels the stale runs per pull request */
  onDeploymentRequested(tx: Queryable, d: DeploymentRecord): Promise<void>;
  /** the `workflows.pull-request` task: the runs per pull request of a preview healthy at its head (pull-request-runs.ts) */
  startPullRequestRuns(previewId: string): Promise<number>;
  /** one run's outcome (no authorization): what the pull request is told of a run per pull request */
  verdictOf(runId: string): Promise<{ workflowId: string; status: string; result: string | null; message: string | null } | null>;
  /** environments about to be removed (inside that transaction): runs against them are canceled */
  beforeEnvironmentsRemoved(tx: Queryable, removed: { environmentIds: string[] }): Promise<void>;
  /** deletes the throwaway environment copy of a settled CLONE_ENVIRONMENT run (the
   * `workflows.clone-cleanup` task); idempotent: false when it is gone already or is not a run's copy */
  removeRunCopy(environmentId: string): Promise<boolean>;
}

export const WEBHOOK_BODY_LIMIT = 64 * 1024;
const TICK_BATCH = 200;

export function createWorkflowRunsService(deps: {
  db: Db; scope: ScopeService; workflows: WorkflowsService; deployments: DeploymentsService; queue: TaskQueue; environments: EnvironmentsService; sealer: Sealer;
  /** a run finished SUCCEEDED or FAILED (the composition root's notifications) */
  onRunFinished?: RunFinishedHook;
  /** a service's default public URL (a run per pull request is told its preview's) */
  serviceUrl?: (serviceId: string) => Promise<string | null>;
}): WorkflowRunsService {
  const { db, scope, workflows, deployments } = deps;
  const startRun: RunStarter = deploymentRunStarter(deps);
  const pullRequests: PullRequestRunDeps = deps;

  /** cancels the run's deployment (the agent container is killed), then records the run CANCELED */
  async function cancelOne(p: Principal, workflowId: string, run: repo.RunRow): Promise<WorkflowRun> {
    if (run.deployment_id) {
      try {
        await deployments.cancel(p, run.deployment_id);
      } catch (err) {
        // already finished: the settled hook has recorded (or is recording) the outcome
        if (!(err instanceof AppError && err.status === 409)) throw err;
      }
    }
    return db.transaction(async (tx) => {
      const fresh = await repo.lockRun(tx, workflowId, run.id);
      if (fresh && ['QUEUED', 'RUNNING'].includes(fresh.status)) {
        await repo.setRun(tx, run.id, { status: 'CANCELED', message: `Canceled by ${displayName(p)}` });
        await enqueueOutputDeliveries(tx, deps, run.id);
      }
      return repo.toRun((await repo.findRun(tx, workflowId, run.id))!);
    });
  }

  return {
    async onDeploymentSettled(tx, d) {
      await onDeploymentSettled(tx, deps, d);
      await onPreviewDeploymentSettled(tx, pullRequests, d);
    },
    onDeploymentRequested: (tx, d) => onPreviewDeploymentRequested(tx, pullRequests, d),
    startPullRequestRuns: (previewId) => startPullRequestRuns(pullRequests, previewId),
    async verdictOf(runId) {
      const run = await repo.runEventFacts(db, runId);
      return run ? { workflowId: run.workflow_id, status: run.status, result: run.result, message: run.message } : null;
    },
    beforeEnvironmentsRemoved: (tx, removed) => beforeEnvironmentsRemoved(tx, pullRequests, removed.environmentIds),
    removeRunCopy: (environmentId) => db.transaction(async (tx) => {
      const organizationId = await repo.runCopyOrganization(tx, environmentId);
      if (!organizationId) return false;
      await deps.environments.prepareRemoval(tx, organizationId, [environmentId]);
      return deps.environments.removeRunCopy(tx, environmentId);
    }),
    async hook(workflowId, secret, ip, payload) {
      const row = await workflowsRepo.findWorkflow(db, workflowId);
      const expected = row ? workflows.webhookSecret(row) : null;
      // a wrong secret answers exactly like an unknown workflow
      if (!row || !expected || !safeEqual(secret, expected)) throw notFound(WORKFLOW_LABEL);
      const spec = { ...defaultSpec(), ...row.spec };
      if (spec.webhook_ip_allowlist.length > 0 && !cidrListContains(spec.webhook_ip_allowlist, ip)) {
        throw forbidden(`Source address ${ip} is not in the workflow's webhook_ip_allowlist`);
      }
      if (!spec.enabled) throw conflict('The agentic workflow is disabled; enable it to accept webhook runs', 'workflow_disabled');
      return db.transaction(async (tx) => {
        const run = (await repo.insertRun(tx, { workflowId, organizationId: row.organization_id, trigger: 'WEBHOOK', payload: payload ?? null, scheduledFor: null }))!;
        await startRun(tx, run);
        return repo.toRun((await repo.findRun(tx, workflowId, run.id))!);
      });
    },
    async start(p, workflowId, payload) {
      const svc = await scope.service(p, workflowId, 'write', WORKFLOW_TYPE, WORKFLOW_LABEL);
      const row = await workflowsRepo.findWorkflow(db, workflowId);
      if (!row) throw notFound(WORKFLOW_LABEL);
      if (!({ ...defaultSpec(), ...row.spec }).enabled) throw conflict('The agentic workflow is disabled; enable it to start runs', 'workflow_disabled');
      return db.transaction(async (tx) => {
        const run = (await repo.insertRun(tx, {
          workflowId, organizationId: svc.organizationId, trigger: 'MANUAL', payload: payload ?? null, scheduledFor: null, triggeredBy: displayName(p),
        }))!;
        await startRun(tx, run);
        return repo.toRun((await repo.findRun(tx, workflowId, run.id))!);
      });
    },
    async cancelRun(p, workflowId, runId) {
      await scope.service(p, workflowId, 'write', WORKFLOW_TYPE, WORKFLOW_LABEL);
      const run = await repo.findRun(db, workflowId, runId);
      if (!run) throw notFound('Run');
      if (!['QUEUED', 'RUNNING'].includes(run.status)) throw new AppError(409, 'conflict', `The run is already ${run.status}`);
      return cancelOne(p, workflowId, run);
    },
    async log(p, workflowId, runId, req, tail) {
      await scope.service(p, workflowId, 'read', WORKFLOW_TYPE, WORKFLOW_LABEL);
      const run = await repo.findRun(db, workflowId, runId);
      if (!run) throw notFound('Run');
      const limited = tail !== undefined ? { ...req, limit: tail, offset: 0, page: 1, pageSize: tail } : req;
      const live = run.deployment_id ? await deployments.findRecord(db, run.deployment_id) : null;
      if (live) {
        const { items, total } = await deployments.logRows(db, live.id, limited.limit, limited.offset, tail !== undefined);
        return page(limited, items.map(toLine), total);
      }
      const { items, total } = await repo.keptRunLog(db, run.id, limited.limit, limited.offset, tail !== undefined);
      return page(limited, items.map(toLine), total);
    },
    async list(p, workflowId, req) {
      await scope.service(p, workflowId, 'read', WORKFLOW_TYPE, WORKFLOW_LABEL);
      const { rows, total } = await repo.listRuns(db, workflowId, req.limit, req.offset);
      return page(req, rows.map(repo.toRun), total);
    },
    async get(p, workflowId, runId) {
      await scope.service(p, workflowId, 'read', WORKFLOW_TYPE, WORKFLOW_LABEL);
      const run = await repo.findRun(db, workflowId, runId);
      if (!run) throw notFound('Run');
      return repo.toRun(run);
    },
    async cancel(p, workflowId) {
      await scope.service(p, workflowId, 'write', WORKFLOW_TYPE, WORKFLOW_LABEL);
      const run = await repo.currentRun(db, workflowId);
      if (!run) throw new AppError(409, 'conflict', 'No run of this workflow is queued or running');
      return cancelOne(p, workflowId, run);
    },
    async deploymentHistory(p, workflowId, req) {
      const svc = await scope.service(p, workflowId, 'read', WORKFLOW_TYPE, WORKFLOW_LABEL);
      const { rows, total } = await repo.listRuns(db, workflowId, req.limit, req.offset, true);
      return page(req, rows.map((r) => ({
        identifier: { name: svc.serviceName, service_id: workflowId, service_type: WORKFLOW_TYPE, execution_id: r.deployment_id },
        status: r.status,
        auditing_data: { created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), triggered_by: r.trigger, origin: r.trigger === 'SCHEDULE' ? 'SCHEDULE' : r.trigger === 'MANUAL' ? 'API' : 'WEBHOOK' },
        run_id: r.id,
      })), total);
    },
    async tickSchedules(now = new Date()) {
      return db.transaction(async (tx) => {
        const due = await repo.lockDueWorkflows(tx, now, TICK_BATCH);
        let made = 0;
        for (const w of due) {
          const run = await repo.insertRun(tx, { workflowId: w.service_id, organizationId: w.organization_id, trigger: 'SCHEDULE', payload: null, scheduledFor: w.next_run_at });
          if (run) {
            made += 1;
            await startRun(tx, run);
          }
          // after downtime only the latest missed occurrence ran: the next one is after `now`
          await repo.setNextRunAt(tx, w.service_id, nextRunAt({ ...defaultSpec(), ...w.spec }, now));
        }
        return made;
      });
    },
  };
}
