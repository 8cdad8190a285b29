// The agentic-workflow scheduler: a pg-boss schedule fires `workflows.schedule` every minute (one
// firing per slot across processes); the handler inserts the runs of due occurrences. Exactly
// once per occurrence even if two ticks overlap (row locks + unique (workflow_id, scheduled_for)).
// Also deletes the throwaway environment copy of a CLONE_ENVIRONMENT run once it settled.
import type { AppContext } from '../context.ts';

export async function runWorkflowScheduleTick(ctx: AppContext, now = new Date()): Promise<number> {
  return ctx.services.workflowRuns.tickSchedules(now);
}

/** idempotent: a copy already gone (or an environment a person made) is left alone */
export async function cleanupRunCopy(ctx: Pick<AppContext, 'services'>, environmentId: string): Promise<boolean> {
  return ctx.services.workflowRuns.removeRunCopy(environmentId);
}
