// The live streams of one process (PGlite or PostgreSQL), over a real listening server: lines
// arrive as they are written, a reconnect with Last-Event-ID (or ?cursor=) loses and repeats
// nothing, deployment streams end with the final record, environment statuses follow changes,
// and the usual 400/401/403/404 bodies come before any stream starts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { insertLog } from '../../src/modules/deployments/deployments.repo.ts';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { seedEnvironment, seedService, type SeededEnvironment } from '../support/factories.ts';
import { eventually, expectErrorBody, listenOnLoopback, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { openStream } from '../support/sse.ts';

describe('live streams', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let other: SeededOrganization;
  let env: SeededEnvironment;
  let base = '';
  before(async () => {
    t = await startTestApp({ simulated: { stepMs: 40 } });
    await startDeploymentWorkers(t.ctx);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    org = await seedOrganization(t);
    other = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(async () => { await t.close(); });

  test("a service's stream: the tail first, then lines as they are written, in order", async () => {
    const svc = await seedService(t, env, 'CONTAINER', { image_name: 'nginx', tag: '1' });
    for (let i = 1; i <= 5; i++) await insertLog(t.ctx.db, null, svc, 'RUNTIME', `old ${i}`);
    const s = await openStream(`${base}/container/${svc}/log/stream?tail=3`, org.token);
    assert.equal(s.status, 200);
    assert.match(s.headers.get('content-type')!, /^text\/event-stream/);
    assert.ok(s.headers.get('x-request-id'));
    await s.until((e) => e.length === 3);
    assert.deepEqual(s.events.map((e) => e.data.message), ['old 3', 'old 4', 'old 5']);
    const started = Date.now();
    await insertLog(t.ctx.db, null, svc, 'RUNTIME', 'live 1');
    await s.until((e) => e.length === 4);
    assert.ok(Date.now() - started < 2000, 'a live line arrives on notification, not on the slow poll');
    const line = s.events[3]!;
    assert.equal(line.event, 'log');
    assert.deepEqual(Object.keys(line.data).sort(), ['created_at', 'deployment_id', 'id', 'kind', 'message', 'service_id']);
    assert.equal(line.data.kind, 'RUNTIME');
    assert.equal(line.data.service_id, svc);
    // the same line as the paged endpoint returns it
    const paged = await t.request('GET', `/container/${svc}/log?tail=1`, { token: org.token });
    assert.deepEqual(paged.body.results[0], line.data);
    s.close();
  });

  test('reconnecting with Last-Event-ID (or ?cursor=) continues strictly after it', async () => {
    const svc = await seedService(t, env, 'CONTAINER', { image_name: 'nginx', tag: '1' });
    const first = await openStream(`${base}/container/${svc}/log/stream?tail=0`, org.token);
    for (let i = 1; i <= 4; i++) await insertLog(t.ctx.db, null, svc, 'RUNTIME', `line ${i}`);
    await first.until((e) => e.length === 4);
    first.close();
    const cursor = first.events[1]!.id!;
    // written while nobody listens
    for (let i = 5; i <= 7; i++) await insertLog(t.ctx.db, null, svc, 'RUNTIME', `line ${i}`);
    const resumed = await openStream(`${base}/api/v1/container/${svc}/log/stream`, org.token, { 'last-event-id': cursor });
    await resumed.until((e) => e.length >= 5);
    await insertLog(t.ctx.db, null, svc, 'RUNTIME', 'line 8');
    await resumed.until((e) => e.length === 6);
    assert.deepEqual(resumed.events.map((e) => e.data.message), ['line 3', 'line 4', 'line 5', 'line 6', 'line 7', 'line 8']);
    resumed.close();
    const byQuery = await openStream(`${base}/container/${svc}/log/stream?cursor=${encodeURIComponent(resumed.events[4]!.id!)}`, org.token);
    await byQuery.until((e) => e.length === 1);
    assert.equal(byQuery.events[0]!.data.message, 'line 8');
    byQuery.close();
  });

  test("a deployment's stream: every line, status changes, then end with the final record", async () => {
    const svc = await seedService(t, env, 'CONTAINER', { image_name: 'nginx', tag: '1' });
    const d = await t.request('POST', `/container/${svc}/deploy`, { token: org.token });
    assert.equal(d.status, 202);
    const s = await openStream(`${base}/deployment/${d.body.id}/log/stream`, org.token);
    await s.ended;
    const kinds = s.events.map((e) => e.event);
    assert.equal(kinds.at(-1), 'end');
    assert.equal(s.events.at(-1)!.data.status, 'DEPLOYED');
    assert.equal(s.events.at(-1)!.data.id, d.body.id);
    const statuses = s.events.filter((e) => e.event === 'status').map((e) => e.data.status);
    assert.ok(statuses.includes('DEPLOYED'), statuses.join());
    assert.equal(new Set(statuses).size, statuses.length, 'a status is announced once');
    const lines = s.events.filter((e) => e.event === 'log').map((e) => e.data.id);
    const paged = await t.request('GET', `/deployment/${d.body.id}/log?page_size=100`, { token: org.token });
    assert.deepEqual(lines, paged.body.results.map((l: { id: string }) => l.id));
    // resuming mid-stream replays neither lines nor the statuses already announced
    const mid = s.events.findIndex((e) => e.event === 'log') + 2;
    const again = await openStream(`${base}/deployment/${d.body.id}/log/stream`, org.token, { 'last-event-id': s.events[mid]!.id! });
    await again.ended;
    assert.deepEqual(
      again.events.map((e) => `${e.event}:${e.event === 'log' ? e.data.id : e.data.status}`),
      s.events.slice(mid + 1).map((e) => `${e.event}:${e.event === 'log' ? e.data.id : e.data.status}`));
  });

  test("an environment's stream: a snapshot per service, then each change", async () => {
    const e2 = await seedEnvironment(t, org);
    const a = await seedService(t, e2, 'CONTAINER', { image_name: 'nginx', tag: '1' }, 'alpha');
    const b = await seedService(t, e2, 'CONTAINER', { image_name: 'nginx', tag: '1' }, 'beta');
    const s = await openStream(`${base}/environment/${e2.id}/status/stream`, org.token);
    await s.until((e) => e.length === 2);
    // two inserts can share a created_at on PGlite (then the order is by id): the set is the point
    assert.deepEqual(s.events.map((e) => e.data.name).sort(), ['alpha', 'beta']);
    assert.deepEqual(Object.keys(s.events[0]!.data).sort(),
      ['last_deployment_date', 'last_deployment_id', 'last_deployment_status', 'name', 'service_id', 'service_type', 'state']);
    assert.equal(s.events[0]!.data.last_deployment_id, null);
    const d = await t.request('POST', `/container/${b}/deploy`, { token: org.token });
    await s.until((e) => e.some((x) => x.data.service_id === b && x.data.state === 'RUNNING' && x.data.last_deployment_status === 'DEPLOYED'));
    const forB = s.events.filter((e) => e.data.service_id === b);
    assert.ok(forB.every((e) => e.data.last_deployment_id === null || e.data.last_deployment_id === d.body.id));
    assert.equal(s.events.filter((e) => e.data.service_id === a).length, 1, 'an untouched service is not repeated');
    s.close();
  });

  test('a client that stops reading holds back the reads, not the memory; it then gets every line', async () => {
    const svc = await seedService(t, env, 'CONTAINER', { image_name: 'nginx', tag: '1' });
    const socket = net.connect((t.app.server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(`GET /container/${svc}/log/stream?tail=0 HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${org.token}\r\n\r\n`);
    socket.pause();
    await new Promise((r) => setTimeout(r, 200));
    const LINES = 10_000;
    const padding = 'x'.repeat(2000);
    for (let i = 0; i < LINES; i += 1000) {
      await t.ctx.db.query(
        `insert into deployment_logs (service_id, kind, message) select $1, 'RUNTIME', 'n' || g || ' ' || $2 from generate_series($3::int, $4::int) g`,
        [svc, padding, i + 1, i + 1000]);
    }
    await new Promise((r) => setTimeout(r, 1500));
    // about 20 MB was written for this stream; the server holds at most a batch of it
    const held = t.ctx.services.streams.bufferedBytes();
    assert.ok(held < 2_000_000, `held ${held} bytes for a client that does not read`);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => { text += c; });
    socket.resume();
    const received = await (async () => {
      for (let i = 0; i < 200; i++) {
        const n = text.match(/^event: log$/gm)?.length ?? 0;
        if (n >= LINES) return n;
        await new Promise((r) => setTimeout(r, 100));
      }
      return text.match(/^event: log$/gm)?.length ?? 0;
    })();
    socket.destroy();
    assert.equal(received, LINES);
    const numbers = [...text.matchAll(/"message":"n(\d+) /g)].map((m) => Number(m[1]));
    assert.deepEqual(numbers, Array.from({ length: LINES }, (_, i) => i + 1));
  });

  test('PostgreSQL: after the LISTEN connection is lost, it comes back and lines flow again', { skip: process.env.DATABASE_URL ? false : 'PostgreSQL only' }, async () => {
    const svc = await seedService(t, env, 'CONTAINER', { image_name: 'nginx', tag: '1' });
    const s = await openStream(`${base}/container/${svc}/log/stream?tail=0`, org.token);
    await insertLog(t.ctx.db, null, svc, 'RUNTIME', 'before');
    await s.until((e) => e.length === 1);
    const listening = () => t.ctx.db.query<{ pid: number; query: string }>(
      `select pid, query from pg_stat_activity where application_name = 'berth-live-streams' and datname = current_database()`);
    const old = await listening();
    assert.equal(old.length, 1, 'one LISTEN connection per process');
    await t.ctx.db.query('select pg_terminate_backend($1)', [old[0]!.pid]);
    await insertLog(t.ctx.db, null, svc, 'RUNTIME', 'while reconnecting');
    // a new connection listens again (after a 1 s pause); the line written meanwhile is not lost
    const renewed = await eventually(async () => {
      const now = await listening();
      return now.length === 1 && now[0]!.pid !== old[0]!.pid && /^LISTEN/.test(now[0]!.query) && now[0];
    }, 10_000, 100);
    assert.ok(renewed);
    await s.until((e) => e.length === 2, 6000);
    await insertLog(t.ctx.db, null, svc, 'RUNTIME', 'after');
    await s.until((e) => e.length === 3, 6000);
    assert.deepEqual(s.events.map((e) => e.data.message), ['before', 'while reconnecting', 'after']);
    s.close();
  });

  test('a quiet stream carries a keep-alive comment', async () => {
    const svc = await seedService(t, env, 'CONTAINER', { image_name: 'nginx', tag: '1' });
    // an app of its own with a short keep-alive period (the periods are its streams service's)
    const quick = await startTestApp({ tuning: { streams: { keepAliveMs: 100 } } });
    try {
      const s = await openStream(`${await listenOnLoopback(quick)}/container/${svc}/log/stream`, org.token);
      await eventually(async () => s.comments.length >= 2, 5000, 20);
      assert.ok(s.comments.every((c) => c === 'keep-alive'));
      assert.equal(s.events.length, 0);
      s.close();
    } finally {
      await quick.close();
    }
  });

  test('the usual errors come before any stream: 401, 404, 403 for another organization, 400', async () => {
    const svc = await seedService(t, env, 'CONTAINER', { image_name: 'nginx', tag: '1' });
    const noAuth = await fetch(`${base}/container/${svc}/log/stream`);
    assert.equal(noAuth.status, 401);
    const noAuthBody = await noAuth.text();
    expectErrorBody({ status: 401, body: JSON.parse(noAuthBody), headers: {}, raw: noAuthBody }, 401);
    const foreign = await openStream(`${base}/container/${svc}/log/stream`, other.token);
    assert.equal(foreign.status, 403);
    assert.equal(foreign.error.code, 'forbidden');
    const wrongType = await openStream(`${base}/application/${svc}/log/stream`, org.token);
    assert.equal(wrongType.status, 404);
    const missing = await openStream(`${base}/deployment/${crypto.randomUUID()}/log/stream`, org.token);
    assert.equal(missing.status, 404);
    assert.equal(missing.error.status, 404);
    const foreignEnv = await openStream(`${base}/environment/${env.id}/status/stream`, other.token);
    assert.equal(foreignEnv.status, 403);
    const badCursor = await openStream(`${base}/container/${svc}/log/stream`, org.token, { 'last-event-id': 'nonsense' });
    assert.equal(badCursor.status, 400);
    assert.equal(badCursor.error.code, 'invalid_cursor');
    const badTail = await openStream(`${base}/container/${svc}/log/stream?tail=20000`, org.token);
    assert.equal(badTail.status, 400);
  });
});

describe('live streams: the order of writing transactions', () => {
  let t: TestApp;
  before(async () => { t = await startTestApp(); });
  after(async () => { await t.close(); });

  test('lines are ordered by transaction id as a number, not as text (99 before 100)', async () => {
    const { linesAfter, lastLines, settledHorizon, START } = await import('../../src/modules/streams/streams.repo.ts');
    const org = await seedOrganization(t);
    const env = await seedEnvironment(t, org);
    const svc = await seedService(t, env, 'CONTAINER', { image_name: 'nginx', tag: '1' });
    // two lines written by (settled) transactions whose ids have different digit counts: 10^k - 1 and 10^k
    const now = BigInt((await t.ctx.db.query<{ x: string }>('select pg_current_xact_id()::text as x'))[0]!.x);
    let power = 10n;
    while (power * 10n < now) power *= 10n;
    await t.ctx.db.query(`insert into deployment_logs (service_id, kind, message, tx) values ($1, 'RUNTIME', 'first', $2::xid8), ($1, 'RUNTIME', 'second', $3::xid8)`,
      [svc, String(power - 1n), String(power)]);
    const f = { column: 'service_id' as const, value: svc };
    assert.deepEqual((await linesAfter(t.ctx.db, f, START, 10)).map((l) => l.message), ['first', 'second']);
    assert.deepEqual((await lastLines(t.ctx.db, f, 1)).map((l) => l.message), ['second']);
    assert.equal((await settledHorizon(t.ctx.db, f)).tx, String(power));
  });
});
