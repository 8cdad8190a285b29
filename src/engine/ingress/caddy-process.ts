// The Caddy process behind berth's ingress: finding the binary, talking to its admin API,
// starting it detached from berth (its own process group, stdio to <dataDir>/ingress/caddy.log,
// a pid file, config autosaved under <dataDir>/ingress/config so `--resume` brings the routes
// back), telling berth's Caddy apart from anything else on the admin port, and stopping it.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import lockfile from 'proper-lockfile';
import { delimiter, join } from 'node:path';
import { berthServer, baseConfig, isBerthRoute } from './caddy-config.ts';

export interface Paths { dir: string; pidFile: string; logFile: string; configFile: string; autosave: string; xdgConfig: string; xdgData: string }

export function ingressPaths(dataDir: string): Paths {
  const dir = join(dataDir, 'ingress');
  return {
    dir,
    pidFile: join(dir, 'caddy.pid'),
    logFile: join(dir, 'caddy.log'),
    configFile: join(dir, 'caddy.json'),
    xdgConfig: join(dir, 'config'),
    xdgData: join(dir, 'data'),
    autosave: join(dir, 'config', 'caddy', 'autosave.json'),
  };
}

function executable(path: string): boolean {
  try { accessSync(path, constants.X_OK); return true; } catch { return false; }
}

/** the caddy binary: the explicit path, else CADDY_BIN, else `caddy` on PATH; null when there is none */
export function findCaddy(explicit?: string): string | null {
  const wanted = explicit || process.env.CADDY_BIN;
  if (wanted) return executable(wanted) ? wanted : null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, 'caddy'))) return join(dir, 'caddy');
  }
  return null;
}

export class AdminError extends Error {
  override name = 'AdminError';
  readonly status: number;
  constructor(status: number, message: string) { super(message); this.status = status; }
}

/** one call to Caddy's admin API (loopback, with the Origin its origin check wants) */
export async function admin(adminPort: number, method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<unknown> {
  const base = `http://127.0.0.1:${adminPort}`;
  let res: Response;
  const send = () => fetch(`${base}${path}`, {
    method,
    headers: { Origin: base, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  try {
    try {
      res = await send();
    } catch (err) {
      // Caddy restarts its admin endpoint on a config load (another process's, perhaps): a read on a
      // keep-alive connection it closed is sent again once on a new one
      const code = ((err as { cause?: { code?: string } }).cause ?? {}).code;
      if (method !== 'GET' || (code !== 'UND_ERR_SOCKET' && code !== 'ECONNRESET')) throw err;
      await new Promise((r) => setTimeout(r, 100));
      res = await send();
    }
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause ?? err;
    const why = (cause as { code?: string }).code ?? (err as Error).message;
    throw new Error(`ingress: Caddy's admin API at ${base} does not answer (${why})`, { cause });
  }
  const text = await res.text();
  if (!res.ok) {
    let detail = text.trim();
    try { detail = (JSON.parse(text) as { error?: string }).error ?? detail; } catch { /* plain text */ }
    throw new AdminError(res.status, `ingress: Caddy admin ${method} ${path} answered ${res.status}: ${detail.slice(0, 300)}`);
  }
  return text.trim() === '' ? null : JSON.parse(text);
}

/** the start lock of a data dir's ingress (held while probing and starting Caddy); resolves to its release */
export async function lockStart(dataDir: string): Promise<() => Promise<void>> {
  const { dir } = ingressPaths(dataDir);
  mkdirSync(dir, { recursive: true });
  return lockfile.lock(dir, {
    lockfilePath: join(dir, 'start.lock'), realpath: false, stale: 20_000,
    retries: { retries: 200, minTimeout: 50, maxTimeout: 200 },
  });
}

export function refused(err: unknown): boolean {
  return (err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
}

export type Probe = { state: 'free' } | { state: 'berth'; config: unknown } | { state: 'foreign'; detail: string };

/** who answers on the admin port: nobody, berth's Caddy (its config carries the berth server), or something else */
export async function probeAdmin(adminPort: number): Promise<Probe> {
  try {
    const config = await admin(adminPort, 'GET', '/config/', undefined, 3000);
    return berthServer(config) ? { state: 'berth', config } : { state: 'foreign', detail: 'a Caddy without berth\'s server' };
  } catch (err) {
    if (refused(err)) return { state: 'free' };
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (err instanceof AdminError) return { state: 'foreign', detail: `a server answering ${err.status}` };
    return { state: 'foreign', detail: `a process that does not speak Caddy's admin API (${code ?? (err as Error).message})` };
  }
}

/** whether host:port can be listened on right now */
export function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ host, port, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** routes saved by the last run, so a fresh start with changed ports still serves them */
function savedRoutes(autosave: string): object[] {
  if (!existsSync(autosave)) return [];
  try {
    const server = berthServer(JSON.parse(readFileSync(autosave, 'utf8')));
    return Array.isArray(server?.routes) ? server.routes.filter(isBerthRoute) as object[] : [];
  } catch { return []; }
}

function logTail(logFile: string): string {
  try {
    const lines = readFileSync(logFile, 'utf8').trim().split('\n').slice(-5);
    return lines.map((l) => { try { const o = JSON.parse(l) as { msg?: string; error?: string }; return [o.msg, o.error].filter(Boolean).join(': '); } catch { return l; } }).join(' | ');
  } catch { return ''; }
}

export interface StartOptions { dataDir: string; host: string; port: number; adminPort: number; caddyBin: string }

/** start Caddy detached from this process and wait until its admin API carries berth's server */
export async function startCaddy(opts: StartOptions): Promise<number> {
  const paths = ingressPaths(opts.dataDir);
  mkdirSync(paths.xdgConfig, { recursive: true });
  mkdirSync(paths.xdgData, { recursive: true });
  const routes = savedRoutes(paths.autosave);
  const config = baseConfig(opts, routes);
  writeFileSync(paths.configFile, JSON.stringify(config, null, 2));
  // the autosave is what --resume loads: rewrite it with the current ports, keeping the routes
  if (existsSync(paths.autosave)) writeFileSync(paths.autosave, JSON.stringify(config));
  const log = openSync(paths.logFile, 'a');
  const child = spawn(opts.caddyBin, ['run', '--config', paths.configFile, '--resume'], {
    detached: true,
    stdio: ['ignore', log, log],
    // berth's own environment (database URL, master key) is none of the proxy's business
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', XDG_CONFIG_HOME: paths.xdgConfig, XDG_DATA_HOME: paths.xdgData, HOME: paths.dir },
  });
  closeSync(log);
  let exited: number | null | undefined;
  let spawnError: Error | undefined;
  child.once('exit', (code) => { exited = code; });
  child.once('error', (err) => { spawnError = err; });
  child.unref();
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    if (spawnError) throw new Error(`ingress: could not start ${opts.caddyBin}: ${spawnError.message}`);
    if (exited !== undefined) {
      const tail = logTail(paths.logFile);
      if (/address already in use/.test(tail)) throw new Error(`ingress: cannot listen on ${opts.host}:${opts.port}, the address is in use: set INGRESS_PORT to a free port`);
      throw new Error(`ingress: caddy exited with code ${exited} at start: ${tail || 'see ' + paths.logFile}`);
    }
    const probe = await probeAdmin(opts.adminPort);
    if (probe.state === 'berth') {
      writeFileSync(paths.pidFile, `${child.pid}\n`);
      return child.pid!;
    }
  }
  try { process.kill(child.pid!, 'SIGTERM'); } catch { /* already gone */ }
  throw new Error(`ingress: caddy did not answer on its admin port ${opts.adminPort} within 15 s: ${logTail(paths.logFile)}`);
}

/** the pid of the Caddy this data dir started, if it still runs (and still is a caddy) */
export function runningPid(dataDir: string): number | null {
  const { pidFile } = ingressPaths(dataDir);
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!cmdline.split('\0').some((part) => /caddy$/.test(part))) return null;
  } catch {
    try { process.kill(pid, 0); } catch { return null; }
  }
  return pid;
}

/** running, and not an exited process its parent has not reaped yet (a zombie serves nothing) */
function alive(pid: number): boolean {
  try { process.kill(pid, 0); } catch { return false; }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch { return true; }
}

/** stop the Caddy this data dir started: gracefully through its admin API, then by signal */
export async function stopCaddy(opts: { dataDir: string; adminPort: number }): Promise<void> {
  const paths = ingressPaths(opts.dataDir);
  const pid = runningPid(opts.dataDir);
  if (pid !== null) {
    const probe = await probeAdmin(opts.adminPort);
    if (probe.state === 'berth') await admin(opts.adminPort, 'POST', '/stop', undefined, 3000).catch(() => undefined);
    const until = Date.now() + 5000;
    while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    if (alive(pid)) {
      process.kill(pid, 'SIGTERM');
      const hard = Date.now() + 3000;
      while (alive(pid) && Date.now() < hard) await new Promise((r) => setTimeout(r, 50));
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }
  rmSync(paths.pidFile, { force: true });
}

