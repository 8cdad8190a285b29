// Readiness of a port berth does not publish (a PRIVATE database's, decision 0333): read from the
// container's own /proc/net/tcp and tcp6 (the tables below were read in a busybox container
// listening on 0.0.0.0:8080, 127.0.0.1:9090 and [::]:7070), open only beyond loopback.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { listensOn, probeOnce, waitReady, type DirectReach, type ProbeTarget } from './health.ts';
import type { ProbePlan } from '../plan.ts';

const TABLES = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 431348 1 00000000861c3d37 100 0 0 10 0
   1: 0100007F:2382 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 431350 1 00000000b24ee422 100 0 0 10 0
   2: 0200110A:1538 0100110A:C350 01 00000000:00000000 00:00000000 00000000     0        0 431351 1 00000000b24ee423 20 4 30 10 -1
  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:1B9E 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 431353 1 000000003002be9a 100 0 0 10 0
   1: 00000000000000000000000001000000:17AC 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 431354 1 000000003002be9b 100 0 0 10 0
   2: 0000000000000000FFFF00000100007F:0FA0 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 431355 1 000000003002be9c 100 0 0 10 0
`;

const tcp = (port: number): ProbePlan => ({
  kind: 'tcp', port, path: '/', command: [], initialDelaySeconds: 0, periodSeconds: 1, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3,
});

const unpublished = (socketTable: ProbeTarget['socketTable']): ProbeTarget => ({
  hostPort: () => null, exec: async () => 1, socketTable, notRunning: async () => null,
});

describe('readiness of an unpublished port', () => {
  test('listening on every address (IPv4 or IPv6) counts; loopback only, or a connection that is not listening, does not', () => {
    assert.equal(listensOn(TABLES, 8080), true, '0.0.0.0:8080');
    assert.equal(listensOn(TABLES, 7070), true, '[::]:7070');
    assert.equal(listensOn(TABLES, 9090), false, '127.0.0.1:9090 only');
    assert.equal(listensOn(TABLES, 6060), false, '[::1]:6060 only');
    assert.equal(listensOn(TABLES, 4000), false, '[::ffff:127.0.0.1]:4000 only');
    assert.equal(listensOn(TABLES, 5432), false, 'an established connection from port 5432 is not a listener');
    assert.equal(listensOn(TABLES, 5433), false, 'nothing');
    assert.equal(listensOn('', 8080), false);
  });

  test('a TCP probe of a port not published reads the container\'s sockets', async () => {
    assert.deepEqual(await probeOnce(tcp(8080), unpublished(async () => TABLES)), { ok: true, detail: 'tcp 8080 is listening' });
    const early = await probeOnce(tcp(9090), unpublished(async () => TABLES));
    assert.equal(early.ok, false);
    assert.match(early.detail, /nothing listens on it beyond loopback yet/);
    const blind = await probeOnce(tcp(8080), unpublished(async () => { throw new Error('exec: "cat": executable file not found'); }));
    assert.equal(blind.ok, false);
    assert.match(blind.detail, /cannot read the container's sockets \(exec: "cat"/);
  });
});

describe('TCP readiness straight to the container (decision 0335)', () => {
  const direct = (address: string, hostPort: number | null, reach: DirectReach = {}): ProbeTarget => ({
    hostPort: () => hostPort, exec: async () => 1, socketTable: async () => '', notRunning: async () => null,
    direct: { address: () => address, reach },
  });

  test('a listening port counts at once, without the userland-proxy hold; once one did, a refusal is an answer', async () => {
    const server = createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const reach: DirectReach = {};
    try {
      const began = performance.now();
      assert.deepEqual(await probeOnce(tcp(port), direct('127.0.0.1', null, reach)), { ok: true, detail: `tcp ${port} accepts connections` });
      assert.ok(performance.now() - began < 45, 'no 50 ms hold');
      assert.equal(reach.known, true);
    } finally {
      await new Promise((r) => server.close(r));
    }
    // nothing listens any more: refused is the answer (the published port, here nothing, is not tried)
    assert.deepEqual(await probeOnce(tcp(port), direct('127.0.0.1', 1, reach)), { ok: false, detail: `tcp ${port}: connection refused (nothing listens yet)` });
  });

  test('before any direct success, a refusal is checked on the published port; a refusal contradicted there turns direct probing off', async () => {
    // "the published port": a loopback listener; "the container's port": a closed one, as a firewall's reset would look
    const server = createServer(() => {});
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const published = (server.address() as AddressInfo).port;
    const closed = await new Promise<number>((r) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const p = (s.address() as AddressInfo).port; s.close(() => r(p)); }); });
    try {
      const reach: DirectReach = {};
      assert.deepEqual(await probeOnce(tcp(closed), direct('127.0.0.1', published, reach)), { ok: true, detail: `tcp ${closed} accepts connections` });
      assert.equal(reach.known, false, 'the container address is not what answers');
      assert.equal((await probeOnce(tcp(closed), direct('127.0.0.1', published, reach))).ok, true);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  test('readiness is polled 10 ms apart at first, doubling up to 100 ms', async () => {
    const at: number[] = [];
    const began = performance.now();
    const target: ProbeTarget = {
      hostPort: () => null, exec: async () => { at.push(performance.now() - began); return at.length >= 6 ? 0 : 1; }, socketTable: async () => '', notRunning: async () => null,
    };
    await waitReady({ ...tcp(1), kind: 'exec', command: ['true'] }, target, AbortSignal.timeout(5000), 5000);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    // 10, 20, 40, 80, 100 ms (timers fire late, never early)
    assert.deepEqual(gaps.map((g, i) => g >= [10, 20, 40, 80, 100][i]! - 1), [true, true, true, true, true], `gaps ${gaps.map((g) => g.toFixed(0))}`);
    assert.ok(at[1]! < 60, `the second probe came ${at[1]!.toFixed(0)} ms after the first`);
  });
});
