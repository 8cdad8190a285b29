// Child processes of a bench run: berth (`node bin/berth.mjs serve`, what `npm start` runs) on a fresh data directory
// (and a fresh PostgreSQL database when DATABASE_URL is set, dropped afterwards), and the bare
// Fastify baseline. Also the numbers read from the outside: time to /readyz 200 and RSS.
import { SERVER_NODE_FLAGS } from '../src/cli/server-flags.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freeLoopbackPort as freePort } from '../src/lib/processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface Child { proc: ChildProcess; port: number; url: string; startedAt: number; output: () => string }

export { freePort };

function launch(args: string[], env: Record<string, string>, port: number, onLine?: (line: string) => void): Child {
  const startedAt = performance.now();
  const proc = spawn(process.execPath, args, { cwd: ROOT, env: { ENGINE: 'simulated', ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let partial = '';
  const keep = (chunk: Buffer) => { out = (out + chunk.toString()).slice(-8000); };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  if (onLine) {
    proc.stdout!.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) onLine(line);
    });
  }
  return { proc, port, url: `http://127.0.0.1:${port}`, startedAt, output: () => out };
}

/** polls `path` until it answers 200; returns milliseconds since spawn */
export async function waitReady(child: Child, path: string, limitMs = 180_000): Promise<number> {
  while (performance.now() - child.startedAt < limitMs) {
    if (child.proc.exitCode !== null) throw new Error(`server exited with ${child.proc.exitCode}:\n${child.output()}`);
    try {
      const res = await fetch(child.url + path);
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - child.startedAt;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`server not ready on ${path} after ${limitMs} ms:\n${child.output()}`);
}

export interface BerthEnv { dataDir: string; databaseUrl?: string; encryptionKey?: string; bootstrapToken: string; embedded?: 'postgres' | 'pglite' }

export interface BerthOptions {
  /** `serve --role …` (default: no flag, role all) */
  role?: 'all' | 'api' | 'worker';
  /** more environment variables (they win over the defaults below) */
  extraEnv?: Record<string, string>;
  /** every line the process writes to stdout (its JSON log lines) */
  onLine?: (line: string) => void;
}

export async function startBerth(env: BerthEnv, nodeFlags: string[] = [], options: BerthOptions = {}): Promise<Child> {
  const vars: Record<string, string> = {
    DATA_DIR: env.dataDir,
    BOOTSTRAP_TOKEN: env.bootstrapToken,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_HOUR: '10000000', // the configuration's maximum
    HOST: '127.0.0.1',
    EMBEDDED_DATABASE: env.embedded ?? 'pglite',
  };
  if (env.databaseUrl) {
    vars.DATABASE_URL = env.databaseUrl;
    vars.ENCRYPTION_KEY = env.encryptionKey!;
  } else {
    vars.DATABASE_URL = '';
  }
  const role = options.role ? ['--role', options.role] : [];
  return launch([...SERVER_NODE_FLAGS, ...nodeFlags, 'bin/berth.mjs', 'serve', ...role], { ...vars, ...options.extraEnv }, await freePort(), options.onLine);
}

export async function startBare(): Promise<Child> {
  const child = launch(['bench/bare-server.ts'], {}, await freePort());
  await waitReady(child, '/');
  return child;
}

/** the raw route server (bench/raw-server.ts) on PostgreSQL or on a PGlite data directory */
export async function startRaw(db: { databaseUrl: string } | { pgdata: string }, nodeFlags: string[] = []): Promise<Child> {
  const env: Record<string, string> = 'databaseUrl' in db ? { DATABASE_URL: db.databaseUrl } : { DATABASE_URL: '', RAW_PGDATA: db.pgdata };
  const child = launch([...nodeFlags, 'bench/raw-server.ts'], env, await freePort());
  await waitReady(child, '/raw-ready');
  return child;
}

/** SIGTERM, then wait for the exit (SIGKILL after 30 s) */
export function stop(child: Child): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.proc.kill('SIGKILL'), 30_000);
    child.proc.once('exit', () => { clearTimeout(timer); resolve(); });
    child.proc.kill('SIGTERM');
  });
}

/** a line of /proc/<pid>/status in MiB (VmRSS: now, VmHWM: peak) */
export function memoryMiB(child: Child, field: 'VmRSS' | 'VmHWM'): number {
  return pidMemoryMiB(child.proc.pid!, field);
}

export function pidMemoryMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  let status: string;
  try { status = readFileSync(`/proc/${pid}/status`, 'utf8'); } catch { return NaN; }
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

export function randomSecret(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/** a fresh database on the server of `adminUrl`; returns its URL and a function dropping it */
export async function freshDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `berth_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** waits until the embedded PostgreSQL server of dataDir has stopped (its postmaster.pid gone):
 * a berth killed, or stopped before its signal handlers were in place, leaves that to the
 * watchdog, which needs a moment; removing the directory under a running server crashes it */
export async function embeddedServerGone(dataDir: string, limitMs = 30_000): Promise<void> {
  const pidFile = join(dataDir, 'postgres', 'postmaster.pid');
  const until = performance.now() + limitMs;
  while (existsSync(pidFile) && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
}

