// The ingress against the real caddy binary: a detached Caddy on free loopback ports in a temp
// data dir, upstreams being small Node HTTP servers. Host routing, the catch-all 404, gapless
// upstream switches and replica loss under steady load, adoption by a new Ingress object (a
// berth restart), Caddy's own restart keeping the routes, and the port conflicts' errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCaddyIngress, findCaddy, stopCaddy, type CaddyOptions, type Ingress } from '../../src/engine/ingress/caddy.ts';
import { freePort } from '../support/processes.ts';
import { namedServer, steadyLoad, type NamedServer } from '../support/http-load.ts';

const caddy = findCaddy();
const required = process.env.BERTH_REQUIRE_DOCKER === '1';
const skip = !caddy && !required ? 'no caddy binary (install caddy or set CADDY_BIN); BERTH_REQUIRE_DOCKER=1 makes this a failure' : false;

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

describe('ingress: Caddy through its admin API', { skip }, () => {
  let dataDir: string;
  let opts: CaddyOptions;
  let ingress: Ingress;
  const servers: NamedServer[] = [];
  const upstream = async (name: string) => { const s = await namedServer(name); servers.push(s); return s; };

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'berth-ingress-'));
    opts = { dataDir, host: '127.0.0.1', port: await freePort(), adminPort: await freePort(), logger: quiet, domain: 'localhost' };
    ingress = createCaddyIngress(opts);
    await ingress.ensure();
  });

  after(async () => {
    if (opts) await stopCaddy(opts);
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
    t.diagnostic(`keep-alive: ${result.ok} ok, ${result.retried} GETs re-sent after an idle connection closed at the reload; fresh connections: ${fresher.ok} ok`);
    assert.deepEqual([...result.failures, ...fresher.failures], []);
    assert.equal(result.ok, 2000);
    assert.equal(fresher.ok, 400);
    // a new connection opened in the instant Caddy swaps its listener is reset before any answer
    // and sent again once (0330; seen once in four CI runs): never more than one per connection
    assert.ok(fresher.retried <= 4, `at most one re-send per fresh connection in flight: ${fresher.retried}`);
    assert.ok(result.retried <= 10, `at most one re-send per open keep-alive connection: ${result.retried}`);
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
    // on a failure, Caddy's own account of it (its log) says which upstream and which error
    const caddyErrors = () => readFileSync(join(dataDir, 'ingress', 'caddy.log'), 'utf8').split('\n').filter((l) => /"level":"error"/.test(l)).slice(-5).join('\n');
    assert.deepEqual(result.failures, [], result.failures.length ? caddyErrors() : '');
    assert.equal(result.ok, 1500);
    assert.ok(result.retried <= 10, `re-sent GETs: ${result.retried}`);
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

  test('a new Ingress object (berth restarted) adopts the running Caddy while it keeps serving', async () => {
    const a = await upstream('steady');
    const host = 'steady-0a1b2c3d.localhost';
    await ingress.upsert({ id: 'svc-steady', hosts: [host], upstreams: [a.dial] });
    const pid = readFileSync(join(dataDir, 'ingress', 'caddy.pid'), 'utf8');
    const load = steadyLoad({ address: ingress.address, host, total: 600, concurrency: 6, durationMs: 1500 });
    await new Promise((r) => setTimeout(r, 400));
    const logs: string[] = [];
    const restarted = createCaddyIngress({ ...opts, logger: { info: (_o, m) => logs.push(String(m)), warn: (_o, m) => logs.push(String(m)) } });
    await restarted.ensure();
    const result = await load;
    assert.deepEqual(result.failures, []);
    assert.match(logs.join('\n'), /adopted the running Caddy/);
    assert.equal(readFileSync(join(dataDir, 'ingress', 'caddy.pid'), 'utf8'), pid, 'no second Caddy started');
    assert.deepEqual((await restarted.list()).find((r) => r.id === 'svc-steady'), { id: 'svc-steady', hosts: [host], upstreams: [a.dial] });
    ingress = restarted;
  });

  test('Caddy stopped and started again comes back with its routes (autosave, --resume)', async () => {
    const a = await upstream('durable');
    const host = 'durable-0a1b2c3d.localhost';
    await ingress.upsert({ id: 'svc-durable', hosts: [host], upstreams: [a.dial] });
    await stopCaddy(opts);
    await assert.rejects(get(ingress.address, host));
    const fresh = createCaddyIngress(opts);
    await fresh.ensure();
    assert.deepEqual(await get(fresh.address, host), { status: 200, body: 'durable' });
    assert.equal((await get(fresh.address, 'nobody.localhost')).status, 404);
    ingress = fresh;
  });

  test('a Caddy killed outside berth is started again, with its saved routes, by the next call', async () => {
    const a = await upstream('phoenix');
    const host = 'phoenix-0a1b2c3d.localhost';
    await ingress.upsert({ id: 'svc-phoenix', hosts: [host], upstreams: [a.dial] });
    const pid = Number(readFileSync(join(dataDir, 'ingress', 'caddy.pid'), 'utf8'));
    process.kill(pid, 'SIGKILL');
    await eventuallyRejects(() => get(ingress.address, host));
    assert.equal((await ingress.list()).some((r) => r.id === 'svc-phoenix'), true);
    assert.notEqual(Number(readFileSync(join(dataDir, 'ingress', 'caddy.pid'), 'utf8')), pid);
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

  test('adopting with another INGRESS_PORT moves the listener and keeps the routes', async () => {
    const a = await upstream('moved');
    const host = 'moved-0a1b2c3d.localhost';
    await ingress.upsert({ id: 'svc-moved', hosts: [host], upstreams: [a.dial] });
    const moved = { ...opts, port: await freePort() };
    const adopted = createCaddyIngress(moved);
    await adopted.ensure();
    assert.deepEqual(await get(adopted.address, host), { status: 200, body: 'moved' });
    await assert.rejects(get(ingress.address, host));
    opts = moved;
    ingress = adopted;
  });

  test('berth processes starting together end up with one Caddy, all of them serving its routes', async () => {
    const other = mkdtempSync(join(tmpdir(), 'berth-ingress-'));
    const shared = { ...opts, dataDir: other, port: await freePort(), adminPort: await freePort() };
    try {
      const starters = [1, 2, 3].map(() => createCaddyIngress(shared));
      await Promise.all(starters.map((s) => s.ensure()));
      const a = await upstream('together');
      await starters[0]!.upsert({ id: 'svc-together', hosts: ['together-0a1b2c3d.localhost'], upstreams: [a.dial] });
      for (const s of starters) assert.deepEqual((await s.list()).map((r) => r.id), ['svc-together']);
      assert.deepEqual(await get(starters[2]!.address, 'together-0a1b2c3d.localhost'), { status: 200, body: 'together' });
    } finally {
      await stopCaddy(shared);
      rmSync(other, { recursive: true, force: true });
    }
  });

  test('an admin port held by something else than berth\'s Caddy is one clear error naming INGRESS_ADMIN_PORT', async () => {
    const squatter = http.createServer((_q, s) => s.end('hello'));
    await new Promise<void>((r) => squatter.listen(0, '127.0.0.1', r));
    const adminPort = (squatter.address() as net.AddressInfo).port;
    const other = mkdtempSync(join(tmpdir(), 'berth-ingress-'));
    try {
      const blocked = createCaddyIngress({ ...opts, dataDir: other, port: await freePort(), adminPort });
      await assert.rejects(blocked.ensure(), (err: Error) => /INGRESS_ADMIN_PORT/.test(err.message) && !err.message.includes('\n'));
    } finally {
      squatter.close();
      rmSync(other, { recursive: true, force: true });
    }
  });

  test('a listen port already taken is one clear error naming INGRESS_PORT', async () => {
    const taken = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => taken.once('listening', r));
    const port = (taken.address() as net.AddressInfo).port;
    const other = mkdtempSync(join(tmpdir(), 'berth-ingress-'));
    const blockedOpts = { ...opts, dataDir: other, port, adminPort: await freePort() };
    try {
      await assert.rejects(createCaddyIngress(blockedOpts).ensure(), (err: Error) => /INGRESS_PORT/.test(err.message) && !err.message.includes('\n'));
    } finally {
      await stopCaddy(blockedOpts);
      taken.close();
      rmSync(other, { recursive: true, force: true });
    }
  });

  test('berth ingress status lists the live routes; berth ingress stop stops the proxy', async () => {
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, INGRESS_PORT: String(opts.port), INGRESS_ADMIN_PORT: String(opts.adminPort) };
    const berth = (...args: string[]) => execFileSync(process.execPath, [join(import.meta.dirname, '../../src/cli/main.ts'), ...args], { env, encoding: 'utf8' });
    assert.match(berth('ingress', 'status'), /ingress: running \(pid \d+\), \d+ route\(s\)[^]*svc-switch: switch-0a1b2c3d\.localhost -> 127\.0\.0\.1:\d+/);
    assert.match(berth('ingress', 'stop'), /stopped Caddy/);
    await assert.rejects(get(ingress.address, 'switch-0a1b2c3d.localhost'));
    assert.match(berth('ingress', 'status'), /ingress: not running/);
    assert.match(berth('ingress', 'stop'), /no Caddy started from/);
  });
});
