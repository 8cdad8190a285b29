// Long connections through the real HAProxy while routes change (decision 0334): a WebSocket and
// an SSE stream to one route (the ws-app script as a local process) keep receiving while another
// route is switched 10 times, scaled, added and removed, with keep-alive clients that never send
// a request again seeing no error; the slot pool growing by a reload keeps them too; drain()
// waits while a connection to a replaced upstream is open and returns at once when none is.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHaproxyIngress, findHaproxy, stopIngress, type HaproxyOptions, type Ingress } from '../../src/engine/ingress/haproxy.ts';
import { freePort } from '../support/processes.ts';
import { namedServer, steadyLoad, type NamedServer } from '../support/http-load.ts';
import { openSse, openWebSocket, received, startLocalApp, type Stream } from '../support/ws-app.ts';

const required = process.env.BERTH_REQUIRE_DOCKER === '1';
const skip = !findHaproxy() && !required ? 'no haproxy binary (install haproxy or set HAPROXY_BIN); BERTH_REQUIRE_DOCKER=1 makes this a failure' : false;
const quiet = { info() {}, warn() {} };
const port = (address: string) => Number(new URL(address).port);

describe('ingress: connections across route changes', { skip }, () => {
  let dataDir: string;
  let opts: HaproxyOptions;
  let ingress: Ingress;
  const cleanup: Array<() => Promise<void> | void> = [];
  const server = async (name: string) => { const s = await namedServer(name); cleanup.push(() => s.stop()); return s; };
  const app = async (greeting: string) => { const a = await startLocalApp(greeting); cleanup.push(() => a.stop()); return a; };
  const streams = (host: string): Stream[] => {
    const both = [openWebSocket(port(ingress.address), host), openSse(port(ingress.address), host)];
    cleanup.push(() => both.forEach((s) => s.close()));
    return both;
  };

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'berth-ingress-'));
    // two slots: the third route makes the pool grow (a reload)
    opts = { dataDir, host: '127.0.0.1', port: await freePort(), logger: quiet, domain: 'localhost', initialSlots: 2 };
    ingress = createHaproxyIngress(opts);
    await ingress.ensure();
  });
  after(async () => {
    for (const c of cleanup.reverse()) await c();
    if (opts) await stopIngress(opts);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('a WebSocket and an SSE stream to one route keep receiving while another is switched 10 times, scaled, added and removed', async (t) => {
    const a = await app('a-v1');
    await ingress.upsert({ id: 'svc-a', hosts: ['a-0a1b2c3d.localhost'], upstreams: [a.dial] });
    let b: NamedServer = await server('b0');
    await ingress.upsert({ id: 'svc-b', hosts: ['b-0a1b2c3d.localhost'], upstreams: [b.dial] });
    const [ws, sse] = streams('a-0a1b2c3d.localhost');
    await Promise.all([received(ws!, 2), received(sse!, 2)]);
    const since = Date.now();
    const load = (host: string) => steadyLoad({ address: ingress.address, host, total: 1200, concurrency: 6, durationMs: 6000, retry: false });
    const [loadA, loadB] = [load('a-0a1b2c3d.localhost'), load('b-0a1b2c3d.localhost')];
    for (let i = 1; i <= 10; i++) {
      const next = await server(`b${i}`);
      await ingress.upsert({ id: 'svc-b', hosts: ['b-0a1b2c3d.localhost'], upstreams: [next.dial] });
      await new Promise((r) => setTimeout(r, 150));
      await b.stop();
      b = next;
      await new Promise((r) => setTimeout(r, 150));
    }
    const extra = await server('b-extra');
    await ingress.upsert({ id: 'svc-b', hosts: ['b-0a1b2c3d.localhost'], upstreams: [b.dial, extra.dial] });
    await new Promise((r) => setTimeout(r, 300));
    await ingress.upsert({ id: 'svc-b', hosts: ['b-0a1b2c3d.localhost'], upstreams: [b.dial] });
    const [resultA, resultB] = [await loadA, await loadB];
    const c = await server('c');
    await ingress.upsert({ id: 'svc-c', hosts: ['c-0a1b2c3d.localhost'], upstreams: [c.dial] }); // a third route: the pool grows
    await ingress.remove('svc-c');
    await ingress.remove('svc-b');
    await new Promise((r) => setTimeout(r, 1200));
    t.diagnostic(`WebSocket ${ws!.messages.length} frames, SSE ${sse!.messages.length} events; keep-alive A ${resultA.ok} ok, B ${resultB.ok} ok`);
    for (const s of [ws!, sse!]) {
      assert.equal(s.closedAt, null, 'still open');
      assert.ok(s.longestGap(since) < 1500, `a message every 500 ms, longest wait ${s.longestGap(since)} ms`);
    }
    assert.deepEqual([...resultA.failures, ...resultB.failures], [], 'keep-alive clients that never retry');
    assert.equal(resultA.ok + resultB.ok, 2400);
    assert.match(readFileSync(join(dataDir, 'ingress', 'haproxy.cfg'), 'utf8'), /backend berth-slot-3\n/, 'the slot pool grew to 4');
    assert.deepEqual((await ingress.list()).map((r) => r.id), ['svc-a']);
  });

  test('drain() waits while a connection to a replaced upstream is open, and returns at once when none is', async () => {
    const [v1, v2] = [await app('d-v1'), await app('d-v2')];
    const host = 'drain-0a1b2c3d.localhost';
    await ingress.upsert({ id: 'svc-drain', hosts: [host], upstreams: [v1.dial] });
    const [ws, sse] = streams(host);
    await Promise.all([received(ws!, 1), received(sse!, 1)]);
    await ingress.upsert({ id: 'svc-drain', hosts: [host], upstreams: [v2.dial] });
    let began = Date.now();
    assert.equal(await ingress.drain([v1.dial], 1500), 2, 'the WebSocket and the SSE stream to v1 are still open');
    assert.ok(Date.now() - began >= 1400, `waited the whole period (${Date.now() - began} ms)`);
    assert.equal(ws!.closedAt ?? sse!.closedAt, null, 'drain() closes nothing itself');
    const [fresh] = streams(host);
    await received(fresh!, 1);
    assert.match(fresh!.messages[0]!.text, /^d-v2 /);
    began = Date.now();
    const waiting = ingress.drain([v1.dial], 10_000);
    await new Promise((r) => setTimeout(r, 300));
    await v1.stop();
    assert.equal(await waiting, 0);
    assert.ok(Date.now() - began < 3000, `returned once the connection closed (${Date.now() - began} ms)`);
    began = Date.now();
    assert.equal(await ingress.drain([v1.dial, '127.0.0.1:9'], 10_000), 0);
    assert.ok(Date.now() - began < 1000, 'nothing open: no wait');
    assert.equal(fresh!.closedAt, null);
    // the replaced server, without connections now, is deleted by the next edit
    await ingress.remove('svc-drain');
    assert.equal(await ingress.drain([v2.dial], 100), 2, 'the streams to v2 outlive its route: an open connection is never cut by berth');
  });
});
