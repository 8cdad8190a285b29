// Images for container services and jobs: the pull itself with progress condensed to one line per
// layer state (the reference and its credentials come resolved in the plan: ../registry.ts). Pull
// and auth failures carry the daemon's own message as EngineFailure('deploy').
import type Docker from 'dockerode';
import { EngineFailure } from '../engine.ts';
import type { RegistryAuth } from '../plan.ts';
import { daemonMessage, jsonLines, PullProgress } from './stream.ts';

/** splits `name[:tag]` / `name@digest` the way the Engine API's /images/create wants them */
function pullParams(ref: string): { fromImage: string; tag: string } {
  const at = ref.indexOf('@');
  if (at > 0) return { fromImage: ref.slice(0, at), tag: ref.slice(at + 1) };
  const colon = ref.lastIndexOf(':');
  if (colon > ref.lastIndexOf('/')) return { fromImage: ref.slice(0, colon), tag: ref.slice(colon + 1) };
  return { fromImage: ref, tag: 'latest' };
}

async function present(docker: Docker, ref: string): Promise<boolean> {
  try {
    await docker.getImage(ref).inspect();
    return true;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return false;
    throw new EngineFailure('deploy', daemonMessage(err));
  }
}

/**
 * Makes `ref` available to the daemon: with `pull: 'missing'` (the default) only when it is not
 * there yet, with 'always' every time (a moving tag). Progress lines reach `log` as they come.
 */
export async function ensureImage(docker: Docker, ref: string, auth: RegistryAuth | null,
  log: (line: string) => Promise<void>, signal: AbortSignal, opts?: { pull?: 'missing' | 'always' }): Promise<void> {
  signal.throwIfAborted();
  if ((opts?.pull ?? 'missing') === 'missing' && await present(docker, ref)) {
    await log(`Image ${ref} is present`);
    return;
  }
  await log(`Pulling ${ref}${auth ? ` as ${auth.username}` : ''}`);
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.createImage(auth ?? undefined as never, { ...pullParams(ref), abortSignal: signal } as never) as unknown as NodeJS.ReadableStream;
  } catch (err) {
    signal.throwIfAborted();
    throw new EngineFailure('deploy', daemonMessage(err));
  }
  const progress = new PullProgress();
  let failure: string | null = null;
  try {
    for await (const msg of jsonLines(stream, signal)) {
      if (msg.error || msg.errorDetail) {
        failure = String(msg.errorDetail?.message ?? msg.error).trim();
        break;
      }
      const line = progress.line(msg);
      if (line) await log(line);
    }
  } catch (err) {
    signal.throwIfAborted();
    throw new EngineFailure('deploy', daemonMessage(err));
  } finally {
    (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
  }
  signal.throwIfAborted();
  if (failure) {
    await log(failure);
    throw new EngineFailure('deploy', failure);
  }
  if (!(await present(docker, ref))) throw new EngineFailure('deploy', `the pull of ${ref} ended without the image`);
}
