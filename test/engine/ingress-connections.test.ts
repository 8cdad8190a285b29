// Deployments of one service never close connections to another (issue 31, item 1), on the
// Docker engine through berth's ingress: a WebSocket and an SSE stream open to service A (a real
// WebSocket server in a test image) keep receiving while service B is redeployed 10 times,
// scaled, stopped and deployed again, and keep-alive clients that never retry see no error on A
// nor on B. A's own redeploy closes A's WebSocket only once the drain period
// (INGRESS_DRAIN_SECONDS, 5 s here) is over, and a redeploy that leaves no open connection does
// not wait for it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { busyboxImage, NO_DOCKER, startGitServer, testDocker, type GitServer } from '../support/docker.ts';
import { hostOf, removeEnvironment, startEngineBerth, viaIngress, type EngineBerth } from '../support/engine-berth.ts';
import { steadyLoad, type LoadResult } from '../support/http-load.ts';
import { openSse, openWebSocket, received, wsAppImage, type Stream } from '../support/ws-app.ts';

const found = await testDocker();
const DRAIN_SECONDS = 5;

describe('docker engine: connections to one service survive deployments of another', { skip: found ? false : NO_DOCKER, timeout: 1_500_000 }, () => {
  let berth: EngineBerth;
  let git: GitServer;
  let envId: string;
  const apps: Record<'a' | 'b', { id: string; host: string }> = { a: { id: '', host: '' }, b: { id: '', host: '' } };
  const streams: Stream[] = [];
  const docker = found?.docker!;

  const deploy = async (id: string, action: 'deploy' | 'redeploy' | 'stop') => {
    const d = await berth.api('POST', `/application/${id}/${action}`);
    assert.equal(d.status, 202, JSON.stringify(d.body));
    const final = await berth.settle(d.body.id);
    assert.equal(final.status, action === 'stop' ? 'STOPPED' : 'DEPLOYED', final.message);
    return (await berth.api('GET', `/deployment/${d.body.id}/log?tail=1000`)).body.results.map((l: any) => l.message as string);
  };
  const create = async (name: string, repo: string) => {
    const created = await berth.api('POST', `/environment/${envId}/application`, {
      name, git_repository: { url: `${git.baseUrl}/${repo}.git`, branch: 'main' }, ports: [{ internal_port: 8080, publicly_accessible: true }], cpu: 250, memory: 128,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await deploy(created.body.id, 'deploy');
    const links = (await berth.api('GET', `/application/${created.body.id}/link`)).body.results;
    return { id: created.body.id as string, host: hostOf(links.find((l: any) => l.is_default).url) };
  };
  /** keep-alive clients that never send a request again, in 2-second rounds until stopped */
  const loadOn = (host: string) => {
    const rounds: LoadResult[] = [];
    let stop = false;
    const done = (async () => {
      while (!stop) rounds.push(await steadyLoad({ address: `http://127.0.0.1:${berth.ingressPort}`, host, total: 100, concurrency: 4, durationMs: 2000, retry: false }));
    })();
    return async () => {
      stop = true;
      await done;
      return { ok: rounds.reduce((n, r) => n + r.ok, 0), failures: rounds.flatMap((r) => r.failures) };
    };
  };
  const open = async (kind: 'ws' | 'sse') => {
    const s = kind === 'ws' ? openWebSocket(berth.ingressPort, apps.a.host) : openSse(berth.ingressPort, apps.a.host);
    streams.push(s);
    await received(s, 2);
    return s;
  };

  before(async () => {
    const [wsImage, base] = [await wsAppImage(docker), await busyboxImage(docker)];
    git = await startGitServer();
    await git.createRepo('ws', { Dockerfile: `FROM ${wsImage}\n` });
    await git.createRepo('web', { Dockerfile: `FROM ${base}\nCMD ["sh", "-c", "mkdir -p /tmp/www && echo web > /tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www"]\n` });
    berth = await startEngineBerth(found!.host, { INGRESS_DRAIN_SECONDS: String(DRAIN_SECONDS) });
    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `connections-${Date.now()}` })).body;
    envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT' })).body.id;
    await berth.api('POST', `/environment/${envId}/environmentVariable`, { key: 'GREETING', value: 'a-v1' });
    apps.a = await create('live', 'ws');
    apps.b = await create('other', 'web');
  }, { timeout: 900_000 });
  after(async () => {
    for (const s of streams) s.close();
    // the environment's deletion uninstalls both apps; berth must not close before it has
    await removeEnvironment(berth, docker, envId);
    await berth?.close();
    await git?.close();
  });

  test('a WebSocket and an SSE stream to A keep receiving while B is redeployed 10 times, scaled, stopped and deployed', { timeout: 900_000 }, async (t) => {
    const [ws, sse] = [await open('ws'), await open('sse')];
    const since = Date.now();
    const [loadA, loadB] = [loadOn(apps.a.host), loadOn(apps.b.host)];
    const logs: string[][] = [];
    for (let i = 0; i < 10; i++) logs.push(await deploy(apps.b.id, 'redeploy'));
    assert.equal((await berth.api('PUT', `/application/${apps.b.id}`, { min_running_instances: 2, max_running_instances: 2 })).status, 200);
    logs.push(await deploy(apps.b.id, 'redeploy'));
    const [resultA, resultB] = [await loadA(), await loadB()];
    logs.push(await deploy(apps.b.id, 'stop'));
    assert.equal((await viaIngress(berth.ingressPort, apps.b.host)).status, 404, 'B stopped: its route is gone');
    logs.push(await deploy(apps.b.id, 'deploy'));
    assert.deepEqual(await viaIngress(berth.ingressPort, apps.b.host), { status: 200, body: 'web\n' });
    await new Promise((r) => setTimeout(r, 1000));
    t.diagnostic(`WebSocket: ${ws.messages.length} frames, SSE: ${sse.messages.length} events over ${Date.now() - since} ms; keep-alive: A ${resultA.ok} ok, B ${resultB.ok} ok`);

    for (const [name, s] of [['WebSocket', ws], ['SSE stream', sse]] as const) {
      assert.equal(s.closedAt, null, `the ${name} to A is still open (closed ${s.closedAt === null ? '' : `${s.closedAt - since} ms after B's first redeploy was requested`})`);
      const gap = s.longestGap(since);
      assert.ok(gap < 2000, `the ${name} kept receiving (a message every 500 ms; longest wait ${gap} ms)`);
    }
    assert.deepEqual(resultA.failures, [], `A's keep-alive clients (no retries): ${resultA.ok} ok`);
    assert.deepEqual(resultB.failures, [], `B's keep-alive clients during B's own redeploys (no retries): ${resultB.ok} ok`);
    assert.ok(resultA.ok > 300 && resultB.ok > 300, `steady load (A ${resultA.ok}, B ${resultB.ok})`);
    // B's old replicas had no connection left: the redeploys did not wait for the drain period
    t.diagnostic(`B's first redeploy: ${logs[0]!.find((l) => /No connection to the previous version/.test(l))}`);
    const drained = logs.slice(0, 11).filter((lines) => lines.some((l) => /No connection to the previous version is open through the ingress/.test(l)));
    assert.equal(drained.length, 11, `each redeploy of B stopped its old replica once it had no connection: ${JSON.stringify(logs[0]?.slice(-6))}`);
    ws.close();
    sse.close();
  });

  test('A\'s own redeploy closes A\'s WebSocket only after the drain period', { timeout: 300_000 }, async (t) => {
    const ws = await open('ws');
    const variables = (await berth.api('GET', `/environment/${envId}/environmentVariable`)).body.results;
    const greeting = variables.find((v: any) => v.key === 'GREETING');
    assert.equal((await berth.api('PUT', `/environment/${envId}/environmentVariable/${greeting.id}`, { key: 'GREETING', value: 'a-v2' })).status, 200);
    const lines = deploy(apps.a.id, 'redeploy');
    lines.catch(() => {});
    // the switch: the first answer of the new version through the ingress
    let switchedAt = 0;
    while (!switchedAt) {
      if ((await viaIngress(berth.ingressPort, apps.a.host)).body === 'a-v2\n') switchedAt = Date.now();
      else await new Promise((r) => setTimeout(r, 50));
      assert.ok(ws.closedAt === null || switchedAt, `the WebSocket closed before the new version was seen serving (${ws.messages.length} frames)`);
    }
    const fresh = await open('ws');
    assert.match(fresh.messages[0]!.text, /^a-v2 /, 'a new WebSocket reaches the new version');
    const log = await lines;
    assert.notEqual(ws.closedAt, null, 'the old version is stopped once the drain period is over');
    const openFor = ws.closedAt! - switchedAt;
    t.diagnostic(`the WebSocket to the old version closed ${openFor} ms after the switch was seen`);
    assert.ok(openFor >= DRAIN_SECONDS * 1000 - 500, `the WebSocket stayed open ${openFor} ms after the switch (drain period ${DRAIN_SECONDS} s)`);
    assert.ok(ws.longestGap(switchedAt) < 2000, 'and kept receiving from the old version until then');
    assert.ok(ws.messages.every((m) => m.text.startsWith('a-v1 ')));
    assert.ok(log.some((l: string) => /drain period of 5 s is over: closing 1 connection/.test(l)), JSON.stringify(log.slice(-6)));
    assert.equal(fresh.closedAt, null);
  });
});
