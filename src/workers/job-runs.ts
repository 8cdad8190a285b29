// Cron jobs: a pg-boss schedule fires `jobs.schedule` every minute (one firing per slot across
// processes); the tick inserts the runs of due occurrences (exactly once each) and enqueues
// `jobs.run`, which runs the job's container through the engine and records its outcome.
import type { AppContext } from '../context.ts';
import { executeJobRun, tickJobSchedules } from '../modules/job-runs/job-runs.service.ts';

export const JOB_SCHEDULE_CRON = '* * * * *';

export async function startJobRunWorkers(ctx: AppContext): Promise<void> {
  await ctx.queue.work('jobs.run', async (payload) => {
    if (typeof payload.runId === 'string') await executeJobRun(ctx, payload.runId);
  }, { concurrency: 4 });
  await ctx.queue.work('jobs.schedule', async () => { await tickJobSchedules(ctx); });
  await ctx.queue.schedule('jobs.schedule', JOB_SCHEDULE_CRON, {});
}
