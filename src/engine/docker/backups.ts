// Native dumps and restores of a CONTAINER-mode database, run inside its own container (decision
// 0720): dump streams the tool's stdout out, restore feeds the dump to the tool's stdin (Redis:
// checked upload, then the server stopped while a helper container swaps the RDB in and rewrites
// the append-only file), drill restores into a throwaway container of the same image and counts.
// Where the container runs is the caller's (locate): the docker driver's replica, a Swarm task's
// container on its node's daemon. Every container made here is limited, has no network and no
// Docker socket, and is removed whatever happens.
import type Docker from 'dockerode';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { DatabaseBackups, DrillReport, DriverService } from '../engine.ts';
import { EngineFailure } from '../engine.ts';
import type { DatabasePlan } from '../plan.ts';
import { countsCommand, dumpCommand, parseCounts, readyCommand, redisDrillCommand, redisSwapScript, restoreCommand, toolOf } from './backup-commands.ts';
import { databaseContainer } from './databases.ts';
import { execOutput, execRun, type ExecFailureInfo } from './exec-io.ts';
import { MANAGED_LABEL } from './naming.ts';
import { lastLines, listReplicas, removeContainer } from './replicas.ts';

/** the daemon and container a database runs in now */
interface DatabaseLocation { docker: Docker; containerId: string }

export interface BackupsOptions {
  /** the database's running container (EngineFailure with the reason when there is none) */
  locate(service: DriverService, phase: 'backup' | 'restore'): Promise<DatabaseLocation>;
  /** whether a Redis restore may stop and start that container (not on Swarm, which would replace it) */
  canStopContainer: boolean;
  /** longest wait for a server to answer (a restarted Redis, a drill's first start); default 5 minutes */
  readyTimeoutMs?: number;
}

const MiB = 1024 * 1024;

function databaseOf(service: DriverService, phase: 'backup' | 'restore'): DatabasePlan {
  const db = service.plan?.database;
  if (!db) throw new EngineFailure(phase, `${service.name} is not a database (no database plan)`);
  if (db.mode !== 'CONTAINER') throw new EngineFailure(phase, `${service.name} is a MANAGED database: its provider takes its backups`);
  return db;
}

const lastLinesOf = (text: string, count = 8) => text.trim().split('\n').slice(-count).join(' | ');

const failure = (phase: 'backup' | 'restore', tool: string) => (info: ExecFailureInfo) =>
  new EngineFailure(phase, `${tool} exited with code ${info.exitCode}${info.stderr.trim() ? `: ${lastLinesOf(info.stderr)}` : ' (nothing on stderr)'}`);

/** the docker driver's way: the service's running replica on the one daemon */
export function replicaLocator(docker: Docker): BackupsOptions['locate'] {
  return async (service, phase) => {
    const running = (await listReplicas(docker, service.id, false)).filter((c) => c.State === 'running');
    if (running.length === 0) throw new EngineFailure(phase, `${service.name} has no running container: deploy or start it first`);
    return { docker, containerId: running[0]!.Id };
  };
}

async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  await new Promise((r) => setTimeout(r, ms));
}

/** waits until the server answers its own client; fails early when the container stops */
async function waitReady(docker: Docker, id: string, db: DatabasePlan, drill: boolean, timeoutMs: number, signal: AbortSignal, phase: 'backup' | 'restore'): Promise<void> {
  const container = docker.getContainer(id);
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      await execRun(container, readyCommand(db, drill), null, { signal, failure: (i) => new Error(lastLinesOf(i.stderr, 2) || `exit code ${i.exitCode}`) });
      return;
    } catch (err) {
      signal.throwIfAborted();
      last = (err as Error).message;
    }
    const state = (await container.inspect()).State;
    if (!state.Running) {
      throw new EngineFailure(phase, `the database container exited (code ${state.ExitCode}) before it answered: ${(await lastLines(docker, id, 8)).join(' | ')}`);
    }
    if (Date.now() > deadline) throw new EngineFailure(phase, `the database did not answer within ${Math.round(timeoutMs / 1000)} s: ${last}`);
    await sleep(500, signal);
  }
}

/** create options of a helper (drill or Redis swap): the database's image, limited, no network, no ports, labelled for cleanup */
function helperOptions(service: DriverService, image: string, role: string, extra: Partial<Docker.ContainerCreateOptions>): Docker.ContainerCreateOptions {
  const plan = service.plan!;
  return {
    name: `berth-${role}-${service.id.replace(/-/g, '').slice(0, 8)}-${randomUUID().slice(0, 8)}`,
    Image: image,
    Labels: { [MANAGED_LABEL]: 'true', 'berth.service_id': service.id, 'berth.environment_id': service.environmentId, 'berth.role': role },
    ...extra,
    HostConfig: {
      Memory: Math.max(256, plan.memoryMiB) * MiB, MemorySwap: Math.max(256, plan.memoryMiB) * MiB,
      NanoCpus: Math.max(250, plan.cpuMilli) * 1_000_000, PidsLimit: 1024,
      NetworkMode: 'none', SecurityOpt: ['no-new-privileges'], RestartPolicy: { Name: 'no' },
      LogConfig: { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '1' } },
      ...extra.HostConfig,
    },
  };
}

export function createDatabaseBackups(options: BackupsOptions): DatabaseBackups {
  const readyTimeoutMs = options.readyTimeoutMs ?? 300_000;

  /** Redis: the checked upload is in the volume; stop the server, swap in a helper, start it again */
  async function swapRedis(service: DriverService, where: DatabaseLocation, db: DatabasePlan, signal: AbortSignal): Promise<void> {
    const { docker } = where;
    const real = docker.getContainer(where.containerId);
    const info = await real.inspect();
    const dataDir = databaseContainer(db).dataDir;
    const volume = info.Mounts.find((m) => m.Destination === dataDir && m.Type === 'volume')?.Name;
    if (!volume) throw new EngineFailure('restore', `the Redis container has no volume at ${dataDir}`);
    signal.throwIfAborted();
    await real.stop().catch((err: { statusCode?: number }) => { if (err.statusCode !== 304) throw err; });
    let helper: Docker.Container | null = null;
    try {
      helper = await docker.createContainer(helperOptions(service, info.Config.Image, 'backup-helper', {
        Entrypoint: ['sh', '-c', redisSwapScript(dataDir)], Cmd: [], User: 'root',
        HostConfig: { Mounts: [{ Type: 'volume', Source: volume, Target: dataDir }] },
      }));
      await helper.start();
      const result = await helper.wait() as { StatusCode: number };
      if (result.StatusCode !== 0) {
        throw new EngineFailure('restore', `loading the RDB failed (exit code ${result.StatusCode}; the data is as it was): ${(await lastLines(docker, helper.id, 8)).join(' | ')}`);
      }
    } finally {
      if (helper) await removeContainer(helper).catch(() => {});
      await real.start().catch((err: { statusCode?: number }) => { if (err.statusCode !== 304) throw err; });
    }
    await waitReady(docker, where.containerId, db, false, readyTimeoutMs, signal, 'restore');
  }

  return {
    async dump(service: DriverService, signal: AbortSignal): Promise<Readable> {
      const db = databaseOf(service, 'backup');
      const where = await options.locate(service, 'backup');
      return execOutput(where.docker.getContainer(where.containerId), dumpCommand(db), { signal, failure: failure('backup', toolOf(db.type, 'dump')) })
        .catch((err: { statusCode?: number; message: string }) => {
          throw err.statusCode === 404 || err.statusCode === 409 ? new EngineFailure('backup', `${service.name}'s container is gone or not running: ${err.message}`) : err;
        });
    },

    async restore(service: DriverService, dump: Readable, signal: AbortSignal): Promise<void> {
      const db = databaseOf(service, 'restore');
      if (db.type === 'REDIS' && !options.canStopContainer) {
        throw new EngineFailure('restore', 'restoring Redis needs its server stopped while the RDB is swapped in, which this engine cannot do without Swarm replacing the task: restore into a database on the docker engine');
      }
      const where = await options.locate(service, 'restore');
      const container = where.docker.getContainer(where.containerId);
      await execRun(container, restoreCommand(db, databaseContainer(db).dataDir), dump, { signal, failure: failure('restore', toolOf(db.type, 'restore')) });
      if (db.type === 'REDIS') await swapRedis(service, where, db, signal);
    },

    async drill(service: DriverService, dump: Readable, signal: AbortSignal): Promise<DrillReport> {
      const db = databaseOf(service, 'restore');
      const where = await options.locate(service, 'restore');
      const { docker } = where;
      const image = (await docker.getContainer(where.containerId).inspect()).Config.Image;
      const spec = databaseContainer(db);
      const redis = db.type === 'REDIS';
      const container = await docker.createContainer(helperOptions(service, image, 'backup-drill', {
        Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
        ...(redis ? { Entrypoint: redisDrillCommand(spec.dataDir), Cmd: [], User: 'root' } : spec.cmd ? { Cmd: spec.cmd } : {}),
      }));
      try {
        await container.start();
        const tool = toolOf(db.type, 'restore');
        if (!redis) await waitReady(docker, container.id, db, true, readyTimeoutMs, signal, 'restore');
        await execRun(container, restoreCommand(db, spec.dataDir, true), dump, { signal, failure: failure('restore', `${tool} (drill)`) });
        if (redis) await waitReady(docker, container.id, db, true, readyTimeoutMs, signal, 'restore');
        const output = await execRun(container, countsCommand(db, true), null, { signal, failure: failure('restore', 'counting (drill)') });
        return { counts: parseCounts(db.type, output) };
      } finally {
        await removeContainer(container).catch(() => {});
      }
    },
  };
}

