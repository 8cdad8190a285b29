// Autoscaling on the Docker engine (issue 30, decision 0338), on the real daemon through berth's
// ingress: a container (min 1, max 3, 0.1 CPU) whose endpoint burns CPU on every request is put
// under load from loopback (closed-loop clients, bounded in time); it reaches 2 or 3 replicas
// within a bounded time with no failed request while it scales, never more than 3; a redeploy
// keeps the replicas it runs; once the load stops it goes back to 1. Every scale event is a line
// of the service's log and a SERVICE_SCALED webhook, and the observer never reports the changing
// replica count as a failure. Short intervals through the configuration.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage } from '../../src/engine/docker/build.ts';
import { busyboxImage, NO_DOCKER, removeImage, TEST_LABEL, testDocker } from '../support/docker.ts';
import { hostOf, startEngineBerth, viaIngress, webhookReceiver, type EngineBerth } from '../support/engine-berth.ts';
import { eventually } from '../support/harness.ts';

const found = await testDocker();
const IMAGE = 'berth-test/cpu-burner:1';
const MAX = 3;

/** httpd with a CGI that burns about 40 ms of CPU per request: ~0.4 s at 0.1 CPU */
const BURN = '#!/bin/sh\ni=0; while [ $i -lt 5000 ]; do i=$((i+1)); done\nread h < /etc/hostname\nprintf \'Content-Type: text/plain\\r\\n\\r\\nburned %s on %s\\n\' "$i" "$h"\n';

async function burnerImage(docker: NonNullable<typeof found>['docker']): Promise<string> {
  const base = await busyboxImage(docker);
  const dir = await mkdtemp(join(tmpdir(), 'berth-test-burner-'));
  try {
    await mkdir(join(dir, 'www', 'cgi-bin'), { recursive: true });
    await writeFile(join(dir, 'www', 'index.html'), 'idle\n');
    await writeFile(join(dir, 'www', 'cgi-bin', 'burn'), BURN, { mode: 0o755 });
    await writeFile(join(dir, 'Dockerfile'), `FROM ${base}\nCOPY www /www\nCMD ["httpd", "-f", "-p", "8080", "-h", "/www"]\n`);
    await buildImage(docker, { contextDir: dir, dockerfilePath: null, tag: IMAGE, buildArgs: {}, labels: { [TEST_LABEL]: 'cpu-burner' } },
      async () => {}, AbortSignal.timeout(120_000));
    return IMAGE;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('docker engine: autoscaling', { skip: found ? false : NO_DOCKER, timeout: 300_000 }, () => {
  let berth: EngineBerth;
  let hooks: Awaited<ReturnType<typeof webhookReceiver>>;
  let id = '';
  let host = '';
  const docker = found?.docker!;
  /** every count of running replicas and every state seen, while the autoscaler alone changes them */
  const seen = { counts: [] as number[], states: new Set<string>(), paused: false };
  let watching = true;
  let watcher: Promise<void> = Promise.resolve();

  const runningReplicas = async () =>
    (await docker.listContainers({ filters: { label: [`berth.service_id=${id}`, 'berth.role=replica'] } })).filter((c) => c.State === 'running');
  const lines = async (): Promise<string[]> => (await berth.api('GET', `/container/${id}/log?tail=10000`)).body.results.map((l: any) => l.message as string);

  before(async () => {
    await burnerImage(docker);
    hooks = await webhookReceiver();
    berth = await startEngineBerth(found!.host, {
      AUTOSCALE_INTERVAL_SECONDS: '1', AUTOSCALE_DOWN_STABILIZATION_SECONDS: '6', INGRESS_DRAIN_SECONDS: '5',
    });
    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    await berth.api('POST', `/organization/${org}/webhook`, { target_url: hooks.url, kind: 'STANDARD', events: ['SERVICE_SCALED', 'DEPLOYMENT_FAILED'] });
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `autoscale-${Date.now()}` })).body;
    const envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT' })).body.id;
    const registry = (await berth.api('POST', `/organization/${org}/containerRegistry`, { name: 'hub', kind: 'DOCKER_HUB', url: 'https://docker.io' })).body;
    const created = await berth.api('POST', `/environment/${envId}/container`, {
      name: 'burner', registry_id: registry.id, image_name: 'berth-test/cpu-burner', tag: '1', cpu: 100, memory: 32,
      min_running_instances: 1, max_running_instances: MAX, ports: [{ internal_port: 8080, publicly_accessible: true }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    id = created.body.id;
    const d = await berth.settle((await berth.api('POST', `/container/${id}/deploy`)).body.id);
    assert.equal(d.status, 'DEPLOYED', d.message);
    host = hostOf((await berth.api('GET', `/container/${id}/link`)).body.results.find((l: any) => l.is_default).url);
    watcher = (async () => {
      while (watching) {
        if (!seen.paused) {
          seen.counts.push((await runningReplicas()).length);
          seen.states.add((await berth.api('GET', `/container/${id}/status`)).body.state);
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
  }, { timeout: 180_000 });

  after(async () => {
    watching = false;
    await watcher.catch(() => {});
    if (id) await berth?.api('DELETE', `/container/${id}`);
    if (id) await eventually(async () => (await docker.listContainers({ all: true, filters: { label: [`berth.service_id=${id}`] } })).length === 0, 60_000).catch(() => {});
    await berth?.close();
    await hooks?.close();
    await removeImage(docker, IMAGE).catch(() => {});
  });

  test('under CPU load it reaches 2 or 3 replicas with no failed request; a redeploy keeps them; idle, it goes back to 1', async () => {
    assert.equal((await runningReplicas()).length, 1, 'min_running_instances at the first deploy');
    // closed-loop clients through the ingress, until the service has scaled and a little longer (at most 60 s)
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const load = { ok: 0, failed: [] as string[], stop: false, bodies: new Set<string>() };
    const began = Date.now();
    const clients = Array.from({ length: 4 }, async () => {
      while (!load.stop && Date.now() - began < 60_000) {
        const res = await viaIngress(berth.ingressPort, host, '/cgi-bin/burn', agent);
        if (res.status === 200) { load.ok++; load.bodies.add(res.body.trim().split(' on ')[1] ?? ''); } else load.failed.push(`${res.status} ${res.body.slice(0, 80)}`);
      }
    });
    let scaledAfter = -1;
    try {
      await eventually(async () => (await runningReplicas()).length >= 2, 60_000, 250);
      scaledAfter = Date.now() - began;
      // a new replica takes traffic once ready: keep the load on while it joins (and maybe a third)
      await eventually(async () => load.bodies.size >= 2, 20_000, 250);
      await new Promise((r) => setTimeout(r, 4000));
    } finally {
      load.stop = true;
      await Promise.all(clients);
      agent.destroy();
    }
    const reached = Math.max(...seen.counts);
    console.log(`autoscale: 2 replicas ${scaledAfter} ms after the load began; reached ${reached}; ${load.ok} requests, ${load.failed.length} failed; answered by ${load.bodies.size} replicas`);
    assert.deepEqual(load.failed, [], `no failed request while it scales (${load.ok} ok)`);
    assert.ok(load.ok > 20, `steady load (${load.ok} requests)`);
    assert.ok(reached >= 2 && reached <= MAX, `reached ${reached}`);
    const up = await eventually(async () => hooks.bodies.find((b) => b.event_type === 'SERVICE_SCALED' && b.payload.direction === 'UP'), 10_000);
    assert.deepEqual([up.payload.container_id, up.payload.from_replicas, up.payload.to_replicas, up.payload.reason], [id, 1, 2, 'METRICS']);
    assert.equal(up.payload.metrics[0].name, 'CPU');
    assert.ok(up.payload.metrics[0].average_utilization_percent > 60 * 1.1, JSON.stringify(up.payload.metrics));
    const log = await lines();
    assert.ok(log.some((l) => /^Scaled up to 2 replicas: CPU \d+% of limit over 2 s \(target 60%\)$/.test(l)), JSON.stringify(log.filter((l) => l.startsWith('Scaled'))));

    // a redeploy starts as many replicas as run now (not min), within max
    seen.paused = true; // a rolling update runs both versions for a moment
    const d = await berth.settle((await berth.api('POST', `/container/${id}/redeploy`)).body.id);
    assert.equal(d.status, 'DEPLOYED', d.message);
    const deployLog = (await berth.api('GET', `/deployment/${d.id}/log?tail=200`)).body.results.map((l: any) => l.message as string);
    const kept = Number(/^Autoscaled: starting as many replicas as run now, (\d+) \(between 1 and 3\)$/m.exec(deployLog.join('\n'))?.[1]);
    assert.ok(kept >= 2 && kept <= MAX, JSON.stringify(deployLog));
    assert.equal((await runningReplicas()).filter((c) => c.Labels['berth.generation'] === d.id).length, kept, 'the new version runs as many');
    seen.paused = false;
    seen.paused = false;

    // idle: back to min once lower for the stabilization window, one replica at a time
    const idleSince = Date.now();
    await eventually(async () => (await runningReplicas()).length === 1, 90_000, 250);
    console.log(`autoscale: back to 1 replica ${Date.now() - idleSince} ms after the redeploy`);
    const down = await eventually(async () => hooks.bodies.find((b) => b.event_type === 'SERVICE_SCALED' && b.payload.direction === 'DOWN' && b.payload.to_replicas === 1), 10_000);
    assert.equal(down.payload.deployment_id, d.id, 'the replicas of the running version');
    assert.ok((await lines()).some((l) => /^Scaled down to 1 replica: CPU \d+% of limit over 2 s \(target 60%\); lower for the last 6 s$/.test(l)));
    assert.equal((await viaIngress(berth.ingressPort, host, '/')).body, 'idle\n', 'still served');

    assert.ok(Math.max(...seen.counts) <= MAX, `never above max (${Math.max(...seen.counts)})`);
    assert.ok(!seen.states.has('ERROR'), `the observer took no scale event for a failure (states ${[...seen.states].join(', ')})`);
    assert.equal(hooks.bodies.filter((b) => b.event_type === 'DEPLOYMENT_FAILED').length, 0, 'no failure event');
  });
});
