// The HAProxy process behind berth's ingress: finding the binary, one command at a time over its
// runtime API (a unix socket in <dataDir>/ingress, mode 600), starting it detached from berth
// (master-worker, its own process group, stdio to haproxy.log, a pid file) from the routes saved
// in routes.json, reloading it (a new worker; the old one keeps its open connections until they
// end), telling berth's HAProxy apart from anything else on the socket, and stopping it. The
// per-data-dir lock serialises starts, reloads and route edits of every berth process. The config
// and routes.json hold basic-auth hashes (decision 0337): both are written mode 600. Whether the
// proxy runs as a process of this machine or as a container is a launcher's (haproxy-launcher.ts).
import { spawn } from 'node:child_process';
import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { delimiter, join, relative, resolve } from 'node:path';
import lockfile from 'proper-lockfile';
import { FALLBACK, HOSTS_MAP, ROUTES_MAP, RULES_MAP, SOCKET_NAME, haproxyConfig, mapFiles, parseBackends, type SlotRoute } from './haproxy-config.ts';
import type { RouteSpec } from './routes.ts';
import { ensureTlsFiles, type TlsListen } from './haproxy-tls.ts';
import { checkSettings } from './settings.ts';
import { processRunning } from '../../lib/processes.ts';
import { writeFileAtomic } from '../../lib/atomic-write.ts';

export interface Paths { dir: string; pidFile: string; logFile: string; configFile: string; hostsMap: string; routesMap: string; rulesMap: string; saved: string; socket: string }

export function ingressPaths(dataDir: string): Paths {
  const dir = resolve(dataDir, 'ingress');
  const socket = join(dir, SOCKET_NAME);
  const near = relative(process.cwd(), socket);
  return {
    dir,
    pidFile: join(dir, 'haproxy.pid'),
    logFile: join(dir, 'haproxy.log'),
    configFile: join(dir, 'haproxy.cfg'),
    hostsMap: join(dir, HOSTS_MAP),
    routesMap: join(dir, ROUTES_MAP),
    rulesMap: join(dir, RULES_MAP),
    saved: join(dir, 'routes.json'),
    // a unix socket path has at most 107 bytes: the shorter of the absolute and relative paths
    socket: near.length < socket.length ? near : socket,
  };
}

/** the socket path fits in a sockaddr_un, or one error line naming DATA_DIR */
export function checkSocketPath(paths: Paths): void {
  if (Buffer.byteLength(paths.socket) > 107) {
    throw new Error(`ingress: the proxy's control socket ${paths.socket} is longer than the 107 bytes a unix socket path may have: use a shorter DATA_DIR`);
  }
}

function executable(path: string): boolean {
  try { accessSync(path, constants.X_OK); return true; } catch { return false; }
}

/** the haproxy binary: the explicit path, else HAPROXY_BIN, else `haproxy` on PATH or in /usr/sbin; null when there is none */
export function findHaproxy(explicit?: string): string | null {
  const wanted = explicit || process.env.HAPROXY_BIN;
  if (wanted) return executable(wanted) ? wanted : null;
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs) {
    if (dir && executable(join(dir, 'haproxy'))) return join(dir, 'haproxy');
  }
  return null;
}

/** nothing answers on the socket: no HAProxy runs for this data dir */
export class NotRunning extends Error { override name = 'NotRunning'; }

/** one runtime API command; its answer (HAProxy closes the connection after it) */
export function runtime(socket: string, command: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const conn = net.connect(socket);
    let out = '';
    const timer = setTimeout(() => conn.destroy(new Error(`no answer to "${command}" within ${timeoutMs} ms`)), timeoutMs);
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.end(`${command}\n`));
    conn.on('data', (d: string) => { out += d; });
    conn.on('end', () => { clearTimeout(timer); resolvePromise(out); });
    conn.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED') reject(new NotRunning(`ingress: HAProxy does not answer on ${socket} (${err.code})`));
      else reject(new Error(`ingress: HAProxy's runtime API at ${socket}: ${err.message}`));
    });
  });
}

export type Probe = { state: 'free' } | { state: 'berth'; backends: string[] } | { state: 'foreign'; detail: string };

/** who answers on the data dir's socket: nobody, berth's HAProxy (it has berth's fallback backend), or something else */
export async function probe(paths: Paths): Promise<Probe> {
  try {
    const backends = parseBackends(await runtime(paths.socket, 'show backend', 3000));
    return backends.includes(FALLBACK) ? { state: 'berth', backends } : { state: 'foreign', detail: `a process without berth's ingress configuration (it answered: ${backends.slice(0, 3).join(' ')})` };
  } catch (err) {
    if (err instanceof NotRunning) return { state: 'free' };
    return { state: 'foreign', detail: (err as Error).message };
  }
}

/** the lock of a data dir's ingress (starts, reloads, route edits); resolves to its release */
export async function lockIngress(dataDir: string): Promise<() => Promise<void>> {
  const { dir } = ingressPaths(dataDir);
  mkdirSync(dir, { recursive: true });
  return lockfile.lock(dir, {
    lockfilePath: join(dir, 'ingress.lock'), realpath: false, stale: 20_000,
    retries: { retries: 300, minTimeout: 20, maxTimeout: 200 },
  });
}

/** whether host:port can be listened on right now */
export function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const s = net.createServer();
    s.once('error', () => resolvePromise(false));
    s.listen({ host, port, exclusive: true }, () => s.close(() => resolvePromise(true)));
  });
}

export const portTaken = (host: string, port: number) =>
  new Error(`ingress: cannot listen on ${host}:${port}, the address is in use: set INGRESS_PORT to a free port`);


/** the routes berth saved after its last edit (what a fresh start serves), with their settings when valid */
export function savedRoutes(paths: Paths): RouteSpec[] {
  try {
    const saved = JSON.parse(readFileSync(paths.saved, 'utf8')) as { routes?: RouteSpec[] };
    return Array.isArray(saved.routes) ? saved.routes.map(({ id, hosts, upstreams, settings }) => {
      try { return { id, hosts, upstreams, ...(settings ? { settings: checkSettings(settings) } : {}) }; } catch { return { id, hosts, upstreams }; }
    }) : [];
  } catch { return []; }
}

export function saveRoutes(paths: Paths, routes: RouteSpec[]): void {
  const saved = routes.map(({ id, hosts, upstreams, settings }) => ({ id, hosts, upstreams, ...(settings ? { settings } : {}) }));
  writeFileAtomic(paths.saved, `${JSON.stringify({ routes: saved }, null, 1)}\n`, 0o600);
}

/** the configuration and map files HAProxy (re)loads */
export function writeConfig(paths: Paths, o: { host: string; port: number; slots: number; routes: SlotRoute[]; tls?: TlsListen }): void {
  mkdirSync(paths.dir, { recursive: true });
  ensureTlsFiles(paths.dir);
  const maps = mapFiles(o.routes, o.slots);
  writeFileAtomic(paths.hostsMap, maps.hosts);
  writeFileAtomic(paths.routesMap, maps.routes);
  writeFileAtomic(paths.rulesMap, maps.rules);
  // the runtime socket is berth's user's also when HAProxy runs as root (the container runtime)
  writeFileAtomic(paths.configFile, haproxyConfig({ ...o, socketOwner: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 } }), 0o600);
}

/** `haproxy -c` on a configuration before it replaces the running one: a bad one is an error, the proxy goes on */
export async function checkConfig(paths: Paths, bin: string, config: string): Promise<void> {
  const candidate = join(paths.dir, 'haproxy.cfg.check');
  ensureTlsFiles(paths.dir);
  writeFileAtomic(candidate, config, 0o600);
  try {
    const out = await new Promise<{ code: number | null; text: string }>((done) => {
      const child = spawn(bin, ['-c', '-q', '-C', paths.dir, '-f', candidate], { cwd: paths.dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d) => { text += d; });
      child.stderr.on('data', (d) => { text += d; });
      child.on('error', (err) => done({ code: -1, text: err.message }));
      child.on('close', (code) => done({ code, text }));
    });
    if (out.code !== 0) {
      const alert = out.text.split('\n').filter((l) => /ALERT/.test(l)).slice(0, 2).join(' | ') || out.text.trim().slice(0, 300);
      throw new Error(`ingress: HAProxy refuses the new configuration, the running one stays: ${alert}`);
    }
  } finally {
    rmSync(candidate, { force: true });
  }
}

function logTail(paths: Paths): string {
  try {
    return readFileSync(paths.logFile, 'utf8').trim().split('\n').filter((l) => /ALERT|error|fail/i.test(l)).slice(-3).join(' | ');
  } catch { return ''; }
}

/** start HAProxy (after writeConfig) detached from this process; its master's pid once berth's config answers */
export async function startHaproxy(paths: Paths, o: { host: string; port: number; bin: string }): Promise<number> {
  const log = openSync(paths.logFile, 'a');
  const child = spawn(o.bin, ['-W', '-C', paths.dir, '-f', paths.configFile], {
    cwd: paths.dir, detached: true, stdio: ['ignore', log, log],
    // berth's own environment (database URL, master key) is none of the proxy's business
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  closeSync(log);
  let exited: number | null | undefined;
  let spawnError: Error | undefined;
  child.once('exit', (code) => { exited = code; });
  child.once('error', (err) => { spawnError = err; });
  child.unref();
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    if (spawnError) throw new Error(`ingress: could not start ${o.bin}: ${spawnError.message}`);
    if (exited !== undefined) {
      const tail = logTail(paths);
      if (/cannot bind socket|Address already in use/i.test(tail)) throw portTaken(o.host, o.port);
      throw new Error(`ingress: haproxy exited with code ${exited} at start: ${tail || `see ${paths.logFile}`}`);
    }
    if ((await probe(paths)).state === 'berth') {
      writeFileSync(paths.pidFile, `${child.pid}\n`);
      return child.pid!;
    }
  }
  try { process.kill(child.pid!, 'SIGKILL'); } catch { /* already gone */ }
  throw new Error(`ingress: haproxy did not answer on ${paths.socket} within 15 s: ${logTail(paths)}`);
}

/** the worker answering the runtime API */
async function workerPid(paths: Paths): Promise<number> {
  return Number(/^Pid: (\d+)$/m.exec(await runtime(paths.socket, 'show info'))?.[1] ?? 0);
}

/** reload the running HAProxy (after writeConfig): `signal` sends its master SIGUSR2; resolves once a new worker answers */
export async function reloadHaproxy(paths: Paths, signal: () => Promise<void>, logs: () => Promise<string> = async () => logTail(paths)): Promise<void> {
  const before = await workerPid(paths);
  await signal();
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    const now = await workerPid(paths).catch(() => before);
    if (now !== before && (await probe(paths)).state === 'berth') return;
  }
  throw new Error(`ingress: HAProxy did not load its new configuration within 15 s: ${(await logs()) || `see ${paths.logFile}`}`);
}

/** the pid of the HAProxy master this data dir started, if it still runs (and still is a haproxy) */
export function runningPid(dataDir: string): number | null {
  const { pidFile } = ingressPaths(dataDir);
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0 || !processRunning(pid)) return null;
  try {
    if (!/haproxy$/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '')) return null;
  } catch { /* no /proc: trust the signal */ }
  return pid;
}

async function exitedWithin(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (processRunning(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return !processRunning(pid);
}

/** stop the HAProxy this data dir started: a soft stop (connections may finish for 2 s), then a hard one */
export async function stopIngress(opts: { dataDir: string }): Promise<void> {
  const paths = ingressPaths(opts.dataDir);
  const pid = runningPid(opts.dataDir);
  if (pid !== null) {
    process.kill(pid, 'SIGUSR1');
    if (!(await exitedWithin(pid, 2000))) {
      process.kill(pid, 'SIGTERM');
      if (!(await exitedWithin(pid, 3000))) process.kill(pid, 'SIGKILL');
    }
  }
  rmSync(paths.pidFile, { force: true });
}
