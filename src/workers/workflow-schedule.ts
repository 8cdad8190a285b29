// The agentic-workflow scheduler: a pg-boss schedule fires `workflows.schedule` every minute (one
// firing per slot across processes); the handler inserts the runs of due occurrences. Exactly
// once per occurrence even if two ticks overlap (row locks + unique (workflow_id, scheduled_for)).
// Also deletes the throwaway environment copy of a CLONE_ENVIRONMENT run once it settled.
import type { AppContext } from '../context.ts';
import { deleteRunCopy, runCopyOrganization } from '../modules/workflows/runs.service.ts';

export async function runWorkflowScheduleTick(ctx: AppContext, now = new Date()): Promise<number> {
  return ctx.services.workflowRuns.tickSchedules(now);
}

/** idempotent: a copy already gone (or an environment a person made) is left alone */
export async function cleanupRunCopy(ctx: AppContext, environmentId: string): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    const organizationId = await runCopyOrganization(tx, environmentId);
    if (!organizationId) return false;
    await ctx.services.environments.prepareRemoval(tx, organizationId, [environmentId]);
    return deleteRunCopy(tx, environmentId);
  });
}
