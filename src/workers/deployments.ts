// The deployment workers: the deployment runner (src/modules/deployments/runner.ts) subscribed to
// the deployments.run and deployments.sweep task kinds, and a sweep at start for what a previous
// process left running (their entries in handlers.ts). Handlers are idempotent; the queue holds one
// handler per kind, the context that subscribed it last (every context of a test process shares its queue).
import type { AppContext } from '../context.ts';
import type { TaskContext } from '../queue/queue.ts';

/** runs (or resumes) one deployment; returns quietly when it is not its turn or not ours */
export function runDeployment(ctx: Pick<AppContext, 'services'>, deploymentId: string, task: Pick<TaskContext, 'id'>): Promise<void> {
  return ctx.services.deploymentRunner.run(deploymentId, task);
}

/** resumes (re-enqueues) deployments whose worker went silent, or fails them after maxRecoveries */
export function sweepAbandonedDeployments(ctx: Pick<AppContext, 'services'>): Promise<{ resumed: number; failed: number }> {
  return ctx.services.deploymentRunner.sweep();
}
