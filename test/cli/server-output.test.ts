// A server that talks to people: at a terminal (tmux) a banner and readable log lines; piped,
// JSON lines as before; routine requests at debug and errors/slow ones at warn with the request
// id; startup failures as one line that says what to do; .env loaded under the real environment.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requestLogLevel, SLOW_REQUEST_MS } from '../../src/http/request-log.ts';
import { eventually } from '../support/harness.ts';
import { freePort } from '../support/processes.ts';
import { BERTH } from './support.ts';

const hasTmux = (() => {
  try { execFileSync('tmux', ['-V']); return true; } catch { return false; }
})();

interface Served { child: ChildProcess; output(): string; port: number; exited: Promise<number | null> }

const children: ChildProcess[] = [];
after(() => { for (const c of children) if (c.exitCode === null) c.kill('SIGKILL'); });

/** `berth serve` with piped output (not a terminal) in a fresh directory */
async function serve(env: Record<string, string>, cwd = mkdtempSync(join(tmpdir(), 'berth-serve-'))): Promise<Served> {
  const port = Number(env.PORT ?? await freePort());
  // PORT: 'unset' leaves it out (for .env to provide)
  const vars: Record<string, string> = { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ENGINE: 'simulated', SHUTDOWN_DRAIN_MS: '0', ...env };
  if (env.PORT === 'unset') delete vars.PORT;
  const child = spawn(process.execPath, [BERTH, 'serve'], { cwd, env: vars, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  // 'close': the process ended and its output was read to the end
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, output: () => out, port, exited };
}

async function ready(s: Served): Promise<void> {
  await eventually(async () => {
    if (s.child.exitCode !== null) throw new Error(`berth exited: ${s.output()}`);
    return (await fetch(`http://127.0.0.1:${s.port}/readyz`).catch(() => null))?.status === 200;
  }, 60_000, 200);
}

describe('berth serve output', () => {
  test('request log levels: routine at debug, 5xx and slow at warn', () => {
    assert.deepEqual(requestLogLevel(200, 5), { level: 'debug', msg: 'request completed' });
    assert.deepEqual(requestLogLevel(404, 5), { level: 'debug', msg: 'request completed' });
    assert.deepEqual(requestLogLevel(503, 5), { level: 'warn', msg: 'request failed' });
    assert.deepEqual(requestLogLevel(200, SLOW_REQUEST_MS), { level: 'warn', msg: 'slow request' });
  });

  test('piped: JSON lines, no banner; requests logged at debug with their id, silent at info', async () => {
    const s = await serve({ LOG_LEVEL: 'debug' });
    try {
      await ready(s);
      const res = await fetch(`http://127.0.0.1:${s.port}/organization`, { headers: { 'x-request-id': 'trace-me-42' } });
      assert.equal(res.status, 401);
      // /readyz answers before the workers have started, so "berth started" may come a moment later
      await eventually(async () => s.output().includes('trace-me-42') && s.output().includes('"msg":"berth started"'), 10_000, 50);
      const lines = s.output().trim().split('\n').map((l) => JSON.parse(l));
      assert.ok(lines.some((l) => l.msg === 'berth started' && l.engine === 'simulated' && l.database === 'postgres'), 'the default embedded database is a PostgreSQL server (decision 0703)');
      const req = lines.find((l) => l.reqId === 'trace-me-42' && l.msg === 'request completed');
      assert.equal(req.level, 20, 'debug');
      assert.equal(req.statusCode, 401);
      assert.equal(req.url, '/organization');
      assert.ok(!lines.some((l) => l.msg === 'incoming request'), "Fastify's own request lines are off");
      assert.doesNotMatch(s.output(), /Docs /);
    } finally {
      s.child.kill('SIGTERM');
      assert.equal(await s.exited, 0);
    }
    const quiet = await serve({ LOG_LEVEL: 'info' });
    try {
      await ready(quiet);
      await fetch(`http://127.0.0.1:${quiet.port}/organization`, { headers: { 'x-request-id': 'not-at-info' } });
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(!quiet.output().includes('not-at-info'));
    } finally {
      quiet.child.kill('SIGTERM');
      await quiet.exited;
    }
  });

  test('a port in use: one line naming the port and PORT', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const s = await serve({ PORT: String(port) });
      assert.equal(await s.exited, 1);
      // stdout (JSON logs) and stderr interleave arbitrarily: the one line is there, and no stack trace
      const lines = s.output().trim().split('\n');
      const plain = lines.filter((l) => !l.startsWith('{'));
      assert.deepEqual(plain, [`berth: port ${port} is already in use on 127.0.0.1: stop what listens there, or set PORT to a free port`]);
    } finally {
      blocker.close();
    }
  });

  test('an unreachable DATABASE_URL: one line with host, port and the driver reason', async () => {
    const port = await freePort();
    const s = await serve({ DATABASE_URL: `postgres://berth:secret-pw@127.0.0.1:${port}/berth`, ENCRYPTION_KEY: randomBytes(32).toString('base64') });
    assert.equal(await s.exited, 1);
    assert.equal(s.output().trim(), `berth: cannot connect to PostgreSQL at 127.0.0.1:${port} (database berth, from DATABASE_URL): connect ECONNREFUSED 127.0.0.1:${port}`);
    assert.ok(!s.output().includes('secret-pw'));
  });

  test('.env in the working directory is loaded; the real environment wins over it', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'berth-dotenv-'));
    const port = await freePort();
    const fileToken = `file-${randomBytes(16).toString('hex')}`;
    const realToken = `real-${randomBytes(16).toString('hex')}`;
    writeFileSync(join(cwd, '.env'), `# as in .env.example\nPORT=${port}\nPUBLIC_URL=\nBOOTSTRAP_ORGANIZATION=from-dotenv\nBOOTSTRAP_TOKEN=${fileToken}\n`);
    const s = await serve({ PORT: 'unset', BOOTSTRAP_TOKEN: realToken }, cwd);
    const env = { ...s, port };
    try {
      await ready(env);
      const asReal = await fetch(`http://127.0.0.1:${port}/organization`, { headers: { authorization: `Token ${realToken}` } });
      assert.equal(asReal.status, 200);
      assert.equal(((await asReal.json()) as { results: Array<{ name: string }> }).results[0]!.name, 'from-dotenv');
      const asFile = await fetch(`http://127.0.0.1:${port}/organization`, { headers: { authorization: `Token ${fileToken}` } });
      assert.equal(asFile.status, 401);
    } finally {
      s.child.kill('SIGTERM');
      await s.exited;
    }
  });

  test('at a terminal: a banner (URL, docs, token, database, engine) and readable log lines', { skip: hasTmux ? false : 'tmux is not installed' }, async () => {
    const run = promisify(execFile);
    const socket = `berth-serve-${process.pid}`;
    const tmux = (...args: string[]) => run('tmux', ['-L', socket, ...args]).then((r) => r.stdout);
    const cwd = mkdtempSync(join(tmpdir(), 'berth-tty-'));
    const port = await freePort();
    const env = `env -i PATH='${process.env.PATH}' TERM=xterm-256color HOST=127.0.0.1 PORT=${port} ENGINE=simulated SHUTDOWN_DRAIN_MS=0`;
    await tmux('new-session', '-d', '-s', 'serve', '-x', '160', '-y', '50', `cd '${cwd}' && ${env} '${process.execPath}' '${BERTH}' serve; sleep 60`);
    try {
      const screen = await eventually(async () => {
        const text = await tmux('capture-pane', '-p', '-t', 'serve');
        return text.includes('berth started') && text;
      }, 60_000, 200);
      assert.match(screen, new RegExp(`API +http://127\\.0\\.0\\.1:${port}\\n`));
      assert.match(screen, new RegExp(`Docs +http://127\\.0\\.0\\.1:${port}/docs`));
      assert.match(screen, new RegExp(`Token +${cwd}/data/initial-api-token \\(read it once`));
      assert.match(screen, new RegExp(`Database +embedded PostgreSQL server in ${cwd}/data/postgres`));
      assert.match(screen, /Engine +simulated \(ENGINE=simulated\): deployments run nothing/);
      assert.match(screen, /\[\d\d:\d\d:\d\d\.\d{3}\] INFO: berth started/);
      assert.doesNotMatch(screen, /"level":30/);
    } finally {
      await tmux('kill-server').catch(() => {});
    }
  });
});
