// A bounded soak: one berth process under SOAK_SECONDS (default 30) of mixed reads, writes,
// deployments and webhook deliveries on loopback. Properties: zero 5xx, every deployment
// settles, webhook events keep arriving, and memory does not grow without bound — RSS at the end
// stays within 30% (or 96 MB, whichever is larger) of RSS after the first quarter (warm-up).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgresUrl } from '../support/db.ts';
import { startBerth, type BerthProcess } from '../support/processes.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 30);
const CONCURRENCY = 6;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

describe(`soak: ${SECONDS} s of mixed load on one process`, () => {
  let berth: BerthProcess;
  let receiver: Server;
  let hookUrl = '';
  let events = 0;
  const token = `soak-${randomBytes(16).toString('hex')}`;

  before(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => { events++; res.writeHead(200).end(); });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/soak`;
    const databaseUrl = await freshPostgresUrl();
    berth = await startBerth('all', {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'berth-soak-')), BOOTSTRAP_TOKEN: token, BOOTSTRAP_ORGANIZATION: 'soak',
      RATE_LIMIT_PER_HOUR: '10000000', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl, ENCRYPTION_KEY: randomBytes(32).toString('base64') } : {}),
    });
  });
  after(async () => {
    await berth?.stop();
    await new Promise((r) => receiver.close(r));
  });

  test('zero 5xx, deployments settle, bounded memory', async (t) => {
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${berth.url}${path}`, {
        method, headers: { authorization: `Token ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : undefined };
    };
    const orgId = (await call('GET', '/organization')).body.results[0].id as string;
    assert.equal((await call('POST', `/organization/${orgId}/webhook`, { target_url: hookUrl, events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED', 'DEPLOYMENT_FAILED'], enabled: true })).status, 201);
    const project = (await call('POST', `/organization/${orgId}/project`, { name: 'soak' })).body;
    const env = (await call('POST', `/project/${project.id}/environment`, { name: 'soak-env' })).body;
    const apps: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call('POST', `/environment/${env.id}/application`, {
        name: `soak-app-${i}`, git_repository: { url: 'https://github.com/example/app.git', branch: 'main' }, build_mode: 'DOCKER',
        dockerfile_path: 'Dockerfile', cpu: 100, memory: 128, min_running_instances: 1, max_running_instances: 1, ports: [{ internal_port: 80, publicly_accessible: false }],
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      apps.push(r.body.id);
    }
    const statuses = new Map<number, number>();
    const deployments: string[] = [];
    let warmRss = 0;
    const started = Date.now();
    const end = started + SECONDS * 1000;
    let n = 0;
    let lastDeployAt = 0;
    const worker = async (w: number) => {
      while (Date.now() < end) {
        const i = n++;
        let r: { status: number; body: any };
        switch (i % 8) {
          case 0: r = await call('GET', `/organization/${orgId}`); break;
          case 1: r = await call('GET', `/project/${project.id}/environment`); break;
          case 2: r = await call('GET', `/environment/${env.id}/services`); break;
          case 3: {
            r = await call('POST', `/organization/${orgId}/apiToken`, { name: `soak-${w}-${i}`, role: 'VIEWER' });
            if (r.status === 201) r = await call('DELETE', `/organization/${orgId}/apiToken/${r.body.id}`);
            break;
          }
          case 4: r = await call('POST', `/application/${apps[i % apps.length]}/environmentVariable`, { key: `K_${w}_${i}`, value: 'v' }); break;
          case 5: r = await call('GET', `/application/${apps[i % apps.length]}/status`); break;
          case 6: {
            // a deployment every few seconds: they run one at a time per environment
            if (Date.now() - lastDeployAt > 3000) {
              lastDeployAt = Date.now();
              r = await call('POST', `/application/${apps[i % apps.length]}/deploy`, {});
              if (r.status === 202) deployments.push(r.body.id);
            } else {
              r = await call('GET', `/environment/${env.id}/deploymentQueue`);
            }
            break;
          }
          default: r = await call('POST', `/project/${project.id}/environment`, { name: 'not valid name because it is far too long '.repeat(10) });
        }
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (!warmRss && Date.now() - started > SECONDS * 250) warmRss = rssMb(berth.child.pid!);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
    const endRss = rssMb(berth.child.pid!);
    const fivexx = [...statuses].filter(([s]) => s >= 500).reduce((a, [, c]) => a + c, 0);
    assert.equal(fivexx, 0, `statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.ok(deployments.length > 0, 'deployments were requested');
    // every requested deployment settles (queued ones run one after another per environment)
    const deadline = Date.now() + 120_000;
    for (;;) {
      const settled = await Promise.all(deployments.map(async (id) => (await call('GET', `/deployment/${id}`)).body.status));
      if (settled.every((s: string) => ['DEPLOYED', 'CANCELED', 'BUILD_ERROR', 'DEPLOYMENT_ERROR'].includes(s))) break;
      if (Date.now() > deadline) assert.fail(`deployments did not settle: ${settled.join(',')}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(events > 0, 'webhook events were delivered');
    const margin = Math.max(warmRss * 0.3, 96);
    t.diagnostic(`${n} requests ${JSON.stringify(Object.fromEntries(statuses))}; ${deployments.length} deployments; ${events} webhook deliveries; RSS ${warmRss.toFixed(0)} MB after warm-up, ${endRss.toFixed(0)} MB at the end`);
    assert.ok(endRss <= warmRss + margin, `RSS grew from ${warmRss.toFixed(0)} MB to ${endRss.toFixed(0)} MB (margin ${margin.toFixed(0)} MB)`);
  });
});
