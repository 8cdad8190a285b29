// The worker runner: subscribes each task kind to its handler and installs the recurring
// tasks; starts the engine observer (or, on Swarm, the swarm observer), the log pruner, the git poller and the autoscaler (each
// active in one process at a time).
// Runs in roles `all` and `worker`; handlers call the same services the API does.
import type { AppContext } from '../context.ts';
import { startDeploymentWorkers } from './deployments.ts';
import { startEngineUninstallWorker } from './engine-uninstall.ts';
import { MAINTENANCE_CRON, runMaintenance } from './maintenance.ts';
import { startWebhookWorkers } from './webhooks.ts';
import { startWorkflowScheduleWorker } from './workflow-schedule.ts';
import { startWorkflowOutputWorkers } from './workflow-outputs.ts';
import { startJobRunWorkers } from './job-runs.ts';
import { startEngineObserver } from './engine-observer.ts';
import { startLogPruner } from './log-retention.ts';
import { startGitPoller } from './git-poll.ts';
import { startAutoscaler } from './autoscale.ts';
import { startSwarmObserver } from './swarm-observer.ts';

export interface Workers { stop(): Promise<void> }

export async function startWorkers(ctx: AppContext): Promise<Workers> {
  await ctx.queue.work('maintenance.cleanup', async () => {
    await runMaintenance(ctx);
  });
  await ctx.queue.schedule('maintenance.cleanup', MAINTENANCE_CRON, {});
  await startDeploymentWorkers(ctx);
  await startWebhookWorkers(ctx);
  await startWorkflowScheduleWorker(ctx);
  await startWorkflowOutputWorkers(ctx);
  await startEngineUninstallWorker(ctx);
  await startJobRunWorkers(ctx);
  const observer = startEngineObserver(ctx) ?? startSwarmObserver(ctx);
  const pruner = startLogPruner(ctx);
  const gitPoller = startGitPoller(ctx);
  const autoscaler = startAutoscaler(ctx);
  return { stop: async () => { await autoscaler?.stop(); await observer?.stop(); await pruner?.stop(); await gitPoller.stop(); } };
}
