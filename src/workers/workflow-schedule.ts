// The agentic-workflow scheduler: a pg-boss schedule fires `workflows.schedule` every minute (one
// firing per slot across processes); the handler inserts the runs of due occurrences. Exactly
// once per occurrence even if two ticks overlap (row locks + unique (workflow_id, scheduled_for)).
// Also deletes the throwaway environment copy of a CLONE_ENVIRONMENT run once it settled.
import type { AppContext } from '../context.ts';
import { prepareEnvironmentRemoval } from '../modules/environments/environments.removal.ts';
import { deleteRunCopy, runCopyOrganization } from '../modules/workflows/runs.repo.ts';

export const WORKFLOW_SCHEDULE_CRON = '* * * * *';

export async function runWorkflowScheduleTick(ctx: AppContext, now = new Date()): Promise<number> {
  return ctx.services.workflowRuns.tickSchedules(now);
}

/** idempotent: a copy already gone (or an environment a person made) is left alone */
export async function cleanupRunCopy(ctx: AppContext, environmentId: string): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    const organizationId = await runCopyOrganization(tx, environmentId);
    if (!organizationId) return false;
    await prepareEnvironmentRemoval(tx, ctx, organizationId, [environmentId]);
    return deleteRunCopy(tx, environmentId);
  });
}

export async function startWorkflowScheduleWorker(ctx: AppContext): Promise<void> {
  await ctx.queue.work('workflows.clone-cleanup', async (payload) => {
    if (typeof payload.environmentId === 'string') await cleanupRunCopy(ctx, payload.environmentId);
  });
  await ctx.queue.work('workflows.schedule', async () => {
    await runWorkflowScheduleTick(ctx);
  });
  await ctx.queue.schedule('workflows.schedule', WORKFLOW_SCHEDULE_CRON, {});
}
