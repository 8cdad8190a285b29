// Live streams across processes on PostgreSQL: an `--role api` process serves the streams while
// a `--role worker` process runs the deployment and writes its lines; the client reconnects in
// the middle with Last-Event-ID and ends with every line exactly once. Skipped without
// DATABASE_URL (the embedded store is single-process).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { freshPostgresUrl } from '../support/db.ts';
import { startBerth, type BerthProcess } from '../support/processes.ts';
import { openStream } from '../support/sse.ts';

const skip = !process.env.DATABASE_URL ? 'DATABASE_URL is not set: two processes need PostgreSQL' : false;

describe('live streams: the API process is not the worker', { skip }, () => {
  const token = `streams-${randomBytes(16).toString('hex')}`;
  let api: BerthProcess;
  let worker: BerthProcess;

  before(async () => {
    const env = {
      DATABASE_URL: (await freshPostgresUrl())!, ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      BOOTSTRAP_TOKEN: token, BOOTSTRAP_ORGANIZATION: 'streams', DATA_DIR: `/tmp/berth-streams-${process.pid}`, ENGINE: 'simulated',
    };
    api = await startBerth('api', env);
    worker = await startBerth('worker', env);
  });
  after(async () => { await Promise.all([api?.stop(), worker?.stop()]); });

  async function call(method: string, path: string, body?: unknown): Promise<any> {
    const r = await fetch(`${api.url}${path}`, {
      method, headers: { authorization: `Token ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await r.json();
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  }

  test('deployment lines and statuses reach the API process live; a reconnect loses and repeats nothing', async () => {
    const orgs = await call('GET', '/organization');
    const orgId = orgs.results[0].id;
    const project = await call('POST', `/organization/${orgId}/project`, { name: 'streams' });
    const env = await call('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT' });
    const app = await call('POST', `/environment/${env.id}/application`, {
      name: 'web', git_repository: { url: 'https://github.com/example/app.git', branch: 'main' }, build_mode: 'DOCKER',
      ports: [{ internal_port: 8080, publicly_accessible: true }],
    });
    const status = await openStream(`${api.url}/environment/${env.id}/status/stream`, token);
    await status.until((e) => e.length === 1);
    const runtime = await openStream(`${api.url}/application/${app.id}/log/stream?tail=0`, token);
    const d = await call('POST', `/application/${app.id}/deploy`, {});

    const first = await openStream(`${api.url}/deployment/${d.id}/log/stream`, token);
    // the first lines arrive while the worker is still running the deployment
    await first.until((e) => e.filter((x) => x.event === 'log').length >= 2, 30_000);
    const live = await call('GET', `/deployment/${d.id}`);
    assert.equal(live.finished, false, 'the lines came live, before the deployment finished');
    first.close();
    const cut = first.events.at(-1)!.id!;
    const second = await openStream(`${api.url}/deployment/${d.id}/log/stream`, token, { 'last-event-id': cut });
    await Promise.race([second.ended, new Promise((_, reject) => setTimeout(() => reject(new Error('no end event')), 30_000))]);
    assert.equal(second.events.at(-1)!.event, 'end');
    assert.equal(second.events.at(-1)!.data.status, 'DEPLOYED');

    const streamed = [...first.events, ...second.events].filter((e) => e.event === 'log').map((e) => e.data.id);
    const paged = await call('GET', `/deployment/${d.id}/log?page_size=100`);
    assert.deepEqual(streamed, paged.results.map((l: { id: string }) => l.id), 'every line once, in order');
    const statuses = [...first.events, ...second.events].filter((e) => e.event === 'status').map((e) => e.data.status);
    assert.equal(new Set(statuses).size, statuses.length, statuses.join());
    assert.equal(statuses.at(-1), 'DEPLOYED');

    // the service's stream saw the same lines (deployment and runtime kinds)
    await runtime.until((e) => e.length >= streamed.length, 10_000);
    assert.deepEqual(runtime.events.slice(0, streamed.length).map((e) => e.data.id), streamed);
    runtime.close();
    // and the environment's stream followed the service to RUNNING
    await status.until((e) => e.some((x) => x.data.state === 'RUNNING' && x.data.last_deployment_status === 'DEPLOYED'), 10_000);
    status.close();
  });
});
