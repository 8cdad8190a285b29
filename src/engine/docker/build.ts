// Image builds: the build context (a directory, honoring its .dockerignore) streamed as a tar to
// the daemon's classic builder (POST /build), every line of its output handed to the log as it
// arrives, the builder's own error turned into EngineFailure('build'), and the build's memory
// capped so one build cannot take the host down. The service's build.* advanced settings set
// each build step's memory and CPU quota and turn the layer cache off (decision 0336).
import dockerignoreModule from '@balena/dockerignore';
import type Docker from 'dockerode';
import { lstatSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, normalize, relative, sep } from 'node:path';
import tar from 'tar-fs';
import { EngineFailure } from '../engine.ts';
import { daemonMessage, jsonLines, PullProgress } from './stream.ts';

// the CommonJS export is the factory; its `default` member is the same factory, which the typings name
const dockerignore = dockerignoreModule.default;

export interface BuildRequest {
  contextDir: string;
  dockerfilePath: string | null;
  tag: string;
  buildArgs: Record<string, string>;
  labels: Record<string, string>;
  /** the stage of a multi-stage Dockerfile to build (default: the last) */
  target?: string;
  /** memory limit of each build step's container in bytes (default 2 GiB) */
  memoryBytes?: number;
  /** CPU quota of each build step's container in millicores (build.cpu_max_in_milli; 0 or absent: none) */
  cpuMilli?: number;
  /** build without the daemon's layer cache (build.disable_buildkit_cache) */
  noCache?: boolean;
}

/** the CFS period the CPU quota is a share of (Docker's default, 100 ms) */
const CPU_PERIOD_US = 100_000;

/** the classic builder's resource options for a request: memory (swap equal), CPU quota, cache */
export function buildLimits(req: Pick<BuildRequest, 'memoryBytes' | 'cpuMilli' | 'noCache'>): Record<string, number | boolean> {
  const memory = req.memoryBytes ?? DEFAULT_BUILD_MEMORY_BYTES;
  const cpu = req.cpuMilli ?? 0;
  return {
    memory, memswap: memory,
    ...(cpu > 0 ? { cpuperiod: CPU_PERIOD_US, cpuquota: Math.max(1000, Math.round((cpu * CPU_PERIOD_US) / 1000)) } : {}),
    ...(req.noCache ? { nocache: true } : {}),
  };
}

export const DEFAULT_BUILD_MEMORY_BYTES = 2 * 1024 * 1024 * 1024;

/** the Dockerfile path relative to the context, refused when it leaves the context */
function dockerfileIn(dockerfilePath: string | null): string {
  const path = normalize((dockerfilePath ?? '').trim().replace(/^\/+/, '') || 'Dockerfile');
  if (isAbsolute(path) || path === '..' || path.startsWith(`..${sep}`) || path === '.') {
    throw new EngineFailure('build', `Dockerfile path "${dockerfilePath}" is not inside the build context`);
  }
  return path.split(sep).join('/');
}

/** a tar stream of the context without what .dockerignore excludes (the Dockerfile and .dockerignore always go) */
async function contextTar(contextDir: string, dockerfile: string): Promise<NodeJS.ReadableStream> {
  const rules = await readFile(`${contextDir}/.dockerignore`, 'utf8').catch(() => null);
  if (rules === null) return tar.pack(contextDir);
  const ig = dockerignore({ ignorecase: false }).add(rules);
  // with exceptions (`!path`) an ignored directory may still hold kept files: test files one by one
  const hasExceptions = rules.split('\n').some((l) => l.trim().startsWith('!'));
  return tar.pack(contextDir, {
    ignore(name) {
      const rel = relative(contextDir, name).split(sep).join('/');
      if (!rel || rel === dockerfile || rel === '.dockerignore') return false;
      if (hasExceptions) {
        try { if (lstatSync(name).isDirectory()) return false; } catch { /* judged by its name */ }
      }
      return ig.ignores(rel);
    },
  });
}

/**
 * Builds `req.contextDir` into an image tagged `req.tag`; resolves with the image id. Output lines
 * reach `log` while the build runs. A build error, a missing Dockerfile or a daemon refusal
 * throws EngineFailure('build', <the builder's message>); an abort stops the build and rejects
 * with the signal's reason.
 */
export async function buildImage(docker: Docker, req: BuildRequest, log: (line: string) => Promise<void>, signal: AbortSignal): Promise<{ imageId: string }> {
  const dockerfile = dockerfileIn(req.dockerfilePath);
  if (!(await stat(req.contextDir).then((s) => s.isDirectory(), () => false))) {
    throw new EngineFailure('build', `build context ${req.contextDir} is not a directory`);
  }
  signal.throwIfAborted();
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.buildImage(await contextTar(req.contextDir, dockerfile) as never, {
      t: req.tag, dockerfile, buildargs: req.buildArgs, labels: req.labels,
      ...(req.target ? { target: req.target } : {}),
      rm: true, forcerm: true, ...buildLimits(req), abortSignal: signal,
    } as Docker.ImageBuildOptions);
  } catch (err) {
    signal.throwIfAborted();
    throw new EngineFailure('build', daemonMessage(err));
  }

  const pulls = new PullProgress();
  let failure: string | null = null;
  let imageId: string | null = null;
  try {
    for await (const msg of jsonLines(stream, signal)) {
      if (msg.error || msg.errorDetail) {
        failure = String(msg.errorDetail?.message ?? msg.error).trim();
        await log(failure);
        break;
      }
      if (typeof msg.stream === 'string') {
        for (const line of msg.stream.split('\n')) if (line.trim()) await log(line.trimEnd());
      } else if (msg.status) {
        const line = pulls.line(msg);
        if (line) await log(line);
      }
      const id = msg.aux?.ID;
      if (typeof id === 'string') imageId = id;
    }
  } catch (err) {
    signal.throwIfAborted();
    throw new EngineFailure('build', daemonMessage(err));
  } finally {
    (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
  }
  signal.throwIfAborted();
  if (failure) throw new EngineFailure('build', failure);
  try {
    const inspected = await docker.getImage(req.tag).inspect();
    imageId = inspected.Id;
  } catch (err) {
    if (!imageId) throw new EngineFailure('build', `the build ended without an image: ${daemonMessage(err)}`);
  }
  return { imageId: imageId! };
}
