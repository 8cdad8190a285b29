// berth's ingress HAProxy as a container on the Docker host berth drives (decision 0348), for a
// machine with Docker and no haproxy binary: the same proxy, configuration and runtime socket as
// the host process (haproxy-launcher.ts), so adoption, routes and reloads work unchanged. This
// file owns that container: its name (one per data dir), labels, image (INGRESS_IMAGE, pulled
// when absent), the command (given in full, so any haproxy image works), host networking, the
// data dir's ingress folder bind-mounted at the same absolute path (config, maps, certificates
// and the socket have one path inside and out), root with only the capabilities it needs (low
// ports, reading berth's mode-600 files, handing the socket to berth's user), limits, restart
// policy; reload by SIGUSR2 through Docker, `haproxy -c` by exec in it, stop by removing it.
// Never given the Docker socket. It needs a daemon on this machine (same disk, same loopback).
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { ensureImage } from '../docker/images.ts';
import { MANAGED_LABEL } from '../docker/naming.ts';
import { execIn, lastLines } from '../docker/replicas.ts';
import { daemonMessage } from '../docker/stream.ts';
import type { HaproxyLauncher } from './haproxy-launcher.ts';
import { ingressPaths, portTaken, probe, reloadHaproxy } from './haproxy-process.ts';
import { ensureTlsFiles } from './haproxy-tls.ts';

/** the role label of the ingress container (berth.managed=true marks it berth's) */
const ROLE = 'ingress';
const MEMORY_BYTES = 1024 * 1024 * 1024;

/** the image could not be made present (no registry reachable, no such tag): with INGRESS_RUNTIME=auto berth runs without ingress */
export class IngressImageUnavailable extends Error { override name = 'IngressImageUnavailable'; }

/** one container per data dir: berth-ingress-<first 12 hex of sha256 of the ingress folder's absolute path> */
export function ingressContainerName(dataDir: string): string {
  return `berth-ingress-${createHash('sha256').update(ingressPaths(dataDir).dir).digest('hex').slice(0, 12)}`;
}

/** whether DOCKER_HOST is a daemon of this machine (a unix socket, or TCP on loopback): the container shares berth's disk and loopback */
export function dockerIsLocal(dockerHost: string): boolean {
  if (dockerHost.startsWith('unix://') || dockerHost.startsWith('/')) return true;
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(dockerHost.replace(/^tcp:/, 'http:')).hostname);
  } catch { return false; }
}

export interface ContainerLauncherOptions {
  docker: Docker;
  /** INGRESS_IMAGE */
  image: string;
  dataDir: string;
  logger: { info(o: object | string, m?: string): void };
}

export function containerLauncher(o: ContainerLauncherOptions): HaproxyLauncher {
  const paths = ingressPaths(o.dataDir);
  const name = ingressContainerName(o.dataDir);
  const container = o.docker.getContainer(name);
  const command = ['-W', '-db', '-C', paths.dir, '-f', paths.configFile];
  const logs = async () => (await lastLines(o.docker, name, 20)).filter((l) => /ALERT|error|fail/i.test(l)).slice(-3).join(' | ');

  async function state(): Promise<{ running: boolean; exitCode: number; image: string } | null> {
    try {
      const info = await container.inspect();
      return { running: info.State.Running && !info.State.Restarting, exitCode: info.State.ExitCode, image: info.Config.Image };
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode === 404) return null;
      throw new Error(`ingress: the Docker daemon could not inspect container ${name}: ${daemonMessage(err)}`);
    }
  }

  async function remove(): Promise<void> {
    await container.remove({ force: true }).catch((err: { statusCode?: number }) => {
      if (err.statusCode !== 404) throw new Error(`ingress: could not remove container ${name}: ${daemonMessage(err)}`);
    });
  }

  async function create(): Promise<void> {
    const info = await o.docker.info() as { NCPU?: number };
    await o.docker.createContainer({
      name,
      Image: o.image,
      // the whole command: the image's own entrypoint and CMD are not relied on
      Entrypoint: ['haproxy'],
      Cmd: command,
      WorkingDir: paths.dir,
      // root: binds ports below 1024 when INGRESS_PORT / INGRESS_HTTPS_PORT ask, reads berth's mode-600 files
      User: '0:0',
      Env: [],
      Labels: { [MANAGED_LABEL]: 'true', 'berth.role': ROLE, 'berth.ingress_dir': paths.dir },
      // HAProxy's soft stop: listeners close, open connections may finish until the stop timeout
      StopSignal: 'SIGUSR1',
      StopTimeout: 2,
      HostConfig: {
        NetworkMode: 'host',
        RestartPolicy: { Name: 'unless-stopped' },
        Mounts: [{ Type: 'bind', Source: paths.dir, Target: paths.dir }],
        Memory: MEMORY_BYTES,
        MemorySwap: MEMORY_BYTES,
        NanoCpus: Math.min(2, Math.max(1, info.NCPU ?? 1)) * 1_000_000_000,
        PidsLimit: 256,
        CapDrop: ['ALL'],
        // low ports; berth's mode-600 files; the socket handed to berth's user (chown, then chmod of a file no longer root's)
        CapAdd: ['NET_BIND_SERVICE', 'DAC_OVERRIDE', 'CHOWN', 'FOWNER'],
        SecurityOpt: ['no-new-privileges'],
        ReadonlyRootfs: true,
        LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } },
      },
    });
  }

  const launcher: HaproxyLauncher = {
    kind: 'container',
    description: `container ${name} from ${o.image}`,
    async prepare() {
      try {
        await ensureImage(o.docker, o.image, null, async (line) => { if (/^Pulling /.test(line)) o.logger.info({ image: o.image }, `ingress: ${line}`); },
          AbortSignal.timeout(600_000));
      } catch (err) {
        throw new IngressImageUnavailable(`ingress: the HAProxy image ${o.image} (INGRESS_IMAGE) is not on the Docker daemon and could not be pulled: ${(err as Error).message}`);
      }
    },
    async check(config) {
      if (!(await state())?.running) return;
      const candidate = join(paths.dir, 'haproxy.cfg.check');
      ensureTlsFiles(paths.dir);
      writeFileSync(candidate, config, { mode: 0o600 });
      try {
        const out = await execIn(container, ['haproxy', '-c', '-q', '-C', paths.dir, '-f', candidate], 30_000);
        if (out.exitCode !== 0) {
          const alert = out.output.split('\n').filter((l) => /ALERT/.test(l)).slice(0, 2).join(' | ') || out.output.trim().slice(0, 300);
          throw new Error(`ingress: HAProxy refuses the new configuration, the running one stays: ${alert}`);
        }
      } finally {
        rmSync(candidate, { force: true });
      }
    },
    async start(opts) {
      await launcher.prepare();
      // a stopped, failed or half-started container of this data dir (the caller holds the lock and nothing answers)
      await remove();
      try {
        await create();
        await container.start();
      } catch (err) {
        await remove().catch(() => undefined);
        throw new Error(`ingress: could not start HAProxy's container ${name} from ${o.image}: ${daemonMessage(err)}`);
      }
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        if ((await probe(paths)).state === 'berth') return `container ${name}`;
        const now = await state();
        if (now && !now.running) {
          const tail = await logs();
          await remove().catch(() => undefined);
          if (/cannot bind socket|Address already in use/i.test(tail)) throw portTaken(opts.host, opts.port);
          throw new Error(`ingress: HAProxy's container ${name} exited with code ${now.exitCode} at start: ${tail || '(no output)'}`);
        }
      }
      const tail = await logs();
      await remove().catch(() => undefined);
      throw new Error(`ingress: HAProxy's container ${name} did not answer on ${paths.socket} within 30 s (a Docker daemon on another machine cannot share it): ${tail}`);
    },
    async reload() {
      if (!(await state())?.running) throw new Error(`ingress: HAProxy's container ${name} is not running`);
      // to the container's first process, HAProxy's master: it starts a new worker from the rewritten configuration
      await reloadHaproxy(paths, async () => { await container.kill({ signal: 'SIGUSR2' }); }, logs);
    },
    async stop() {
      const was = await state();
      if (!was) return false;
      if (was.running) await container.stop({ t: 2 }).catch(() => undefined);
      await remove();
      return was.running;
    },
    async running() {
      return (await state())?.running ? `container ${name}` : null;
    },
  };
  return launcher;
}
