// How workflow runs meet the deployments module: a new run requests a DEPLOY of the workflow
// service in the run's transaction (IN_PLACE), a settled deployment (onDeploymentSettled, called
// by the deployments service as the composition root wires it) moves the run to SUCCEEDED /
// FAILED / CANCELED, and WORKFLOW_RUN_* events are emitted on start and finish. Also copies a
// workflow's own rows when its environment is cloned.
import type { Queryable } from '../../db/db.ts';
import { emitEvent } from '../webhooks/emit.ts';
import { AppError } from '../../lib/errors.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import type { DeploymentRecord, DeploymentsService } from '../deployments/deployments.service.ts';
import type { ClonedEnvironment, EnvironmentsService } from '../environments/environments.service.ts';
import * as repo from './runs.repo.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { enqueueOutputDeliveries } from './outputs.service.ts';

/** how a QUEUED run is started (deployment request), inside the transaction that created it */
export type RunStarter = (tx: Queryable, run: repo.RunRow) => Promise<void>;

/** what other modules do with a run that finished SUCCEEDED or FAILED (the notifications' AGENT_RUN_FAILED), inside its transaction */
export type RunFinishedHook = (tx: Queryable, run: { id: string; organizationId: string; workflowId: string; workflowName: string; status: 'SUCCEEDED' | 'FAILED'; message: string | null }) => Promise<void>;

export interface RunLifecycleDeps { deployments: DeploymentsService; queue: TaskQueue; sealer: Sealer; environments: EnvironmentsService; onRunFinished?: RunFinishedHook }

/** how long a run's throwaway environment copy lives at most (deleted earlier when the run settles) */
const RUN_COPY_TTL_MS = 24 * 3600_000;

type RunEvent = 'WORKFLOW_RUN_STARTED' | 'WORKFLOW_RUN_SUCCEEDED' | 'WORKFLOW_RUN_FAILED';

export async function emitRunEvent(tx: Queryable, queue: TaskQueue, kind: RunEvent, runId: string, onRunFinished?: RunFinishedHook): Promise<void> {
  const run = await repo.runEventFacts(tx, runId);
  if (!run) return;
  if (kind !== 'WORKFLOW_RUN_STARTED' && onRunFinished) {
    await onRunFinished(tx, {
      id: run.id, organizationId: run.organization_id, workflowId: run.workflow_id, workflowName: run.workflow_name,
      status: kind === 'WORKFLOW_RUN_SUCCEEDED' ? 'SUCCEEDED' : 'FAILED', message: run.message,
    });
  }
  await emitEvent(tx, { queue }, {
    organizationId: run.organization_id, kind, projectName: run.project_name, environmentMode: run.environment_mode,
    payload: {
      run_id: run.id, agentic_workflow_id: run.workflow_id, workflow_name: run.workflow_name, trigger: run.trigger, status: run.status,
      deployment_id: run.deployment_id, environment_id: run.environment_id, organization_id: run.organization_id, message: run.message,
      result_summary: run.result === null ? null : run.result.slice(0, 500), num_turns: run.num_turns,
      input_tokens: run.input_tokens === null ? null : Number(run.input_tokens), output_tokens: run.output_tokens === null ? null : Number(run.output_tokens),
      cost_usd: run.cost_usd === null ? null : Number(run.cost_usd), duration_ms: run.duration_ms,
    },
  });
}

/** the starter the runs service uses: request the deployment, announce the run */
export function deploymentRunStarter(deps: RunLifecycleDeps): RunStarter {
  return async (tx, run) => {
    try {
      const target = await repo.runTarget(tx, run.workflow_id);
      const common = { action: 'DEPLOY' as const, origin: run.trigger, triggeredBy: `agentic workflow ${run.trigger.toLowerCase()}`, metadata: { agentic_workflow_run_id: run.id } };
      if (target?.execution_mode === 'CLONE_ENVIRONMENT') {
        // a throwaway copy of the whole environment: every service deployed there, the workflow last
        const copy = await deps.environments.cloneForSystem(tx, target.environment_id, {
          name: `${target.slug}-run-${run.id.slice(0, 8)}`, expiresAt: new Date(Date.now() + RUN_COPY_TTL_MS).toISOString(),
        });
        await repo.setRun(tx, run.id, { cloneEnvironmentId: copy.id });
        let workflowDeployment: string | null = null;
        for (const s of await repo.copyDeploymentOrder(tx, copy.id, target.name)) {
          const d = await deps.deployments.request(tx, { serviceId: s.id, ...common });
          if (s.is_workflow) workflowDeployment = d.id;
        }
        if (!workflowDeployment) throw new AppError(409, 'conflict', 'The environment copy has no copy of the workflow');
        await repo.setRun(tx, run.id, { deploymentId: workflowDeployment });
      } else {
        const d = await deps.deployments.request(tx, { serviceId: run.workflow_id, ...common });
        await repo.setRun(tx, run.id, { deploymentId: d.id });
      }
      await emitRunEvent(tx, deps.queue, 'WORKFLOW_RUN_STARTED', run.id);
    } catch (err) {
      // e.g. the environment is being deleted: the run is recorded as failed, the trigger succeeds
      if (!(err instanceof AppError)) throw err;
      await repo.setRun(tx, run.id, { status: 'FAILED', message: err.message });
      await enqueueOutputDeliveries(tx, deps, run.id);
      await emitRunEvent(tx, deps.queue, 'WORKFLOW_RUN_FAILED', run.id, deps.onRunFinished);
    }
  };
}

export function runStatusOf(deploymentStatus: string): 'SUCCEEDED' | 'FAILED' | 'CANCELED' {
  if (deploymentStatus === 'DEPLOYED') return 'SUCCEEDED';
  return deploymentStatus === 'CANCELED' ? 'CANCELED' : 'FAILED';
}

/** a settled deployment of a workflow: its run's outcome, outputs and event, and its throwaway copy's cleanup */
export async function onDeploymentSettled(tx: Queryable, deps: { queue: TaskQueue; sealer: Sealer; onRunFinished?: RunFinishedHook }, d: DeploymentRecord): Promise<void> {
  if (d.service_type !== 'AGENTIC_WORKFLOW') return;
  const run = await repo.findRunByDeployment(tx, d.id);
  if (!run) return;
  // a throwaway copy goes once its run's deployment has settled, whatever the run's status says
  // (a cancel marks the run CANCELED before the killed deployment settles); the run keeps its log
  if (run.clone_environment_id) {
    await repo.keepRunLog(tx, run.id, d.id);
    // a run per pull request ran against its preview, which stays (it goes when the pull request closes)
    if (!run.preview_id) await deps.queue.enqueue(tx, 'workflows.clone-cleanup', { environmentId: run.clone_environment_id }, { singletonKey: `clone-cleanup:${run.clone_environment_id}` });
  }
  if (!['QUEUED', 'RUNNING'].includes(run.status)) return;
  const status = runStatusOf(d.status);
  await repo.setRun(tx, run.id, { status, message: d.message ?? null });
  await enqueueOutputDeliveries(tx, deps, run.id);
  if (status !== 'CANCELED') await emitRunEvent(tx, deps.queue, status === 'SUCCEEDED' ? 'WORKFLOW_RUN_SUCCEEDED' : 'WORKFLOW_RUN_FAILED', run.id, deps.onRunFinished);
}

/** a cloned environment's workflows get their own rows (the copy of each workflow service) */
export async function copyWorkflowsOnClone(tx: Queryable, clone: ClonedEnvironment): Promise<void> {
  for (const [from, to] of clone.serviceIdMap) await repo.copyWorkflowRows(tx, from, to, clone.toEnvironmentId);
}
