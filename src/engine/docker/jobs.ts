// Running a job's container to completion: one container per attempt, its output streamed as it
// comes, killed when it outlives max_duration_seconds, retried up to max_nb_restart times after a
// failure. The exit code of the last attempt is the run's outcome.
import type Docker from 'dockerode';
import { PassThrough } from 'node:stream';
import type { RuntimePlan } from '../plan.ts';
import { replicaCreateOptions } from './containers.ts';
import { copyFiles } from './files.ts';
import { jobRunContainerName, ownerLabels, type OwnerIds } from './naming.ts';
import { removeContainer } from './replicas.ts';

export interface JobRunInput {
  docker: Docker;
  ids: OwnerIds;
  slug: string;
  runId: string;
  image: string;
  plan: RuntimePlan;
  command: { entrypoint: string | null; args: string[] } | null;
}

export interface JobRunOutcome {
  exitCode: number;
  attempts: number;
  /** why it failed: exit code, killed after the maximum duration, … */
  reason: string | null;
}

async function oneAttempt(input: JobRunInput, attempt: number, line: (text: string) => Promise<void>, signal: AbortSignal): Promise<{ exitCode: number; timedOut: boolean }> {
  const { docker, plan } = input;
  const name = `${jobRunContainerName(input.slug, input.ids.serviceId, input.runId)}-${attempt}`;
  await removeContainer(docker.getContainer(name)).catch(() => {});
  const container = await docker.createContainer(replicaCreateOptions({
    name, image: input.image, serviceId: input.ids.serviceId, environmentId: input.ids.environmentId,
    labels: { ...ownerLabels(input.ids), 'berth.role': 'job-run', 'berth.run_id': input.runId, 'berth.attempt': String(attempt) },
    plan, hostPorts: new Map(), restart: 'no',
    ...(input.command ? { entrypoint: input.command.entrypoint ?? plan.entrypoint, args: input.command.args.length ? input.command.args : plan.args } : {}),
  }));
  let timedOut = false;
  const limitMs = Math.max(1, plan.job?.maxDurationSeconds ?? 300) * 1000;
  try {
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
    return { exitCode: result.StatusCode, timedOut };
  } finally {
    await removeContainer(container).catch(() => {});
  }
}

export async function runJobToCompletion(input: JobRunInput, line: (text: string) => Promise<void>, signal: AbortSignal): Promise<JobRunOutcome> {
  const maxRestarts = Math.max(0, input.plan.job?.maxRestarts ?? 0);
  let last = { exitCode: 1, timedOut: false };
  for (let attempt = 1; attempt <= maxRestarts + 1; attempt++) {
    if (signal.aborted) break;
    if (attempt > 1) await line(`Attempt ${attempt} of ${maxRestarts + 1} (after exit code ${last.exitCode})`);
    last = await oneAttempt(input, attempt, line, signal);
    if (last.exitCode === 0 && !last.timedOut) return { exitCode: 0, attempts: attempt, reason: null };
  }
  const maxDuration = input.plan.job?.maxDurationSeconds ?? 300;
  return {
    exitCode: last.exitCode, attempts: maxRestarts + 1,
    reason: last.timedOut ? `killed after max_duration_seconds (${maxDuration} s)` : `exited with code ${last.exitCode}`,
  };
}
