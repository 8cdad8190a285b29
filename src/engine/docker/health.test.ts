// Readiness of a port berth does not publish (a PRIVATE database's, decision 0333): read from the
// container's own /proc/net/tcp and tcp6 (the tables below were read in a busybox container
// listening on 0.0.0.0:8080, 127.0.0.1:9090 and [::]:7070), open only beyond loopback.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listensOn, probeOnce, type ProbeTarget } from './health.ts';
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
