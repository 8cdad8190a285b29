// The Docker engine end to end, as a user would drive it: an application from a git repository
// served on loopback is built, deployed and reached through its public URL; a variable change is
// redeployed under steady load with zero failed requests; a version that never gets ready leaves
// the old one serving; a killed replica makes the service ERROR with a webhook; berth restarts
// and re-adopts what runs; stop, restart and uninstall act on real containers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { busyboxImage, NO_DOCKER, startGitServer, testDocker, type GitServer } from '../support/docker.ts';
import { hostOf, startEngineBerth, viaIngress, webhookReceiver, type EngineBerth } from '../support/engine-berth.ts';
import { eventually } from '../support/harness.ts';
import { steadyLoad, type LoadResult } from '../support/http-load.ts';

const found = await testDocker();

// a VOLUME, as many images declare: each replica gets an anonymous volume of its own
const dockerfile = (base: string) => `FROM ${base}
VOLUME /tmp/www
CMD ["sh", "-c", "mkdir -p /tmp/www && echo \\"$GREETING\\" > /tmp/www/index.html && echo started with $GREETING && exec httpd -f -v -p 8080 -h /tmp/www"]
`;

describe('docker engine: an application from git', { skip: found ? false : NO_DOCKER, timeout: 900_000 }, () => {
  let berth: EngineBerth;
  let git: GitServer;
  let hooks: Awaited<ReturnType<typeof webhookReceiver>>;
  let envId: string;
  let appId: string;
  let host: string;
  const docker = found?.docker!;

  before(async () => {
    const base = await busyboxImage(docker);
    git = await startGitServer();
    await git.createRepo('web', { Dockerfile: dockerfile(base) });
    await git.createRepo('broken', { Dockerfile: `FROM ${base}\nRUN echo about to fail && false\n` });
    hooks = await webhookReceiver();
    berth = await startEngineBerth(found!.host);
    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    await berth.api('POST', `/organization/${org}/webhook`, { target_url: hooks.url, kind: 'STANDARD', events: ['DEPLOYMENT_FAILED'] });
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `engine-${Date.now()}` })).body;
    envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT' })).body.id;
    await berth.api('POST', `/environment/${envId}/environmentVariable`, { key: 'GREETING', value: 'hello v1' });
  });
  after(async () => {
    if (appId) await berth?.api('DELETE', `/application/${appId}`);
    await berth?.close();
    await git?.close();
    await hooks?.close();
  });

  const runtimeLines = async (serviceId: string): Promise<string[]> =>
    (await berth.api('GET', `/application/${serviceId}/log?tail=10000`)).body.results.filter((l: any) => l.kind === 'RUNTIME').map((l: any) => l.message);
  const replicas = async (serviceId: string, all = false) =>
    docker.listContainers({ all, filters: { label: [`berth.service_id=${serviceId}`, 'berth.role=replica'] } });

  test('deploy builds the repository, runs it and serves it at its public URL, with real logs', async () => {
    const created = await berth.api('POST', `/environment/${envId}/application`, {
      name: 'web', git_repository: { url: `${git.baseUrl}/web.git`, branch: 'main' },
      ports: [{ internal_port: 8080, publicly_accessible: true }], cpu: 250, memory: 64,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    appId = created.body.id;
    const d = await berth.api('POST', `/application/${appId}/deploy`);
    assert.equal(d.status, 202);
    const final = await berth.settle(d.body.id);
    assert.equal(final.status, 'DEPLOYED', final.message);
    assert.match(final.git_commit_id, /^[0-9a-f]{40}$/, 'the commit actually built is recorded');
    assert.equal(final.metadata.engine, 'docker');

    const links = await berth.api('GET', `/application/${appId}/link`);
    assert.equal(links.status, 200);
    const link = (links.body.results ?? links.body).find((l: any) => l.is_default);
    host = hostOf(link.url);
    const page = await viaIngress(berth.ingressPort, host);
    assert.deepEqual(page, { status: 200, body: 'hello v1\n' });

    const logs = (await berth.api('GET', `/deployment/${d.body.id}/log?page_size=100`)).body.results.map((l: any) => `${l.kind} ${l.message}`);
    assert.ok(logs.some((l: string) => /^BUILD Step 1\/\d+ : FROM /.test(l)), 'the builder\'s own output is in the BUILD lines');
    assert.ok(logs.some((l: string) => l.startsWith('DEPLOY Replica 1/1 is ready')));
    await eventually(async () => (await berth.api('GET', `/application/${appId}/log`)).body.results
      .some((l: any) => l.kind === 'RUNTIME' && l.message === 'started with hello v1'), 30_000);
  });

  test('a variable change redeployed under steady load fails no request, then serves the new value', async () => {
    const variables = (await berth.api('GET', `/environment/${envId}/environmentVariable`)).body.results;
    const greeting = variables.find((v: any) => v.key === 'GREETING');
    assert.equal((await berth.api('PUT', `/environment/${envId}/environmentVariable/${greeting.id}`, { key: 'GREETING', value: 'hello v2' })).status, 200);
    // browser-like keep-alive clients in 2-second rounds until the redeploy has settled
    const rounds: LoadResult[] = [];
    let stop = false;
    const load = (async () => {
      // at least two rounds: a redeploy faster than one round still runs under more than a round's load
      while (!stop || rounds.length < 2) rounds.push(await steadyLoad({ address: `http://127.0.0.1:${berth.ingressPort}`, host, total: 200, concurrency: 8, durationMs: 2000 }));
    })();
    const [previous] = await replicas(appId);
    const previousVolumes = (await docker.getContainer(previous!.Id).inspect()).Mounts.filter((m) => m.Type === 'volume').map((m) => m.Name!);
    assert.equal(previousVolumes.length, 1, 'the image\'s VOLUME');
    const d = await berth.api('POST', `/application/${appId}/redeploy`);
    const final = await berth.settle(d.body.id);
    await new Promise((r) => setTimeout(r, 1000));
    stop = true;
    await load;
    assert.equal(final.status, 'DEPLOYED', final.message);
    const failures = rounds.flatMap((r) => r.failures);
    const ok = rounds.reduce((n, r) => n + r.ok, 0);
    assert.deepEqual(failures, [], `failed requests during the redeploy (${ok} ok)`);
    assert.equal(rounds.reduce((n, r) => n + r.retried, 0), 0, 'no GET had to be sent again: the ingress closed no connection (0334)');
    assert.ok(ok > 300, `steady load (${ok} requests)`);
    assert.deepEqual([...new Set(rounds.flatMap((r) => r.bodies))].sort(), ['hello v1\n', 'hello v2\n']);
    assert.equal((await viaIngress(berth.ingressPort, host)).body, 'hello v2\n');
    assert.equal((await replicas(appId)).length, 1, 'the old replica is gone');
    for (const name of previousVolumes) {
      await assert.rejects(docker.getVolume(name).inspect(), { statusCode: 404 }, 'and its anonymous volume with it');
    }
    // the new replica's first line, written while the old one logged every request it answered
    await eventually(async () => (await runtimeLines(appId)).includes('started with hello v2'), 30_000);
  });

  test('a version that never becomes ready fails with its reason and the old one keeps serving', async () => {
    const edit = await berth.api('PUT', `/application/${appId}`, {
      healthchecks: { readiness_probe: { type: { http: { path: '/never-there', port: 8080 } }, period_seconds: 1, failure_threshold: 6, timeout_seconds: 1, initial_delay_seconds: 0 } },
    });
    assert.equal(edit.status, 200, JSON.stringify(edit.body));
    const d = await berth.api('POST', `/application/${appId}/redeploy`);
    const final = await berth.settle(d.body.id);
    assert.equal(final.status, 'DEPLOYMENT_ERROR');
    assert.match(final.message, /did not become ready: readiness probe never succeeded \(GET \/never-there answered 404\); the previous version keeps serving/);
    const lines = (await berth.api('GET', `/deployment/${d.body.id}/log?tail=1000`)).body.results.map((l: any) => l.message);
    // httpd -v logs every request it answers: the probe's 404s are the new container's own last words
    assert.ok(lines.some((l: string) => l.startsWith('  | ') && l.includes('response:404')), `the new container's last lines are in the deployment log: ${JSON.stringify(lines.slice(-8))}`);
    assert.equal((await viaIngress(berth.ingressPort, host)).body, 'hello v2\n');
    const restore = await berth.api('PUT', `/application/${appId}`, { healthchecks: { readiness_probe: null } });
    assert.equal(restore.status, 200);
  });

  test('a replica killed outside berth makes the service ERROR and sends DEPLOYMENT_FAILED', async () => {
    // the failed rollout above left the previous version serving: the observer reports it RUNNING
    await eventually(async () => (await berth.api('GET', `/application/${appId}/status`)).body.state === 'RUNNING', 30_000);
    const [replica] = await replicas(appId);
    await docker.getContainer(replica!.Id).kill();
    const event = await eventually(async () => hooks.bodies.find((b) => b.payload?.service_id === appId && b.payload?.reason === 'RUNTIME_FAILURE'), 30_000);
    assert.equal(event.event_type, 'DEPLOYMENT_FAILED');
    assert.match(event.payload.message, /exited with code 137/);
    assert.equal((await berth.api('GET', `/application/${appId}/status`)).body.state, 'ERROR', 'a killed replica stays dead: Docker restarts only what crashed');
  });

  test('berth stopped: the app keeps serving; berth started again re-adopts it', async () => {
    const before = await berth.api('POST', `/application/${appId}/restart-service`);
    const restarted = await berth.settle(before.body.id);
    assert.equal(restarted.status, 'RESTARTED', restarted.message);
    const starts = async () => (await runtimeLines(appId)).filter((l) => l === 'started with hello v2').length;
    await eventually(async () => (await starts()) >= 2, 30_000); // the redeploy's replica, then the restart's
    await berth.stop();
    assert.deepEqual(await viaIngress(berth.ingressPort, host), { status: 200, body: 'hello v2\n' }, 'served while berth is down');
    await berth.restart();
    assert.equal((await berth.api('GET', `/application/${appId}/status`)).body.state, 'RUNNING');
    const startsBefore = await starts();
    await viaIngress(berth.ingressPort, host); // a line written after the re-adoption is recorded, the old ones are not again
    await eventually(async () => (await runtimeLines(appId)).slice(-3).some((l) => l.includes('response:200')), 30_000);
    assert.equal(await starts(), startsBefore, 're-adopting the replica records none of its earlier lines again');
    const seen = hooks.bodies.length;
    const [replica] = await replicas(appId);
    await docker.getContainer(replica!.Id).kill();
    await eventually(async () => hooks.bodies.slice(seen).find((b) => b.payload?.service_id === appId && b.payload?.reason === 'RUNTIME_FAILURE'), 30_000);
  });

  test('stop keeps the container, restart brings it back, uninstall removes it', async () => {
    const stop = await berth.api('POST', `/application/${appId}/stop`);
    assert.equal((await berth.settle(stop.body.id)).status, 'STOPPED');
    assert.equal((await replicas(appId)).length, 0, 'nothing runs');
    assert.equal((await replicas(appId, true)).length, 1, 'the stopped container is kept');
    assert.equal((await viaIngress(berth.ingressPort, host)).status, 404);
    const restart = await berth.api('POST', `/application/${appId}/restart-service`);
    const restarted = await berth.settle(restart.body.id);
    assert.equal(restarted.status, 'RESTARTED', restarted.message);
    assert.equal((await viaIngress(berth.ingressPort, host)).body, 'hello v2\n');
    const uninstall = await berth.api('POST', `/application/${appId}/uninstall`);
    assert.equal((await berth.settle(uninstall.body.id)).status, 'DELETED');
    assert.equal((await replicas(appId, true)).length, 0);
    assert.equal((await viaIngress(berth.ingressPort, host)).status, 404);
  });

  test('a build that fails ends in BUILD_ERROR with the builder\'s own error in the logs', async () => {
    const created = await berth.api('POST', `/environment/${envId}/application`, {
      name: 'broken', git_repository: { url: `${git.baseUrl}/broken.git`, branch: 'main' }, ports: [{ internal_port: 8080, publicly_accessible: false }],
    });
    const d = await berth.api('POST', `/application/${created.body.id}/deploy`);
    const final = await berth.settle(d.body.id);
    assert.equal(final.status, 'BUILD_ERROR');
    assert.match(final.message, /returned a non-zero code: 1/);
    const lines = (await berth.api('GET', `/deployment/${d.body.id}/log?page_size=100`)).body.results.map((l: any) => l.message);
    assert.ok(lines.includes('about to fail'));
    const missing = await berth.api('POST', `/environment/${envId}/application`, {
      name: 'no-repo', git_repository: { url: `${git.baseUrl}/nothing-here.git`, branch: 'main' },
    });
    const clone = await berth.settle((await berth.api('POST', `/application/${missing.body.id}/deploy`)).body.id);
    assert.equal(clone.status, 'BUILD_ERROR');
    assert.match(clone.message, /not found|repository|fatal/i);
  });
});
