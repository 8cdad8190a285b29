// A job run on Swarm (a cron occurrence or a lifecycle command): Swarm's own replicated-job with one
// completion, restarted on failure up to max_nb_restart, on whichever node Swarm picks. berth waits
// for the completion (or the job's max duration), records the run's output from the service's task
// logs, and removes the job service. That one occurrence runs once is the queue's (one firing per
// slot across berth processes), as on the docker engine.
import type Docker from 'dockerode';
import type { JobRunOutcome } from '../engine.ts';
import type { JobRunInput } from '../docker/jobs.ts';
import type { RegistryAuth } from '../plan.ts';
import { demux } from '../docker/replicas.ts';
import { labelFilter } from '../docker/naming.ts';
import { jobSpec, swarmJobName } from './spec.ts';
import { listTasks } from './tasks.ts';

/** a job run on the docker engine's terms, on the environment's overlay network; `auth`: what nodes pull its image with */
export interface SwarmJobInput extends JobRunInput { network: string; auth?: RegistryAuth }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** every line the job's tasks wrote, stdout and stderr */
async function jobLines(docker: Docker, name: string, line: (text: string) => Promise<void>): Promise<void> {
  const raw = await docker.getService(name).logs({ stdout: true, stderr: true, follow: false }) as unknown as Buffer;
  const text = Buffer.isBuffer(raw) ? demux(raw) : String(raw);
  for (const l of text.split('\n')) if (l.length > 0) await line(l);
}

export async function runSwarmJob(input: SwarmJobInput, line: (text: string) => Promise<void>, signal: AbortSignal): Promise<JobRunOutcome> {
  const { docker, plan } = input;
  const job = plan.job!;
  if (input.cron && input.settings.job.concurrencyPolicy === 'Forbid') {
    const running = await docker.listServices({ filters: labelFilter({ 'berth.service_id': input.ids.serviceId, 'berth.role': 'job-run' }) });
    if (running.length > 0) return { exitCode: 0, attempts: 0, reason: 'skipped: the previous run is still running (cronjob.concurrency_policy Forbid)', skipped: true };
  }
  const name = swarmJobName(input.slug, input.ids.serviceId, input.runId);
  await docker.getService(name).remove().catch(() => {});
  await docker.createService((input.auth ?? {}) as never, jobSpec({
    name, ids: input.ids, slug: input.slug, generation: input.runId, image: input.image, plan, network: input.network, settings: input.settings,
    command: input.command?.args ?? null, entrypoint: input.command?.entrypoint ?? null, runId: input.runId, maxRestarts: job.maxRestarts,
  }) as never);
  const deadline = Date.now() + job.maxDurationSeconds * 1000;
  let outcome: JobRunOutcome | null = null;
  try {
    while (!outcome) {
      const tasks = await listTasks(docker, name);
      const done = tasks.find((t) => t.state === 'complete');
      const failed = tasks.filter((t) => t.state === 'failed' || t.state === 'rejected');
      if (done) outcome = { exitCode: 0, attempts: failed.length + 1, reason: null };
      else if (failed.length > job.maxRestarts) {
        const last = failed[0]!;
        outcome = { exitCode: last.exitCode ?? 1, attempts: failed.length, reason: `failed with exit code ${last.exitCode ?? '?'}${last.error ? ` (${last.error})` : ''}` };
      } else if (signal.aborted) outcome = { exitCode: 137, attempts: failed.length + 1, reason: 'was cancelled' };
      else if (Date.now() > deadline) outcome = { exitCode: 137, attempts: failed.length + 1, reason: `was stopped after its maximum duration (${job.maxDurationSeconds} s)` };
      else await sleep(250);
    }
    await jobLines(docker, name, line).catch(() => {});
    return outcome;
  } finally {
    await docker.getService(name).remove().catch(() => {});
  }
}
