// Running a job's container to completion: one container per attempt, its output streamed as it
// comes, killed when it outlives max_duration_seconds, retried up to max_nb_restart times after a
// failure. The exit code of the last attempt is the run's outcome. The service's advanced settings
// apply (decision 0336): the grace period is the containers' stop timeout, the root filesystem is
// read-only when asked; for a cron run, cronjob.concurrency_policy decides what happens when
// another run of the job is still running (Allow: both run; Forbid: this one is skipped; Replace:
// the other one is stopped and ends as replaced), and the last attempt's container of each
// finished cron run is kept stopped (for docker logs and inspect) within the history limits
// (cronjob.success_jobs_history_limit, cronjob.failed_jobs_history_limit), until
// job.delete_ttl_seconds_after_finished when set. Lifecycle runs keep no container: their
// output is in the deployment's log.
import type Docker from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import { PassThrough } from 'node:stream';
import { EngineFailure, type JobRunOutcome } from '../engine.ts';
import type { RuntimePlan } from '../plan.ts';
import type { ServiceSettings } from '../settings.ts';
import { readOnlyFilesRefused, replicaCreateOptions } from './containers.ts';
import { copyFiles } from './files.ts';
import { jobRunContainerName, labelFilter, ownerLabels, type OwnerIds } from './naming.ts';
import { removeContainer } from './replicas.ts';
import { terminate } from './termination.ts';

export interface JobRunInput {
  docker: Docker;
  ids: OwnerIds;
  slug: string;
  runId: string;
  image: string;
  plan: RuntimePlan;
  command: { entrypoint: string | null; args: string[] } | null;
  settings: ServiceSettings;
  /** a cron occurrence (the concurrency policy and the history limits apply), not a lifecycle command */
  cron: boolean;
}

const runsOf = (docker: Docker, serviceId: string, all: boolean, extra: Record<string, string> = {}) =>
  docker.listContainers({ all, filters: labelFilter({ 'berth.service_id': serviceId, 'berth.role': 'job-run', ...extra }) });

async function oneAttempt(input: JobRunInput, attempt: number, line: (text: string) => Promise<void>, signal: AbortSignal,
  replacing: ContainerInfo[]): Promise<{ exitCode: number; timedOut: boolean; container: Docker.Container }> {
  const { docker, plan, settings } = input;
  const name = `${jobRunContainerName(input.slug, input.ids.serviceId, input.runId)}-${attempt}`;
  await removeContainer(docker.getContainer(name)).catch(() => {});
  const replaces = [...new Set(replacing.map((c) => c.Labels['berth.run_id']!))];
  const container = await docker.createContainer(replicaCreateOptions({
    name, image: input.image, serviceId: input.ids.serviceId, environmentId: input.ids.environmentId,
    labels: {
      ...ownerLabels(input.ids), 'berth.role': 'job-run', 'berth.run_id': input.runId, 'berth.attempt': String(attempt),
      'berth.trigger': input.cron ? 'cron' : 'lifecycle', ...(replaces.length ? { 'berth.replaces': replaces.join(',') } : {}),
    },
    plan, hostPorts: new Map(), restart: 'no',
    graceSeconds: settings.deployment.graceSeconds, readOnlyRootFilesystem: settings.security.readOnlyRootFilesystem,
    ...(input.command ? { entrypoint: input.command.entrypoint ?? plan.entrypoint, args: input.command.args.length ? input.command.args : plan.args } : {}),
  }));
  let timedOut = false;
  const limitMs = Math.max(1, plan.job?.maxDurationSeconds ?? 300) * 1000;
  try {
    // created first, so that the run it replaces finds out why it was stopped
    if (replacing.length > 0) {
      await line(`Stopping run ${replaces.join(', ')}, still running (cronjob.concurrency_policy Replace)`);
      await terminate(docker, replacing, { graceSeconds: settings.deployment.graceSeconds, preStop: null }, async () => {}, { then: 'stop' });
    }
    const stream = await container.attach({ stream: true, stdout: true, stderr: true, logs: true });
    let pending = '';
    let writing: Promise<void> = Promise.resolve();
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const l of lines) writing = writing.then(() => line(l)).catch(() => {});
    });
    docker.modem.demuxStream(stream, sink, sink);
    await copyFiles(docker, container.id, plan.files);
    await container.start();
    const killer = setTimeout(() => { timedOut = true; container.kill().catch(() => {}); }, limitMs);
    const onAbort = () => { container.kill().catch(() => {}); };
    signal.addEventListener('abort', onAbort, { once: true });
    const result = await container.wait() as { StatusCode: number };
    clearTimeout(killer);
    signal.removeEventListener('abort', onAbort);
    await new Promise((r) => setTimeout(r, 50));
    if (pending) writing = writing.then(() => line(pending)).catch(() => {});
    await writing;
    return { exitCode: result.StatusCode, timedOut, container };
  } catch (err) {
    await removeContainer(container).catch(() => {});
    throw err;
  }
}

/** the run that replaced `runId` (it stopped this one), if any */
async function replacedBy(docker: Docker, serviceId: string, runId: string): Promise<string | null> {
  const runs = await runsOf(docker, serviceId, true);
  return runs.find((c) => (c.Labels['berth.replaces'] ?? '').split(',').includes(runId))?.Labels['berth.run_id'] ?? null;
}

/** the exit code in a finished container's status ("Exited (3) 2 minutes ago"), null when it did not exit */
export function exitCodeOfStatus(status: string): number | null {
  const m = /^Exited \((-?\d+)\)/.exec(status);
  return m ? Number(m[1]) : null;
}

/**
 * The kept containers of finished cron runs, newest first, that go: beyond the history limits
 * (successes and failures counted apart), and past their time to live when one is set.
 */
export function beyondHistory(finished: Array<{ id: string; created: number; exitCode: number; finishedAt: number | null }>,
  limits: { success: number; failed: number; ttlSeconds: number | null }, now: number): string[] {
  const newest = [...finished].sort((a, b) => b.created - a.created);
  const succeeded = newest.filter((r) => r.exitCode === 0);
  const failed = newest.filter((r) => r.exitCode !== 0);
  const expired = (r: (typeof finished)[number]) => limits.ttlSeconds !== null && r.finishedAt !== null && now - r.finishedAt >= limits.ttlSeconds * 1000;
  return [
    ...succeeded.filter((r, i) => i >= limits.success || expired(r)),
    ...failed.filter((r, i) => i >= limits.failed || expired(r)),
  ].map((r) => r.id);
}

async function pruneHistory(docker: Docker, serviceId: string, settings: ServiceSettings): Promise<void> {
  const kept = (await runsOf(docker, serviceId, true, { 'berth.trigger': 'cron' }))
    .map((c) => ({ c, exitCode: exitCodeOfStatus(c.Status) }))
    .filter((x): x is { c: ContainerInfo; exitCode: number } => x.exitCode !== null);
  const ttl = settings.job.deleteTtlSeconds;
  const finished = await Promise.all(kept.map(async ({ c, exitCode }) => ({
    id: c.Id, created: c.Created, exitCode,
    finishedAt: ttl === null ? null : await docker.getContainer(c.Id).inspect().then((i) => Date.parse(i.State.FinishedAt), () => null),
  })));
  const limits = { success: settings.job.successHistoryLimit, failed: settings.job.failedHistoryLimit, ttlSeconds: ttl };
  await Promise.all(beyondHistory(finished, limits, Date.now()).map((id) => removeContainer(docker.getContainer(id)).catch(() => {})));
}

export async function runJobToCompletion(input: JobRunInput, line: (text: string) => Promise<void>, signal: AbortSignal): Promise<JobRunOutcome> {
  const { docker, settings } = input;
  if (settings.security.readOnlyRootFilesystem && input.plan.files.length > 0) throw new EngineFailure('deploy', readOnlyFilesRefused(input.plan.files));
  let replacing: ContainerInfo[] = [];
  if (input.cron && settings.job.concurrencyPolicy !== 'Allow') {
    const others = (await runsOf(docker, input.ids.serviceId, false)).filter((c) => c.Labels['berth.run_id'] !== input.runId);
    if (others.length > 0 && settings.job.concurrencyPolicy === 'Forbid') {
      const reason = `skipped: run ${others[0]!.Labels['berth.run_id']} was still running (cronjob.concurrency_policy Forbid)`;
      await line(`Not run: ${reason.slice('skipped: '.length)}`);
      return { exitCode: 0, attempts: 0, reason, skipped: true };
    }
    replacing = others;
  }
  const maxRestarts = Math.max(0, input.plan.job?.maxRestarts ?? 0);
  let last: Awaited<ReturnType<typeof oneAttempt>> | null = null;
  let attempts = 0;
  let replaced: string | null = null;
  for (let attempt = 1; attempt <= maxRestarts + 1; attempt++) {
    if (signal.aborted) break;
    if (last) {
      await line(`Attempt ${attempt} of ${maxRestarts + 1} (after exit code ${last.exitCode})`);
      await removeContainer(last.container).catch(() => {});
    }
    last = await oneAttempt(input, attempt, line, signal, attempt === 1 ? replacing : []);
    attempts = attempt;
    if (last.exitCode === 0 && !last.timedOut) break;
    if (input.cron && (replaced = await replacedBy(docker, input.ids.serviceId, input.runId))) break;
  }
  // what is kept of the run: the last attempt's container of a cron run, within the history limits
  if (last) {
    if (input.cron && !signal.aborted && settings.job.deleteTtlSeconds !== 0) {
      await pruneHistory(docker, input.ids.serviceId, settings).catch(() => {});
      const ttl = settings.job.deleteTtlSeconds;
      const kept = last.container;
      if (ttl !== null) setTimeout(() => { removeContainer(kept).catch(() => {}); }, ttl * 1000).unref();
    } else {
      await removeContainer(last.container).catch(() => {});
    }
  }
  if (last && last.exitCode === 0 && !last.timedOut) return { exitCode: 0, attempts, reason: null };
  const maxDuration = input.plan.job?.maxDurationSeconds ?? 300;
  const exitCode = last?.exitCode ?? 1;
  return {
    exitCode, attempts,
    reason: replaced ? `replaced by run ${replaced} (cronjob.concurrency_policy Replace)`
      : last?.timedOut ? `killed after max_duration_seconds (${maxDuration} s)` : `exited with code ${exitCode}`,
  };
}
