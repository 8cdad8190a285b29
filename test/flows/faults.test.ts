// Faults the service must survive: Redis unreachable (rate limits fall back to per-process
// counting with a warning), PostgreSQL unreachable for a while (503 with the error body,
// readiness red, recovery without a restart), and SIGTERM under load (nothing lost).
import { SERVER_NODE_FLAGS } from '../../src/cli/server-flags.ts';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createContext } from '../../src/context.ts';
import { openDb } from '../../src/db/db.ts';
import { CONSTRAINT_MESSAGES } from '../../src/modules/constraints.ts';
import { buildApp } from '../../src/http/app.ts';
import { createRateLimiter } from '../../src/http/rate-limit.ts';
import { createSealer } from '../../src/lib/crypto.ts';
import { VERSION } from '../../src/runtime.ts';
import { testDatabase } from '../support/db.ts';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { startWebhookWorkers } from '../../src/workers/handlers.ts';
import { seedEnvironment, seedService } from '../support/factories.ts';
import { eventually, seedOrganization, startTestApp, testConfig, testQueue } from '../support/harness.ts';

const root = new URL('../..', import.meta.url).pathname;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

describe('Redis faults', () => {
  test('with Redis unreachable the limiter counts per process and warns once', async () => {
    const logs: string[] = [];
    const logger = pino({ level: 'warn' }, new Writable({ write(chunk, _enc, cb) { logs.push(String(chunk)); cb(); } }));
    const port = await freePort();
    const limiter = await createRateLimiter({ limit: 3, redisUrl: `redis://127.0.0.1:${port}`, logger });
    try {
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push(await limiter.hit('fallback-key'));
      assert.deepEqual(decisions.map((d) => d.allowed), [true, true, true, false]);
      assert.equal(logs.filter((l) => l.includes('Redis unreachable')).length, 1);
    } finally {
      await limiter.close();
    }
  });

  test('with Redis, two processes share one budget', { skip: !process.env.REDIS_URL && 'REDIS_URL is not set' }, async () => {
    const a = await createRateLimiter({ limit: 5, redisUrl: process.env.REDIS_URL });
    const b = await createRateLimiter({ limit: 5, redisUrl: process.env.REDIS_URL });
    try {
      const key = `shared-${Date.now()}-${Math.random()}`;
      let allowed = 0;
      for (let i = 0; i < 6; i++) {
        if ((await a.hit(key)).allowed) allowed++;
        if ((await b.hit(key)).allowed) allowed++;
      }
      assert.equal(allowed, 5);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('PostgreSQL outage', () => {
  test('requests get 503 with the error body while the database is away, and recover by themselves', { skip: !process.env.DATABASE_URL && 'DATABASE_URL is not set' }, async () => {
    const { url } = await testDatabase();
    const target = new URL(url!);
    const sockets = new Set<net.Socket>();
    const port = await freePort();
    let proxy: net.Server | undefined;
    const open = () => new Promise<void>((resolve) => {
      proxy = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        sockets.add(client);
        sockets.add(upstream);
        client.pipe(upstream).pipe(client);
        const drop = () => { client.destroy(); upstream.destroy(); };
        client.on('error', drop);
        upstream.on('error', drop);
      }).listen(port, '127.0.0.1', () => resolve());
    });
    const cut = () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      proxy!.close(() => resolve());
    });
    await open();
    const viaProxy = new URL(url!);
    viaProxy.port = String(port);
    const db = await openDb({ databaseUrl: viaProxy.toString(), dataDir: 'memory://', poolSize: 4, constraints: CONSTRAINT_MESSAGES });
    const config = testConfig();
    const logger = pino({ level: 'silent' });
    const ctx = createContext({
      version: VERSION, config, db, logger, queue: await testQueue(),
      sealer: createSealer(Buffer.from(config.encryptionKey!, 'base64')),
      rateLimiter: await createRateLimiter({ limit: 1000 }),
    });
    const app = await buildApp(ctx);
    const seeded = await startTestApp();
    const org = await seedOrganization(seeded);
    await seeded.close();
    try {
      const ok = await app.inject({ method: 'GET', url: `/organization/${org.id}`, headers: { authorization: `Token ${org.token}` } });
      assert.equal(ok.statusCode, 200);
      await cut();
      const down = await app.inject({ method: 'GET', url: `/organization/${org.id}/apiToken`, headers: { authorization: `Token ${org.token}` } });
      assert.equal(down.statusCode, 503);
      const body = JSON.parse(down.body);
      assert.equal(body.status, 503);
      assert.equal(body.error, 'Service Unavailable');
      assert.equal(body.code, 'database_unavailable');
      assert.doesNotMatch(body.message, /ECONN|127\.0\.0\.1|pg/i, 'no internal detail');
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      await open();
      await eventually(async () => (await app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200, 15_000, 250);
      const back = await app.inject({ method: 'GET', url: `/organization/${org.id}/apiToken`, headers: { authorization: `Token ${org.token}` } });
      assert.equal(back.statusCode, 200);
    } finally {
      await app.close();
      await db.close();
      await cut().catch(() => {});
    }
  });
});

describe('graceful shutdown', () => {
  test('SIGTERM under load: every accepted request is answered and the process exits 0', async () => {
    const port = await freePort();
    const token = 'shutdown-test-token-0123456789abcdefghij';
    const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, join(root, 'bin/berth.mjs'), 'serve'], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: mkdtempSync(join(tmpdir(), 'berth-shutdown-')), BOOTSTRAP_TOKEN: token, LOG_LEVEL: 'warn', ENGINE: 'simulated' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${port}`;
    await eventually(async () => (await fetch(`${base}/readyz`).catch(() => null))?.status === 200, 60_000, 200);
    const orgs = await (await fetch(`${base}/organization`, { headers: { authorization: `Token ${token}` } })).json() as { results: Array<{ id: string }> };
    const orgId = orgs.results[0]!.id;
    const outcomes: string[] = [];
    const inflight = Array.from({ length: 40 }, (_, i) =>
      fetch(`${base}/organization/${orgId}/apiToken`, {
        method: 'POST', headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `during-shutdown-${i}`, role: 'VIEWER' }),
      }).then((r) => outcomes.push(String(r.status)), (err: Error & { cause?: { code?: string } }) => outcomes.push(err.cause?.code ?? err.message)));
    await new Promise((r) => setTimeout(r, 15));
    child.kill('SIGTERM');
    await Promise.all(inflight);
    assert.equal(await exited, 0, stderr);
    const answered = outcomes.filter((o) => o === '201').length;
    const refused = outcomes.filter((o) => o === 'ECONNREFUSED').length;
    assert.equal(answered + refused, 40, `every request was answered or never accepted: ${outcomes.join(',')}`);
    assert.ok(answered > 0, 'some requests were in flight');
  });
});

describe('webhook receiver outage', () => {
  test('events raised while the receiver is down all arrive, once each, when it comes back', async () => {
    const port = await freePort();
    const t = await startTestApp({ config: { webhookAllowPrivateTargets: true }, tuning: { webhookRetries: { baseDelayMs: 300 } }, simulated: { stepMs: 30 } });
    const { createServer } = await import('node:http');
    const received: Array<{ id: string; type: string }> = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        received.push({ id: String(req.headers['webhook-id']), type: JSON.parse(body).event_type });
        res.writeHead(200).end();
      });
    });
    try {
      await startDeploymentWorkers(t.ctx);
      await startWebhookWorkers(t.ctx);
      const org = await seedOrganization(t);
      const hook = await t.request('POST', `/organization/${org.id}/webhook`, { token: org.token, body: {
        target_url: `http://127.0.0.1:${port}/down`, events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED'], enabled: true,
      } });
      assert.equal(hook.status, 201, hook.raw);
      const env = await seedEnvironment(t, org);
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const app = await seedService(t, env, 'APPLICATION');
        ids.push((await t.request('POST', `/application/${app}/deploy`, { token: org.token, body: {} })).body.id);
      }
      await eventually(async () => {
        const statuses = await Promise.all(ids.map(async (id) => (await t.request('GET', `/deployment/${id}`, { token: org.token })).body.status));
        return statuses.every((s) => s === 'DEPLOYED');
      }, 30_000, 200);
      // the receiver has been refusing connections all along; let a few attempts fail
      await eventually(async () => (await t.ctx.db.query<{ n: number }>(
        `select count(*)::int as n from webhook_attempts a join webhook_events e on e.id = a.event_id where e.webhook_id = $1`, [hook.body.id]))[0]!.n >= 4, 15_000, 100);
      assert.equal(received.length, 0);
      await new Promise<void>((r) => receiver.listen(port, '127.0.0.1', r));
      await eventually(async () => received.length >= 4, 30_000, 100);
      await new Promise((r) => setTimeout(r, 1000));
      assert.deepEqual(received.map((r) => r.type).sort(), ['DEPLOYMENT_STARTED', 'DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED', 'DEPLOYMENT_SUCCEEDED']);
      assert.equal(new Set(received.map((r) => r.id)).size, 4, 'each event once');
    } finally {
      receiver.close();
      await t.close();
    }
  });
});
