// The log endpoints and live streams across a prune of runtime lines (decision 0408), over a real
// listening server: an open stream of a service goes on receiving every line written before,
// during and after the prune, in order; a reconnect whose cursor names a pruned line continues
// with the lines kept after it; the service's log answers the newest lines; a deployment's log
// read page by page across the prune loses and repeats nothing, its total unchanged.
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { insertDeployment } from '../../src/modules/deployments/deployments.repo.ts';
import { insertRuntimeLine } from '../../src/modules/deployments/runtime-state.ts';
import { LOG_RETENTION_LEASE, startLogPruner } from '../../src/workers/log-retention.ts';
import { seedEnvironment, seedService, type SeededEnvironment } from '../support/factories.ts';
import { seedOrganization, startTestApp, listenOnLoopback, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { runtimeLines, writeLines } from '../support/runtime-lines.ts';
import { openStream } from '../support/sse.ts';

const REPLICA = randomBytes(32).toString('hex');
/** Docker's time of a line as the observer stores it (six fraction digits), distinct per call */
let micro = 0;
const stamp = () => new Date().toISOString().replace('Z', `${String(++micro % 1000).padStart(3, '0')}Z`);

describe('log endpoints and live streams across a prune', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let base = '';
  before(async () => {
    t = await startTestApp();
    base = await listenOnLoopback(t);
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    await t.ctx.db.query('delete from engine_leases where name = $1', [LOG_RETENTION_LEASE]);
  });
  after(async () => { await t.close(); });

  test('a service\'s stream and log, and a deployment\'s pages, across a prune', async () => {
    const svc = await seedService(t, env, 'CONTAINER', { image_name: 'nginx', tag: '1' });
    await writeLines(t.ctx.db, svc, REPLICA, new Date(Date.now() - 60_000), 300);
    const deployment = await insertDeployment(t.ctx.db, {
      organizationId: org.id, projectId: env.projectId, environmentId: env.id, serviceId: svc, serviceType: 'CONTAINER',
      action: 'DEPLOY', gitCommitId: null, imageTag: null, origin: 'API', triggeredBy: null, metadata: {}, previousState: 'STOPPED',
    });
    await t.ctx.db.query(`insert into deployment_logs (deployment_id, service_id, kind, message, created_at)
      select $1, $2, 'DEPLOY', 'step ' || i, now() - interval '2 minutes' + i * interval '1 ms' from generate_series(1, 150) i`, [deployment, svc]);

    const stream = await openStream(`${base}/container/${svc}/log/stream?tail=300`, org.token);
    assert.equal(stream.status, 200);
    await stream.until((e) => e.length === 300);
    const runtimeEvents = stream.events.filter((e) => e.data.deployment_id === null);
    assert.equal(runtimeEvents[0]!.data.message, 'line 151', 'the tail: the service\'s last 300 lines, deployment steps among them');
    const prunedCursor = runtimeEvents[9]!.id!;
    const page1 = await t.request('GET', `/deployment/${deployment}/log?page=1&page_size=100`, { token: org.token });
    assert.equal(page1.body.pagination.total_count, 150);

    // the prune, while the replica goes on writing
    const pruner = startLogPruner(t.ctx, { maxAgeDays: 0, linesPerService: 100, batch: 50, intervalSeconds: 3600 })!;
    const writing = (async () => { for (let i = 1; i <= 40; i++) await insertRuntimeLine(t.ctx.db, svc, REPLICA, stamp(), `during ${i}`); })();
    try {
      const result = await pruner.tick();
      assert.ok(result && result.byCount >= 200 && result.statements >= 4, JSON.stringify(result));
    } finally {
      await writing;
      await pruner.stop();
    }
    for (let i = 1; i <= 3; i++) await insertRuntimeLine(t.ctx.db, svc, REPLICA, stamp(), `after ${i}`);
    const live = [...Array.from({ length: 40 }, (_, i) => `during ${i + 1}`), 'after 1', 'after 2', 'after 3'];
    await stream.until((e) => e.length === 300 + live.length);
    assert.deepEqual(stream.events.slice(300).map((e) => e.data.message), live, 'every line written during and after the prune, in order');
    stream.close();

    const kept = await runtimeLines(t.ctx.db, svc);
    // the count is read as the prune starts: it deletes the 200 lines over it then, plus those of
    // the replica's lines written before that read (at most the 40 `during` lines)
    assert.ok(kept.length <= 100 + live.length && kept.length >= 100 + 3, String(kept.length));
    const written = [...Array.from({ length: 300 }, (_, i) => `line ${i + 1}`), ...live];
    assert.deepEqual(kept.map((l) => l.message), written.slice(-kept.length), 'the newest stayed');
    const runtimeOf = (lines: Array<{ deployment_id: string | null; message: string }>) => lines.filter((l) => l.deployment_id === null).map((l) => l.message);
    const log = await t.request('GET', `/container/${svc}/log?tail=1000`, { token: org.token });
    assert.equal(log.status, 200, log.raw);
    assert.equal(log.body.results.length, kept.length + 150, 'the kept runtime lines and the deployment\'s steps');
    assert.deepEqual(runtimeOf(log.body.results), kept.map((l) => l.message));

    // a reconnect at a line the prune deleted: what was kept after it, then live lines
    const resumed = await openStream(`${base}/container/${svc}/log/stream`, org.token, { 'last-event-id': prunedCursor });
    assert.equal(resumed.status, 200);
    await resumed.until((e) => e.length === kept.length + 150);
    assert.deepEqual(runtimeOf(resumed.events.map((e) => e.data)), kept.map((l) => l.message));
    await insertRuntimeLine(t.ctx.db, svc, REPLICA, stamp(), 'after 4');
    await resumed.until((e) => e.length === kept.length + 151);
    assert.equal(resumed.events.at(-1)!.data.message, 'after 4');
    resumed.close();

    // a deployment's log is not pruned: its pages, read across the prune, are its lines once each
    const page2 = await t.request('GET', `/deployment/${deployment}/log?page=2&page_size=100`, { token: org.token });
    assert.equal(page2.body.pagination.total_count, 150);
    assert.deepEqual([...page1.body.results, ...page2.body.results].map((l: { message: string }) => l.message),
      Array.from({ length: 150 }, (_, i) => `step ${i + 1}`));
  });
});
