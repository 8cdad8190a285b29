// The process around the API: configuration errors, the DATA_DIR lock, the bootstrap, the
// `berth` command, and a real task going through the queue to a worker.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { acquireDataDirLock } from '../../src/db/lock.ts';
import { bootstrap } from '../../src/bootstrap.ts';
import { SERVER_NODE_FLAGS } from '../../src/cli/server-flags.ts';
import { eventually, startTestApp, testQueue } from '../support/harness.ts';

const root = new URL('../..', import.meta.url).pathname;

function berth(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [join(root, 'src/cli/main.ts'), ...args], {
    env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024,
  });
}

describe('configuration', () => {
  test('defaults follow DESIGN.md', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.publicUrl, 'http://localhost:8080');
    assert.equal(c.dataDir, './data');
    assert.equal(c.rateLimitPerHour, 1000);
    assert.equal(c.engine, 'auto');
    assert.equal(c.dockerHost, 'unix:///var/run/docker.sock');
    assert.equal(c.ingressDomain, 'localhost');
    assert.equal(c.ingressDrainSeconds, 30);
    assert.equal(c.webhookAllowPrivateTargets, false);
    assert.equal(c.bootstrapOrganization, 'default');
    assert.equal(c.agentBerthUrl, 'http://host.docker.internal:8080');
  });

  test('AGENT_BERTH_URL: the Docker host at PORT when berth listens beyond loopback, none on loopback, as given when set', () => {
    assert.equal(loadConfig({ PORT: '9000' }).agentBerthUrl, 'http://host.docker.internal:9000');
    for (const host of ['127.0.0.1', 'localhost', '::1']) assert.equal(loadConfig({ HOST: host }).agentBerthUrl, null, host);
    assert.equal(loadConfig({ HOST: '127.0.0.1', AGENT_BERTH_URL: 'http://berth.internal:8080/' }).agentBerthUrl, 'http://berth.internal:8080');
  });

  for (const [env, mentions] of [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ RATE_LIMIT_PER_HOUR: '0' }, 'RATE_LIMIT_PER_HOUR'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://localhost/x' }, 'ENCRYPTION_KEY'],
    [{ ENCRYPTION_KEY: 'c2hvcnQ=' }, 'ENCRYPTION_KEY'],
    [{ ENGINE: 'docker-swarm' }, 'ENGINE'],
    [{ INGRESS_DRAIN_SECONDS: '-1' }, 'INGRESS_DRAIN_SECONDS'],
    [{ EMBEDDED_DATABASE: 'sqlite' }, 'EMBEDDED_DATABASE must be one of postgres, pglite'],
    [{ ENGINE: 'kubernetes' }, 'ENGINE=kubernetes is not available'],
    [{ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'maybe' }, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'],
    [{ OIDC_ISSUER: 'https://id.example.com' }, 'OIDC_AUDIENCE'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ BOOTSTRAP_TOKEN: 'short' }, 'BOOTSTRAP_TOKEN'],
    [{ AGENT_BERTH_URL: 'ftp://berth' }, 'AGENT_BERTH_URL'],
  ] as const) {
    test(`a bad value is refused naming the variable (${Object.keys(env)[0]})`, () => {
      assert.throws(() => loadConfig(env as Record<string, string>), (err: unknown) => err instanceof ConfigError && err.message.includes(mentions));
    });
  }

  test('the command stops with one clear line on a bad value', () => {
    const r = berth(['migrate'], { PORT: 'abc' });
    assert.equal(r.status, 1);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /PORT must be an integer/);
  });
});

describe('DATA_DIR lock', () => {
  test('a second holder is refused while the first lives, and a stale lock is taken over', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-lock-'));
    const lock = acquireDataDirLock(dir);
    // same process: simulate another live owner by checking a child's view
    const r = berth(['migrate'], { DATA_DIR: dir });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /in use by another berth process/);
    lock.release();
    assert.ok(!existsSync(join(dir, 'berth.lock')));
    // a lock left by a dead process is stale
    const stale = spawnSync(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(join(dir, 'berth.lock'))}, String(process.pid))`]);
    assert.equal(stale.status, 0);
    const again = acquireDataDirLock(dir);
    assert.equal(readFileSync(join(dir, 'berth.lock'), 'utf8'), String(process.pid));
    again.release();
  });

  test('token create refuses clearly while a server holds the embedded store', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-lock-'));
    const lock = acquireDataDirLock(dir);
    try {
      const r = berth(['token', 'create', '--organization', 'x'], { DATA_DIR: dir });
      assert.equal(r.status, 1);
      assert.match(r.stderr, /in use by another berth process/);
    } finally {
      lock.release();
    }
  });
});

describe('berth command', () => {
  test('token create makes the organization, prints the token once, and it authenticates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-cli-'));
    const r = berth(['token', 'create', '--organization', 'cli-org', '--role', 'ADMIN'], { DATA_DIR: dir, LOG_LEVEL: 'silent' });
    assert.equal(r.status, 0, r.stderr);
    const token = r.stdout.trim();
    assert.match(token, /^berth_[A-Za-z0-9_-]{43}$/);
    assert.match(r.stderr, /cli-org .* created; ADMIN token/);
    const second = berth(['token', 'create', '--organization', 'cli-org'], { DATA_DIR: dir, LOG_LEVEL: 'silent' });
    assert.equal(second.status, 0);
    assert.doesNotMatch(second.stderr, /created;/, 'the organization exists the second time');
    assert.notEqual(second.stdout.trim(), token);
  });

  test('openapi prints the document', () => {
    const r = berth(['openapi'], {});
    assert.equal(r.status, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.openapi, '3.1.0');
    assert.ok(doc.paths['/organization']);
  });

  test('an unknown command names itself and points to --help (exit 2)', () => {
    const r = berth(['frobnicate'], {});
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown command 'frobnicate'/);
    assert.match(r.stderr, /--help/);
  });
});

describe('bootstrap', () => {
  test('BOOTSTRAP_TOKEN is an OWNER token, idempotent across starts', async () => {
    const secret = 'bootstrap-secret-0123456789abcdefghijkl';
    const t = await startTestApp({ env: { BOOTSTRAP_TOKEN: secret, BOOTSTRAP_ORGANIZATION: `boot-${Date.now()}` } });
    try {
      await bootstrap(t.ctx);
      await bootstrap(t.ctx);
      const orgs = await t.request('GET', '/organization', { token: secret });
      assert.equal(orgs.status, 200);
      assert.equal(orgs.body.results[0].name, t.config.bootstrapOrganization);
      const tokens = await t.request('GET', `/organization/${orgs.body.results[0].id}/apiToken`, { token: secret });
      assert.equal(tokens.body.results.filter((x: { name: string }) => x.name === 'bootstrap').length, 1);
      assert.equal(tokens.body.results[0].role, 'OWNER');
    } finally {
      await t.close();
    }
  });

  test('without BOOTSTRAP_TOKEN a generated token is written once to DATA_DIR with mode 0600', async () => {
    const t = await startTestApp({ env: { BOOTSTRAP_ORGANIZATION: `gen-${Date.now()}` } });
    try {
      await bootstrap(t.ctx);
      const file = join(t.config.dataDir, 'initial-api-token');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const token = readFileSync(file, 'utf8').trim();
      await bootstrap(t.ctx);
      assert.equal(readFileSync(file, 'utf8').trim(), token, 'not rewritten');
      assert.equal((await t.request('GET', '/organization', { token })).status, 200);
    } finally {
      await t.close();
    }
  });
});

describe('task queue', () => {
  test('enqueueing inside a transaction right after start does not deadlock (no worker in this process)', async () => {
    const { testDatabase } = await import('../support/db.ts');
    const { startQueue } = await import('../../src/queue/queue.ts');
    const { db } = await testDatabase();
    const queue = await startQueue(db, { workers: false });
    try {
      const id = await Promise.race([
        db.transaction((tx) => queue.enqueue(tx, 'maintenance.cleanup', { marker: 'no-deadlock' }, { startAfter: new Date(Date.now() + 3_600_000) })),
        new Promise((_, reject) => setTimeout(() => reject(new Error('enqueue deadlocked')), 8000)),
      ]);
      assert.ok(id);
    } finally {
      await queue.stop({ timeoutMs: 1000 });
    }
  });

  test('a task enqueued in a committed transaction is run by a worker; a rolled-back one never exists', async () => {
    const t = await startTestApp();
    try {
      const queue = await testQueue();
      const seen: string[] = [];
      // a kind reserved for this test would need a catalogue entry; the maintenance kind is real work
      await t.ctx.db.query(`insert into idempotency_keys (principal, key, request_hash, created_at) values ('queue-test', 'k', 'h', now() - interval '2 days')`);
      await queue.work('maintenance.cleanup', async (payload) => {
        seen.push(String(payload.marker));
        const { runMaintenance } = await import('../../src/workers/maintenance.ts');
        await runMaintenance(t.ctx);
      });
      await t.ctx.db.transaction((tx) => queue.enqueue(tx, 'maintenance.cleanup', { marker: 'committed' }));
      await t.ctx.db.transaction(async (tx) => {
        await queue.enqueue(tx, 'maintenance.cleanup', { marker: 'rolled-back' });
        throw new Error('abort');
      }).catch(() => {});
      await eventually(async () => seen.includes('committed'));
      await eventually(async () => (await t.ctx.db.query(`select 1 from idempotency_keys where principal = 'queue-test'`)).length === 0);
      await new Promise((r) => setTimeout(r, 1200));
      assert.deepEqual(seen.filter((s) => s === 'rolled-back'), []);
    } finally {
      await t.close();
    }
  });
});

describe('task queue wake-up', () => {
  test('a task enqueued in a transaction wakes this process\'s worker once the transaction commits, not at its next poll', async () => {
    const { openDb } = await import('../../src/db/db.ts');
    const { migrate } = await import('../../src/db/migrate.ts');
    const { freshPostgresUrl } = await import('../support/db.ts');
    const { startQueue } = await import('../../src/queue/queue.ts');
    // a database of its own: no other test's worker takes the task
    const db = await openDb({ databaseUrl: await freshPostgresUrl(), dataDir: 'memory://', poolSize: 4 });
    await migrate(db);
    const queue = await startQueue(db, { workers: true, pollingIntervalSeconds: 20 });
    try {
      let ranAt = 0;
      await queue.work('maintenance.cleanup', async () => { ranAt = performance.now(); });
      await new Promise((r) => setTimeout(r, 500)); // the worker's first fetch is behind it
      // the commit comes well after the enqueue (a slow request): a wake-up timed from the enqueue finds nothing
      await db.transaction(async (tx) => {
        await queue.enqueue(tx, 'maintenance.cleanup', { marker: 'late-commit' });
        await new Promise((r) => setTimeout(r, 200));
      });
      const committedAt = performance.now();
      await eventually(async () => ranAt > 0, 8000, 10);
      assert.ok(ranAt - committedAt < 3000, `run ${(ranAt - committedAt).toFixed(0)} ms after the commit (the poll is every 20 s)`);
    } finally {
      await queue.stop({ timeoutMs: 1000 });
      await db.close();
    }
  });
});

describe('how a berth server process starts', () => {
  test('npm start and the berth command give Node the server flags (src/cli/server-flags.ts) and enter through bin/berth.mjs', () => {
    const start: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start;
    const shebang = readFileSync(join(root, 'bin/berth.mjs'), 'utf8').split('\n')[0]!;
    assert.equal(start, `node ${SERVER_NODE_FLAGS.join(' ')} bin/berth.mjs serve`);
    assert.equal(shebang, `#!/usr/bin/env -S node ${SERVER_NODE_FLAGS.join(' ')}`);
  });

  test('with its modules in the compile cache, a berth command never loads the TypeScript stripper', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-compile-cache-'));
    const report = join(dir, 'amaro');
    // written when the command exits: whether Node loaded amaro (its TypeScript stripper)
    const probe = join(dir, 'probe.cjs');
    writeFileSync(probe, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, String(process.moduleLoadList.some((m) => m.includes('amaro')))));`);
    const run = () => {
      const r = spawnSync(process.execPath, ['--require', probe, join(root, 'bin/berth.mjs'), 'openapi'], {
        env: { PATH: process.env.PATH ?? '', NODE_COMPILE_CACHE: join(dir, 'cache'), DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent' },
        encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024,
      });
      assert.equal(r.status, 0, r.stderr);
      return readFileSync(report, 'utf8');
    };
    assert.equal(run(), 'true'); // the first run strips and fills the cache
    assert.equal(run(), 'false');
  });

  // the system's Node (Debian's is 20) runs bin/berth.mjs, which must re-execute with the Node 24
  // the project installs (node_modules/node) rather than fail on an import Node 20 lacks
  const olderNode = ['/usr/bin/node', '/usr/local/bin/node'].find((path) => existsSync(path)
    && Number(spawnSync(path, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout) < 24);
  test('an older Node runs the berth command through the project\'s Node 24', { skip: olderNode ? false : 'no Node older than 24 on this machine' }, () => {
    const r = spawnSync(olderNode!, [join(root, 'bin/berth.mjs'), '--help'], {
      env: { PATH: '/usr/bin:/bin', DATA_DIR: mkdtempSync(join(tmpdir(), 'berth-old-node-')), LOG_LEVEL: 'silent' },
      encoding: 'utf8', timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Usage: berth/);
  });
});
