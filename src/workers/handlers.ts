// Every background task kind (src/queue/tasks.ts) and what runs it, in one table: TASK_HANDLERS
// must have an entry per kind (TypeScript refuses a missing or unknown kind through the `satisfies`
// below, handlers.test.ts checks the keys at run time), and the recurring kinds' schedules are
// listed beside it (TASK_SCHEDULES). The handlers' code stays where it is; an entry only says what
// a task of the kind runs with its payload, how many run at once in a process, and what runs once
// when the kind is first subscribed.
//
// subscribeTasks() gives the queue each kind's handler over one context (the runner all kinds;
// tests through the start*Workers functions only those they need). The queue holds one handler per
// kind: the first subscription of a kind installs its schedule and runs its atStart; a later one
// (another context over the same queue: tests make one per file) only puts its handler in place.
import type { AppContext } from '../context.ts';
import { runEngineUninstall } from '../modules/deployments/uninstall-on-removal.ts';
import { executeJobRun, tickJobSchedules } from '../modules/job-runs/job-runs.service.ts';
import type { TaskContext } from '../queue/queue.ts';
import type { TaskKind } from '../queue/tasks.ts';
import { runDeployment, sweepAbandonedDeployments } from './deployments.ts';
import { runMaintenance } from './maintenance.ts';
import { deliverWebhookEvent } from './webhooks.ts';
import { deliverWorkflowOutput } from './workflow-outputs.ts';
import { cleanupRunCopy, runWorkflowScheduleTick } from './workflow-schedule.ts';

export interface TaskHandlerEntry {
  /** one task of the kind; a rejection is pg-boss's retry (the kind's policy in tasks.ts) */
  run(ctx: AppContext, payload: Record<string, unknown>, task: TaskContext): Promise<unknown>;
  /** tasks of the kind run at once in one process (1 when unset) */
  concurrency?: number;
  /** once, when the kind is first subscribed on a queue */
  atStart?(ctx: AppContext): Promise<void>;
}

export const TASK_HANDLERS = {
  'maintenance.cleanup': { run: (ctx) => runMaintenance(ctx) },
  'deployments.run': { run: (ctx, payload, task) => runDeployment(ctx, String(payload.deploymentId), task), concurrency: 4 },
  'deployments.sweep': {
    run: (ctx) => sweepAbandonedDeployments(ctx),
    // at start: anything left running by a previous process is resumed or failed
    atStart: async (ctx) => { await sweepAbandonedDeployments(ctx).catch((err) => ctx.logger.error({ err }, 'deployment sweep failed')); },
  },
  'webhooks.deliver': { run: (ctx, payload) => deliverWebhookEvent(ctx, String(payload.eventId)), concurrency: 4 },
  'notifications.send': { run: (ctx, payload) => ctx.services.notifications.deliver({ incidentId: String(payload.incidentId), channelId: String(payload.channelId) }), concurrency: 4 },
  'workflows.schedule': { run: (ctx) => runWorkflowScheduleTick(ctx) },
  'workflows.output-deliver': { run: (ctx, payload) => deliverWorkflowOutput(ctx, String(payload.deliveryId)), concurrency: 4 },
  'workflows.clone-cleanup': {
    run: async (ctx, payload) => { if (typeof payload.environmentId === 'string') await cleanupRunCopy(ctx, payload.environmentId); },
  },
  'workflows.pull-request': { run: async (ctx, payload) => { await ctx.services.workflowRuns.startPullRequestRuns(String(payload.previewId)); } },
  'jobs.schedule': { run: (ctx) => tickJobSchedules(ctx) },
  'jobs.run': { run: async (ctx, payload) => { if (typeof payload.runId === 'string') await executeJobRun(ctx, ctx.services.deployments, payload.runId); }, concurrency: 4 },
  'engine.uninstall': { run: (ctx, payload) => runEngineUninstall(ctx, (payload.services ?? []) as Parameters<typeof runEngineUninstall>[1]) },
  'domains.advance': { run: (ctx, payload) => ctx.services.domains.lifecycle.advance(String(payload.domainId)), concurrency: 2 },
  'domains.certify-ingress-domain': { run: (ctx) => ctx.services.domains.lifecycle.certifyIngressDomain() },
  'domains.visit': {
    run: (ctx) => ctx.services.domains.lifecycle.visit(),
    // at start: the ingress serves every domain and certificate the store holds
    atStart: async (ctx) => { await ctx.services.domains.lifecycle.syncIngress().catch((err) => ctx.logger.error({ err }, 'custom domains: syncing the ingress failed')); },
  },
  'backups.take': { run: (ctx, payload, task) => ctx.services.backupRunner.take(String(payload.backupId), task.signal), concurrency: 2 },
  'backups.restore': { run: (ctx, payload, task) => ctx.services.backupLifecycle.restore(String(payload.restoreId), task.signal), concurrency: 2 },
  'backups.drill': { run: (ctx, payload, task) => ctx.services.backupRunner.drill(String(payload.backupId), task.signal) },
  'backups.visit': { run: (ctx) => ctx.services.backupLifecycle.visit() },
  'providers.report': { run: (ctx, payload) => ctx.services.providerStatus.report(String(payload.deploymentId)), concurrency: 4 },
  'providers.comment': { run: (ctx, payload) => ctx.services.providerStatus.comment(String(payload.previewId)), concurrency: 2 },
} satisfies Record<TaskKind, TaskHandlerEntry>;

/** the recurring kinds: a pg-boss schedule (cron, UTC) makes one task per slot across processes */
export const TASK_SCHEDULES: Readonly<Partial<Record<TaskKind, string>>> = {
  'maintenance.cleanup': '17 * * * *',
  'deployments.sweep': '* * * * *',
  'workflows.schedule': '* * * * *',
  'jobs.schedule': '* * * * *',
  'domains.visit': '* * * * *',
  'backups.visit': '* * * * *',
};

/** subscribes `kinds` (all by default) on ctx.queue over ctx; their schedules and atStart run once per queue, when first subscribed */
export async function subscribeTasks(ctx: AppContext, kinds: readonly TaskKind[] = Object.keys(TASK_HANDLERS) as TaskKind[]): Promise<void> {
  for (const kind of kinds) {
    const entry: TaskHandlerEntry = TASK_HANDLERS[kind];
    const first = await ctx.queue.work(kind, async (payload, task) => {
      await entry.run(ctx, payload, task);
    }, { concurrency: entry.concurrency });
    if (!first) continue;
    const cron = TASK_SCHEDULES[kind];
    if (cron) await ctx.queue.schedule(kind, cron, {});
    await entry.atStart?.(ctx);
  }
}

// what a test that runs only some background work subscribes (the runner subscribes every kind)
export const startDeploymentWorkers = (ctx: AppContext) => subscribeTasks(ctx, ['deployments.run', 'deployments.sweep']);
export const startEngineUninstallWorker = (ctx: AppContext) => subscribeTasks(ctx, ['engine.uninstall']);
export const startWebhookWorkers = (ctx: AppContext) => subscribeTasks(ctx, ['webhooks.deliver']);
export const startNotificationWorkers = (ctx: AppContext) => subscribeTasks(ctx, ['notifications.send']);
export const startWorkflowOutputWorkers = (ctx: AppContext) => subscribeTasks(ctx, ['workflows.output-deliver']);
export const startWorkflowScheduleWorker = (ctx: AppContext) => subscribeTasks(ctx, ['workflows.clone-cleanup', 'workflows.schedule']);
