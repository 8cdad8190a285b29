// The ingress against the real haproxy binary: a detached HAProxy on a free loopback port with its
// runtime socket in a temp data dir, upstreams being small Node HTTP servers. Host routing, the
// catch-all 404, gapless upstream switches and replica loss under steady load, adoption by a new
// Ingress object (a berth restart), HAProxy's own restart keeping the routes, and the errors of a
// taken port, a foreign socket and a data dir too long for one. Long connections across route
// changes: ingress-runtime.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHaproxyIngress, findHaproxy, stopIngress, type HaproxyOptions, type Ingress } from '../../src/engine/ingress/haproxy.ts';
import { ingressPaths, runtime } from '../../src/engine/ingress/haproxy-process.ts';
import { freePort } from '../support/processes.ts';
import { namedServer, steadyLoad, type NamedServer } from '../support/http-load.ts';

const haproxy = findHaproxy();
const required = process.env.BERTH_REQUIRE_DOCKER === '1';
const skip = !haproxy && !required ? 'no haproxy binary (install haproxy or set HAPROXY_BIN); BERTH_REQUIRE_DOCKER=1 makes this a failure' : false;

const quiet = { info() {}, warn() {} };

function get(address: string, host: string): Promise<{ status: number; body: string }> {
  const url = new URL(address);
  return new Promise((resolve, reject) => {
    http.get({ host: url.hostname, port: url.port, path: '/', headers: { Host: host }, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

async function eventuallyRejects(fn: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 50; i++) {
    try { await fn(); } catch { return; }
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail('still answering');
}

function count(bodies: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const b of bodies) out[b] = (out[b] ?? 0) + 1;
  return out;
}

describe('ingress: HAProxy through its runtime API', { skip }, () => {
  let dataDir: string;
  let opts: HaproxyOptions;
  let ingress: Ingress;
  const servers: NamedServer[] = [];
  const upstream = async (name: string) => { const s = await namedServer(name); servers.push(s); return s; };

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'berth-ingress-'));
    opts = { dataDir, host: '127.0.0.1', port: await freePort(), logger: quiet, domain: 'localhost' };
    ingress = createHaproxyIngress(opts);
    await ingress.ensure();
  });

  after(async () => {
    if (opts) await stopIngress(opts);
    await Promise.all(servers.map((s) => s.stop()));
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('routes by Host header; an unknown host gets the catch-all 404', async () => {
    const a = await upstream('alpha');
    await ingress.upsert({ id: 'svc-alpha', hosts: ['alpha-0a1b2c3d.localhost', 'p80-alpha-0a1b2c3d.localhost'], upstreams: [a.dial] });
    assert.equal(ingress.address, `http://127.0.0.1:${opts.port}`);
    assert.deepEqual(await get(ingress.address, 'alpha-0a1b2c3d.localhost'), { status: 200, body: 'alpha' });
    assert.deepEqual(await get(ingress.address, 'p80-alpha-0a1b2c3d.localhost'), { status: 200, body: 'alpha' });
    const unknown = await get(ingress.address, 'nobody.localhost');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body, /no berth service at this address/);
    const listed = (await ingress.list()).find((r) => r.id === 'svc-alpha');
    assert.deepEqual(listed, { id: 'svc-alpha', hosts: ['alpha-0a1b2c3d.localhost', 'p80-alpha-0a1b2c3d.localhost'], upstreams: [a.dial] });
  });

  test('input that is not a berth host or a loopback upstream never reaches the config', async () => {
    const a = await upstream('guarded');
    const before = JSON.stringify(await ingress.list());
    const bad = [
      { id: 'x', hosts: ['evil.example.com'], upstreams: [a.dial] },
      { id: 'x', hosts: ['localhost'], upstreams: [a.dial] },
      { id: 'x', hosts: ['a b.localhost'], upstreams: [a.dial] },
      { id: 'x', hosts: ['ok.localhost'], upstreams: ['10.0.0.1:80'] },
      { id: 'x', hosts: ['ok.localhost'], upstreams: ['127.0.0.1:0'] },
      { id: 'x', hosts: ['ok.localhost'], upstreams: ['127.0.0.1:80/../admin'] },
      { id: 'x', hosts: ['ok.localhost'], upstreams: [] },
      { id: '../config', hosts: ['ok.localhost'], upstreams: [a.dial] },
      { id: 'x', hosts: ['alpha-0a1b2c3d.localhost'], upstreams: [a.dial] }, // another route's host
    ];
    for (const route of bad) {
      await assert.rejects(ingress.upsert(route), (err: Error) => err.name === 'IngressInputError' && /ingress: /.test(err.message), JSON.stringify(route));
    }
    assert.equal(JSON.stringify(await ingress.list()), before);
  });

  test('switching upstreams under steady load fails no request and moves the traffic', async (t) => {
    const [v1, v2] = [await upstream('v1'), await upstream('v2')];
    const host = 'switch-0a1b2c3d.localhost';
    await ingress.upsert({ id: 'svc-switch', hosts: [host], upstreams: [v1.dial] });
    const load = steadyLoad({ address: ingress.address, host, total: 2000, concurrency: 10, durationMs: 4000 });
    const fresh = steadyLoad({ address: ingress.address, host, total: 400, concurrency: 4, durationMs: 4000, keepAlive: false });
    await new Promise((r) => setTimeout(r, 1500));
    const servedBefore = v2.served;
    await ingress.upsert({ id: 'svc-switch', hosts: [host], upstreams: [v2.dial] });
    const [result, fresher] = await Promise.all([load, fresh]);
    t.diagnostic(`keep-alive: ${result.ok} ok; fresh connections: ${fresher.ok} ok`);
    assert.deepEqual([...result.failures, ...fresher.failures], []);
    assert.equal(result.ok, 2000);
    assert.equal(fresher.ok, 400);
    // no reload: no connection is closed under a client, so none has a request to send again (0334)
    assert.equal(result.retried + fresher.retried, 0, 'no GET had to be sent again');
    const byName = count(result.bodies);
    assert.ok(byName.v1! > 300 && byName.v2! > 300, JSON.stringify(byName));
    assert.deepEqual(count(result.bodies.slice(-500)), { v2: 500 }, 'after the switch only the new upstream serves');
    assert.equal(servedBefore, 0, 'the new upstream took no traffic before the switch');
    assert.deepEqual((await ingress.list()).find((r) => r.id === 'svc-switch')?.upstreams, [v2.dial]);
  });

  test('two replicas share the traffic; one stopped and then removed fails no request', async () => {
    const [r1, r2] = [await upstream('r1'), await upstream('r2')];
    const host = 'replicas-0a1b2c3d.localhost';
    await ingress.upsert({ id: 'svc-replicas', hosts: [host], upstreams: [r1.dial, r2.dial] });
    const load = steadyLoad({ address: ingress.address, host, total: 1500, concurrency: 10, durationMs: 3000 });
    await new Promise((r) => setTimeout(r, 1000));
    const shared = { r1: r1.served, r2: r2.served };
    await r2.stop();
    await new Promise((r) => setTimeout(r, 500));
    await ingress.upsert({ id: 'svc-replicas', hosts: [host], upstreams: [r1.dial] });
    const result = await load;
    // on a failure, HAProxy's own account of it (its log) says which server and which error
    const proxyErrors = () => readFileSync(join(dataDir, 'ingress', 'haproxy.log'), 'utf8').split('\n').slice(-5).join('\n');
    assert.deepEqual(result.failures, [], result.failures.length ? proxyErrors() : '');
    assert.equal(result.ok, 1500);
    assert.equal(result.retried, 0, 're-sent GETs');
    assert.ok(shared.r1 > 50 && shared.r2 > 50, `round robin over both replicas: ${JSON.stringify(shared)}`);
    assert.deepEqual(count(result.bodies.slice(-300)), { r1: 300 });
  });

  test('a removed route answers the catch-all 404 again; removing it twice is fine', async () => {
    const a = await upstream('gone');
    const host = 'gone-0a1b2c3d.localhost';
    await ingress.upsert({ id: 'svc-gone', hosts: [host], upstreams: [a.dial] });
    assert.equal((await get(ingress.address, host)).status, 200);
    await ingress.remove('svc-gone');
    await ingress.remove('svc-gone');
    assert.equal((await get(ingress.address, host)).status, 404);
    assert.equal((await ingress.list()).some((r) => r.id === 'svc-gone'), false);
  });

  test('a new Ingress object (berth restarted) adopts the running HAProxy while it keeps serving', async () => {
    const a = await upstream('steady');
    const host = 'steady-0a1b2c3d.localhost';
    await ingress.upsert({ id: 'svc-steady', hosts: [host], upstreams: [a.dial] });
    const pid = readFileSync(join(dataDir, 'ingress', 'haproxy.pid'), 'utf8');
    const load = steadyLoad({ address: ingress.address, host, total: 600, concurrency: 6, durationMs: 1500 });
    await new Promise((r) => setTimeout(r, 400));
    const logs: string[] = [];
    const restarted = createHaproxyIngress({ ...opts, logger: { info: (_o, m) => logs.push(String(m)), warn: (_o, m) => logs.push(String(m)) } });
    await restarted.ensure();
    const result = await load;
    assert.deepEqual(result.failures, []);
    assert.match(logs.join('\n'), /adopted the running HAProxy/);
    assert.equal(readFileSync(join(dataDir, 'ingress', 'haproxy.pid'), 'utf8'), pid, 'no second HAProxy started');
    assert.deepEqual((await restarted.list()).find((r) => r.id === 'svc-steady'), { id: 'svc-steady', hosts: [host], upstreams: [a.dial] });
    ingress = restarted;
  });

  test('HAProxy stopped and started again comes back with its routes (routes.json)', async () => {
    const a = await upstream('durable');
    const host = 'durable-0a1b2c3d.localhost';
    await ingress.upsert({ id: 'svc-durable', hosts: [host], upstreams: [a.dial] });
    await stopIngress(opts);
    await assert.rejects(get(ingress.address, host));
    const fresh = createHaproxyIngress(opts);
    await fresh.ensure();
    assert.deepEqual(await get(fresh.address, host), { status: 200, body: 'durable' });
    assert.equal((await get(fresh.address, 'nobody.localhost')).status, 404);
    ingress = fresh;
  });

  test('an HAProxy killed outside berth is started again, with its saved routes, by the next call', async () => {
    const a = await upstream('phoenix');
    const host = 'phoenix-0a1b2c3d.localhost';
    await ingress.upsert({ id: 'svc-phoenix', hosts: [host], upstreams: [a.dial] });
    const pid = Number(readFileSync(join(dataDir, 'ingress', 'haproxy.pid'), 'utf8'));
    process.kill(pid, 'SIGKILL');
    // its worker follows the master: it stops listening, then its runtime socket goes too
    await eventuallyRejects(() => get(ingress.address, host));
    await eventuallyRejects(() => runtime(ingressPaths(dataDir).socket, 'show info'));
    assert.equal((await ingress.list()).some((r) => r.id === 'svc-phoenix'), true);
    assert.notEqual(Number(readFileSync(join(dataDir, 'ingress', 'haproxy.pid'), 'utf8')), pid);
    assert.deepEqual(await get(ingress.address, host), { status: 200, body: 'phoenix' });
  });

  test('concurrent upserts are applied one at a time: one route per id, the last call wins', async () => {
    const replicas = await Promise.all([1, 2, 3, 4, 5].map((n) => upstream(`c${n}`)));
    const host = 'busy-0a1b2c3d.localhost';
    await Promise.all([
      ...replicas.map((r) => ingress.upsert({ id: 'svc-busy', hosts: [host], upstreams: [r.dial] })),
      ...replicas.map((r, n) => ingress.upsert({ id: `svc-busy-${n}`, hosts: [`busy${n}-0a1b2c3d.localhost`], upstreams: [r.dial] })),
    ]);
    const routes = await ingress.list();
    assert.deepEqual(routes.filter((r) => r.id === 'svc-busy'), [{ id: 'svc-busy', hosts: [host], upstreams: [replicas[4]!.dial] }]);
    assert.equal(routes.filter((r) => r.id.startsWith('svc-busy-')).length, 5);
    assert.deepEqual(await get(ingress.address, host), { status: 200, body: 'c5' });
    assert.deepEqual(await get(ingress.address, 'busy2-0a1b2c3d.localhost'), { status: 200, body: 'c3' });
  });

  test('adopting with another INGRESS_PORT moves the listener (a reload) and keeps the routes', async () => {
    const a = await upstream('moved');
    const host = 'moved-0a1b2c3d.localhost';
    await ingress.upsert({ id: 'svc-moved', hosts: [host], upstreams: [a.dial] });
    const moved = { ...opts, port: await freePort() };
    const adopted = createHaproxyIngress(moved);
    await adopted.ensure();
    assert.deepEqual(await get(adopted.address, host), { status: 200, body: 'moved' });
    await assert.rejects(get(ingress.address, host));
    opts = moved;
    ingress = adopted;
  });

  test('berth processes starting together end up with one HAProxy, all of them serving its routes', async () => {
    const other = mkdtempSync(join(tmpdir(), 'berth-ingress-'));
    const shared = { ...opts, dataDir: other, port: await freePort() };
    try {
      const starters = [1, 2, 3].map(() => createHaproxyIngress(shared));
      await Promise.all(starters.map((s) => s.ensure()));
      const a = await upstream('together');
      await starters[0]!.upsert({ id: 'svc-together', hosts: ['together-0a1b2c3d.localhost'], upstreams: [a.dial] });
      for (const s of starters) assert.deepEqual((await s.list()).map((r) => r.id), ['svc-together']);
      assert.deepEqual(await get(starters[2]!.address, 'together-0a1b2c3d.localhost'), { status: 200, body: 'together' });
    } finally {
      await stopIngress(shared);
      rmSync(other, { recursive: true, force: true });
    }
  });

  test('a control socket held by something else than berth\'s HAProxy is one clear error', async () => {
    const other = mkdtempSync(join(tmpdir(), 'berth-ingress-'));
    mkdirSync(join(other, 'ingress'));
    const squatter = net.createServer((c) => c.end('hello\n'));
    await new Promise<void>((r) => squatter.listen(join(other, 'ingress', 'admin.sock'), r));
    try {
      const blocked = createHaproxyIngress({ ...opts, dataDir: other, port: await freePort() });
      await assert.rejects(blocked.ensure(), (err: Error) => /admin\.sock is held by .*not berth's HAProxy/.test(err.message) && !err.message.includes('\n'));
    } finally {
      squatter.close();
      rmSync(other, { recursive: true, force: true });
    }
  });

  test('a data dir too long for a unix socket path is one clear error naming DATA_DIR', async () => {
    const long = join(tmpdir(), 'berth-ingress-'.padEnd(120, 'x'));
    await assert.rejects(createHaproxyIngress({ ...opts, dataDir: long }).ensure(), (err: Error) => /use a shorter DATA_DIR/.test(err.message) && !err.message.includes('\n'));
  });

  test('a listen port already taken is one clear error naming INGRESS_PORT', async () => {
    const taken = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => taken.once('listening', r));
    const port = (taken.address() as net.AddressInfo).port;
    const other = mkdtempSync(join(tmpdir(), 'berth-ingress-'));
    const blockedOpts = { ...opts, dataDir: other, port };
    try {
      await assert.rejects(createHaproxyIngress(blockedOpts).ensure(), (err: Error) => /INGRESS_PORT/.test(err.message) && !err.message.includes('\n'));
    } finally {
      await stopIngress(blockedOpts);
      taken.close();
      rmSync(other, { recursive: true, force: true });
    }
  });

  test('berth ingress status lists the live routes; berth ingress stop stops the proxy', async () => {
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, INGRESS_PORT: String(opts.port) };
    const berth = (...args: string[]) => execFileSync(process.execPath, [join(import.meta.dirname, '../../src/cli/main.ts'), ...args], { env, encoding: 'utf8' });
    assert.match(berth('ingress', 'status'), /ingress: running \(pid \d+; host binary [^)]*haproxy\), \d+ route\(s\)[^]*svc-switch: switch-0a1b2c3d\.localhost -> 127\.0\.0\.1:\d+/);
    assert.match(berth('ingress', 'stop'), /stopped HAProxy/);
    await assert.rejects(get(ingress.address, 'switch-0a1b2c3d.localhost'));
    assert.match(berth('ingress', 'status'), /ingress: not running/);
    assert.match(berth('ingress', 'stop'), /no HAProxy started from/);
  });
});
