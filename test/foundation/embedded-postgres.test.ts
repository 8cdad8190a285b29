// Berth on its embedded PostgreSQL server (EMBEDDED_DATABASE=postgres), as real processes: the
// first start on an empty DATA_DIR, a restart that keeps the data, a second berth refused by the
// DATA_DIR lock, kill -9 of berth (the watchdog stops the server; an orphan whose watchdog died
// too is stopped by the next start), and the identity the server runs as when berth is root or a
// normal user. Decision 0703.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { processAlive as alive } from '../../src/lib/processes.ts';
import { eventually } from '../support/harness.ts';
import { startBerth, type BerthProcess } from '../support/processes.ts';

const token = randomBytes(24).toString('hex');
const dirs: string[] = [];
const running: BerthProcess[] = [];

function dataDir(mode = 0o755): string {
  const dir = mkdtempSync(join(tmpdir(), 'berth-epg-'));
  chmodSync(dir, mode);
  dirs.push(dir);
  return dir;
}

async function start(dir: string, as?: { uid: number; gid: number }): Promise<BerthProcess> {
  const b = await startBerth('all', { DATA_DIR: dir, EMBEDDED_DATABASE: 'postgres', BOOTSTRAP_TOKEN: token, LOG_LEVEL: 'warn' }, as);
  running.push(b);
  return b;
}

async function call(b: BerthProcess, method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(`${b.url}${path}`, {
    method, headers: { authorization: `Token ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await r.json();
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

async function projectNames(b: BerthProcess): Promise<string[]> {
  const orgs = await call(b, 'GET', '/organization');
  const projects = await call(b, 'GET', `/organization/${orgs.results[0].id}/project`);
  return projects.results.map((p: { name: string }) => p.name).sort();
}

async function addProject(b: BerthProcess, name: string): Promise<void> {
  const orgs = await call(b, 'GET', '/organization');
  await call(b, 'POST', `/organization/${orgs.results[0].id}/project`, { name });
}

function postmasterPid(dir: string): number | undefined {
  const file = join(dir, 'postgres', 'postmaster.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined;
}

function procField(pid: number, field: string): string {
  return new RegExp(`^${field}:\\s+(.*)$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
}

after(async () => {
  for (const b of running) await b.stop();
  for (const dir of dirs) {
    const pid = postmasterPid(dir);
    if (pid && alive(pid)) process.kill(pid, 'SIGQUIT');
    rmSync(dir, { recursive: true, force: true });
  }
});

const isRoot = process.getuid?.() === 0;
const root = new URL('../..', import.meta.url).pathname;

function cli(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [join(root, 'src/cli/main.ts'), ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 120_000 });
}

describe('embedded PostgreSQL server', () => {
  test('first start on an empty DATA_DIR, restart keeps the data, nothing left running after stop', async () => {
    const dir = dataDir();
    const first = await start(dir);
    await addProject(first, 'kept');
    assert.equal(statSync(join(dir, 'postgres-password')).mode & 0o777, 0o600);
    const pid = postmasterPid(dir)!;
    assert.ok(alive(pid));
    assert.equal(await first.stop(), 0);
    assert.ok(!alive(pid), 'the server stops with berth');
    assert.ok(!existsSync(join(dir, 'postgres', 'postmaster.pid')), 'a clean shutdown');

    const second = await start(dir);
    assert.deepEqual(await projectNames(second), ['kept']);
    await second.stop();
  });

  test('a second berth on the same DATA_DIR is refused by the lock while the first one runs', async () => {
    const dir = dataDir();
    const first = await start(dir);
    await assert.rejects(start(dir), /in use by another berth process/);
    assert.deepEqual(await projectNames(first), [], 'the first one still serves');
    await first.stop();
  });

  test('kill -9 of berth: the watchdog stops the server, the next start works and the data is intact', async () => {
    const dir = dataDir();
    const first = await start(dir);
    await addProject(first, 'before-kill');
    const pid = postmasterPid(dir)!;
    await first.stop('SIGKILL');
    await eventually(async () => !alive(pid), 20_000, 50);
    const second = await start(dir);
    assert.deepEqual(await projectNames(second), ['before-kill']);
    await second.stop();
  });

  test('an orphan server (berth and its watchdog killed with -9) is stopped and replaced by the next start', async () => {
    const dir = dataDir();
    const first = await start(dir);
    await addProject(first, 'orphaned');
    const pid = postmasterPid(dir)!;
    const watchdog = Number(procField(pid, 'PPid'));
    process.kill(watchdog, 'SIGKILL');
    await first.stop('SIGKILL');
    assert.ok(alive(pid), 'the server outlived berth and its watchdog');
    const second = await start(dir);
    assert.ok(!alive(pid), 'the orphan was stopped');
    assert.notEqual(postmasterPid(dir), pid);
    assert.deepEqual(await projectNames(second), ['orphaned']);
    assert.match(second.output(), /stopped PostgreSQL server pid \d+ left running/);
    await second.stop();
  });

  test('a PGlite DATA_DIR from before the default changed keeps working with EMBEDDED_DATABASE unset; set to postgres it is refused', async () => {
    const dir = dataDir();
    const old = await startBerth('all', { DATA_DIR: dir, EMBEDDED_DATABASE: 'pglite', BOOTSTRAP_TOKEN: token, LOG_LEVEL: 'warn' });
    running.push(old);
    await addProject(old, 'from-pglite');
    await old.stop();
    const upgraded = await startBerth('all', { DATA_DIR: dir, BOOTSTRAP_TOKEN: token, LOG_LEVEL: 'warn' });
    running.push(upgraded);
    assert.deepEqual(await projectNames(upgraded), ['from-pglite']);
    assert.ok(!existsSync(join(dir, 'postgres')), 'no embedded server was made');
    await upgraded.stop();
    const refused = cli(['migrate'], { DATA_DIR: dir, EMBEDDED_DATABASE: 'postgres' });
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /^berth: DATA_DIR .* holds a PGlite database .* set EMBEDDED_DATABASE=pglite/);
    // its backup restores into a new DATA_DIR with EMBEDDED_DATABASE unset: the archive says which store it is
    const file = join(dir, 'pglite-backup.tar.gz');
    assert.equal(cli(['backup', '--out', file], { DATA_DIR: dir }).status, 0);
    const target = dataDir();
    const restored = cli(['restore', '--from', file], { DATA_DIR: target });
    assert.equal(restored.status, 0, restored.stderr);
    assert.ok(existsSync(join(target, 'pgdata')) && !existsSync(join(target, 'postgres')));
  });

  test('a DATA_DIR whose socket path would be too long: the server listens on 127.0.0.1 on a free port instead', async () => {
    const dir = join(dataDir(), 'a-directory-name-long-enough-to-push-the-socket-path-past-its-limit-of-107-bytes');
    const b = await start(dir);
    const lines = readFileSync(join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n');
    assert.equal(lines[5], '127.0.0.1', 'listens on loopback');
    assert.equal(lines[4], '', 'and on no socket');
    await addProject(b, 'over-tcp');
    assert.deepEqual(await projectNames(b), ['over-tcp']);
    await b.stop();
  });

  test('as root, the server runs as nobody when nobody can reach DATA_DIR', { skip: isRoot ? false : 'not running as root' }, async () => {
    const dir = dataDir(0o755);
    const b = await start(dir);
    const pid = postmasterPid(dir)!;
    assert.equal(procField(pid, 'Uid').split(/\s+/)[0], String(statSync(join(dir, 'postgres')).uid));
    assert.notEqual(statSync(join(dir, 'postgres')).uid, 0);
    await b.stop();
  });

  test('as root, with a DATA_DIR only root can reach (mode 0700), the server runs in a user namespace', { skip: isRoot ? false : 'not running as root' }, async () => {
    const dir = dataDir(0o700);
    const b = await start(dir);
    const pid = postmasterPid(dir)!;
    // uid 65534 inside, root outside: its files stay root's
    assert.match(readFileSync(`/proc/${pid}/uid_map`, 'utf8'), /^\s*65534\s+0\s+1\s*$/);
    assert.equal(statSync(join(dir, 'postgres')).uid, 0);
    await addProject(b, 'in-namespace');
    await b.stop();
    const again = await start(dir);
    assert.deepEqual(await projectNames(again), ['in-namespace']);
    await again.stop();
  });

  const normalUser = !isRoot ? undefined : readFileSync('/etc/passwd', 'utf8').split('\n').map((l) => l.split(':'))
    .find((f) => Number(f[2]) >= 1000 && Number(f[2]) < 60000);
  test('berth as a normal user runs the server as that user', { skip: normalUser ? false : 'needs root and an account with uid ≥ 1000 to switch to' }, async () => {
    const as = { uid: Number(normalUser![2]), gid: Number(normalUser![3]) };
    const dir = dataDir(0o700);
    chownSync(dir, as.uid, as.gid);
    const b = await start(dir, as);
    await addProject(b, 'mine');
    const pid = postmasterPid(dir)!;
    assert.equal(procField(pid, 'Uid').split(/\s+/)[0], String(as.uid));
    assert.equal(statSync(join(dir, 'postgres')).uid, as.uid);
    await b.stop();
  });
});
