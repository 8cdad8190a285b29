// Starting and ending a replica's life the way a kubelet does, on the Docker engine (decision
// 0336). Post-start: the command is exec'd in the new container once it started; readiness is
// probed only after it succeeded, and a failure (its exit code and output) fails the rollout.
// Termination: the replica is already out of the ingress; its pre-stop command runs, bounded by
// the grace period, while the ingress drains its open connections; then docker stop gets what is
// left of the grace period — or nothing when the container's main process has no handler for its
// stop signal (PID 1 of a container never receives a signal it does not handle, so waiting could
// only end in the same SIGKILL) — and the container is removed, kept stopped, or restarted.
import type Docker from 'dockerode';
import type { LogSink } from '../engine.ts';
import { preStopCommand, type ServiceSettings } from '../settings.ts';
import { execIn, removeContainer } from './replicas.ts';
import { catchesSignal, signalNumber, stopTimeoutSeconds } from './strategy.ts';

export interface Termination {
  graceSeconds: number;
  /** null: none (empty, or the catalogue's `sleep 15`, which the drain stands for) */
  preStop: string[] | null;
}

export function terminationOf(settings: ServiceSettings): Termination {
  return { graceSeconds: settings.deployment.graceSeconds, preStop: preStopCommand(settings) };
}

const nameOf = (c: { Id: string; Names?: string[] }) => c.Names?.[0]?.replace(/^\//, '') ?? c.Id.slice(0, 12);

/** a command's output for a log line or a message: its last lines, trimmed */
function tail(output: string, lines = 5): string {
  return output.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '').slice(-lines).join(' | ').slice(-600);
}

/** runs the post-start command in a started replica; throws with its exit code and output when it fails */
export async function runPostStart(docker: Docker, id: string, command: string[], timeoutMs: number): Promise<void> {
  if (command.length === 0) return;
  let outcome: { exitCode: number; output: string };
  try {
    outcome = await execIn(docker.getContainer(id), command, timeoutMs);
  } catch (err) {
    throw new Error(`its post-start command (deployment.lifecycle.post_start_exec_command) could not run: ${(err as Error).message}`);
  }
  if (outcome.exitCode !== 0) {
    const output = tail(outcome.output);
    throw new Error(`its post-start command (deployment.lifecycle.post_start_exec_command) exited with code ${outcome.exitCode}${output ? `: ${output}` : ''}`);
  }
}

async function runPreStop(container: Docker.Container, name: string, termination: Termination, log: LogSink): Promise<{ ranMs: number; timedOut: boolean } | null> {
  const command = termination.preStop;
  if (!command || termination.graceSeconds === 0) return null;
  const began = Date.now();
  try {
    const { exitCode, output } = await execIn(container, command, termination.graceSeconds * 1000);
    if (exitCode !== 0) await log('DEPLOY', `The pre-stop command of ${name} exited with code ${exitCode}${output.trim() ? `: ${tail(output)}` : ''}; stopping it anyway`);
    return { ranMs: Date.now() - began, timedOut: false };
  } catch (err) {
    const timedOut = /timed out/.test((err as Error).message);
    await log('DEPLOY', timedOut
      ? `The pre-stop command of ${name} was still running when its grace period (${termination.graceSeconds} s) ended`
      : `The pre-stop command of ${name} could not run (${(err as Error).message}); stopping it anyway`);
    return { ranMs: Date.now() - began, timedOut };
  }
}

/** 0 when the container's main process cannot receive its stop signal, else `seconds` */
async function reachableTimeout(container: Docker.Container, seconds: number): Promise<{ seconds: number; signal: string | null }> {
  if (seconds === 0) return { seconds, signal: null };
  try {
    const info = await container.inspect();
    if (!info.State.Running) return { seconds, signal: null };
    const signal = (info.Config as { StopSignal?: string }).StopSignal || 'SIGTERM';
    const { exitCode, output } = await execIn(container, ['cat', '/proc/1/status'], 2000);
    if (exitCode === 0 && catchesSignal(output, signalNumber(signal)) === false) return { seconds: 0, signal };
  } catch { /* no cat in the image, or the container went away: the whole grace period */ }
  return { seconds, signal: null };
}

/**
 * Terminates replicas: pre-stop commands (each bounded by the grace period; only in running ones) and `drain` (the
 * ingress's, when they served a route) run together, then each container is stopped with the
 * rest of its grace period and removed (`remove`), kept (`stop`) or started again (`restart`).
 */
export async function terminate(docker: Docker, containers: Array<{ Id: string; Names?: string[]; State?: string }>, termination: Termination, log: LogSink,
  options: { then: 'remove' | 'stop' | 'restart'; drain?: Promise<unknown> }): Promise<void> {
  const drained = options.drain ?? Promise.resolve();
  await Promise.all(containers.map(async (c) => {
    const container = docker.getContainer(c.Id);
    // a container that does not run (restarting, exited) has nothing to run a command in
    const ready = !c.State || c.State === 'running' ? termination : { ...termination, preStop: null };
    const [preStop] = await Promise.all([runPreStop(container, nameOf(c), ready, log), drained]);
    const timeout = stopTimeoutSeconds(termination.graceSeconds, preStop);
    const { seconds, signal } = await reachableTimeout(container, timeout);
    if (signal) await log('DEPLOY', `${nameOf(c)}: its main process has no handler for ${signal}, so it is stopped at once rather than after ${timeout} s`);
    const ignoreGone = (err: { statusCode?: number }) => { if (err.statusCode !== 304 && err.statusCode !== 404) throw err; };
    if (options.then === 'restart') {
      await container.restart({ t: seconds });
      return;
    }
    await container.stop({ t: seconds }).catch(ignoreGone);
    if (options.then === 'remove') {
      await removeContainer(container).catch((err: { statusCode?: number }) => {
        if (err.statusCode !== 404 && err.statusCode !== 409) throw err;
      });
    }
  }));
}
