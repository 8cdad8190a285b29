// Job runs: the cron schedule of deployed cron jobs (set when a deploy succeeds, removed when the
// job is stopped or uninstalled), the tick that turns due occurrences into runs exactly once
// across workers, running one through the engine (exit code, attempts and output kept), and the
// read side of the API.

import type { Db, Queryable } from '../../db/db.ts';
import type { Platform } from '../../platform.ts';
import type { DriverService } from '../../engine/index.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import { nextOccurrence, parseCron } from '../../lib/cron.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import { notFound } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import type { DeploymentRecord } from '../deployments/deployments.rules.ts';
import { buildRuntimePlan } from '../deployments/runtime-plan.ts';
import { completeAdvancedSettings } from '../services/advanced-settings/index.ts';
import type { DeploymentsService } from '../deployments/deployments.service.ts';
import type { ScopeService } from '../scope/scope.service.ts';
import * as repo from './job-runs.repo.ts';

const LABEL = 'Job';
const TICK_BATCH = 200;

/** the next firing of a cron job spec after `after`, or null (not a cron job, or no next firing) */
function nextCronRun(spec: Record<string, any>, after: Date): Date | null {
  const cron = spec?.schedule?.cronjob;
  if (!cron?.scheduled_at) return null;
  const parsed = parseCron(cron.scheduled_at);
  return parsed.ok ? nextOccurrence(parsed.schedule, cron.timezone ?? 'Etc/UTC', after) : null;
}

/** cron schedules follow deployments: DEPLOYED arms it, STOPPED or DELETED disarms it */
async function followDeployment(deployments: Pick<DeploymentsService, 'deployableService'>, tx: Queryable, d: DeploymentRecord): Promise<void> {
  if (d.service_type !== 'JOB') return;
  if (d.status === 'DEPLOYED') {
    const svc = await deployments.deployableService(tx, d.service_id);
    if (svc) await repo.setSchedule(tx, d.service_id, nextCronRun(svc.spec, new Date()));
  } else if (d.status === 'STOPPED' || d.status === 'DELETED') {
    await repo.setSchedule(tx, d.service_id, null);
  }
}

export interface JobRunsService {
  list(p: Principal, jobId: string, req: PageRequest): Promise<{ results: ReturnType<typeof repo.toRun>[]; pagination: PageInfo }>;
  get(p: Principal, jobId: string, runId: string): Promise<ReturnType<typeof repo.toRun>>;
  log(p: Principal, jobId: string, runId: string): Promise<{ results: Array<{ id: string; created_at: string; message: string }> }>;
  /** the schedule's next firing, or null when the job is not a deployed cron job */
  nextRun(jobId: string): Promise<string | null>;
  /** a deployment settled (inside its transaction): a cron job's schedule is armed or disarmed */
  onDeploymentSettled(tx: Queryable, d: DeploymentRecord): Promise<void>;
}

export function createJobRunsService(deps: { db: Db; scope: ScopeService; deployments: Pick<DeploymentsService, 'deployableService'> }): JobRunsService {
  const { db, scope } = deps;
  const authorize = (p: Principal, jobId: string) => scope.service(p, jobId, 'read', 'JOB', LABEL);
  return {
    onDeploymentSettled: (tx, d) => followDeployment(deps.deployments, tx, d),
    async list(p, jobId, req) {
      await authorize(p, jobId);
      const { rows, total } = await repo.listRuns(db, jobId, req.limit, req.offset);
      return page(req, rows.map(repo.toRun), total);
    },
    async get(p, jobId, runId) {
      await authorize(p, jobId);
      const run = await repo.findRun(db, jobId, runId);
      if (!run) throw notFound('Job run');
      return repo.toRun(run);
    },
    async log(p, jobId, runId) {
      await authorize(p, jobId);
      if (!await repo.findRun(db, jobId, runId)) throw notFound('Job run');
      const lines = await repo.runLines(db, runId, 10_000);
      return { results: lines.map((l) => ({ id: l.id, created_at: isoRequired(l.created_at), message: l.message })) };
    },
    async nextRun(jobId) {
      return iso(await repo.nextRunAt(db, jobId));
    },
  };
}

/** due occurrences become runs (one each), enqueued for a worker; returns how many were made */
export async function tickJobSchedules(ctx: Pick<Platform, 'db' | 'queue'>, now = new Date()): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    let made = 0;
    for (const due of await repo.lockDueSchedules(tx, now, TICK_BATCH)) {
      const run = await repo.insertRun(tx, { jobId: due.job_id, trigger: 'CRON', scheduledFor: due.next_run_at });
      if (run) {
        made += 1;
        await ctx.queue.enqueue(tx, 'jobs.run', { runId: run.id });
      }
      // after downtime only the latest missed occurrence runs: the next one is after `now`
      await repo.setSchedule(tx, due.job_id, nextCronRun(due.spec, now));
    }
    return made;
  });
}

/** runs one queued run through the engine; a run another worker claimed is left alone */
export async function executeJobRun(ctx: Pick<Platform, 'db' | 'engine' | 'sealer'>, deployments: Pick<DeploymentsService, 'deployableService' | 'lastImage' | 'appendRunLog'>, runId: string): Promise<void> {
  const run = await repo.findRunById(ctx.db, runId);
  if (!run || !await repo.claimRun(ctx.db, runId)) return;
  const line = (text: string) => deployments.appendRunLog(ctx.db, run.id, run.job_id, text);
  const svc = await deployments.deployableService(ctx.db, run.job_id);
  if (!svc) return;
  const service: DriverService = {
    id: svc.id, type: svc.type, name: svc.name, slug: svc.slug, environmentId: svc.environment_id, spec: svc.spec ?? {},
    // complete (defaults included): the engine applies the job keys (concurrency policy, history, grace…)
    advancedSettings: completeAdvancedSettings('job', svc.advanced_settings), gitCommitId: null, imageTag: null,
    projectId: svc.project_id, organizationId: svc.organization_id,
  };
  const command = ({ CRON: 'cron', ON_START: 'start', ON_STOP: 'stop', ON_DELETE: 'delete' } as const)[run.trigger as 'CRON'] ?? 'cron';
  try {
    if (!ctx.engine.runJob) throw new Error(`the ${ctx.engine.name} engine cannot run jobs`);
    const image = await deployments.lastImage(ctx.db, svc.id);
    const plan = ctx.engine.real ? await buildRuntimePlan(ctx, svc.id) : undefined;
    const outcome = await ctx.engine.runJob({ ...service, imageTag: image, ...(plan ? { plan } : {}) }, runId, command, line, AbortSignal.timeout(6 * 3600_000));
    await repo.finishRun(ctx.db, runId, outcome.skipped
      ? { status: 'CANCELED', exitCode: null, attempts: 0, message: outcome.reason }
      : { status: outcome.exitCode === 0 ? 'SUCCEEDED' : 'FAILED', exitCode: outcome.exitCode, attempts: outcome.attempts, message: outcome.reason });
  } catch (err) {
    await line(`The run could not start: ${(err as Error).message}`);
    await repo.finishRun(ctx.db, runId, { status: 'FAILED', exitCode: null, attempts: 0, message: (err as Error).message });
  }
}
