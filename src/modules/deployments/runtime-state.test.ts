// Where the observer resumes a replica's output (runtime-state.ts lastRuntimeLineAt): the latest
// RUNTIME line of the service, deployment lines aside, found without reading its whole log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedEnvironment } from '../../../test/support/factories.ts';
import { seedOrganization, startTestApp, type TestApp } from '../../../test/support/harness.ts';
import { insertRuntimeLine, LAST_RUNTIME_LINE, lastRuntimeLineAt } from './runtime-state.ts';

describe('runtime lines: where following resumes', () => {
  let t: TestApp;
  let serviceId: string;
  before(async () => {
    t = await startTestApp();
    const org = await seedOrganization(t);
    const env = await seedEnvironment(t, org);
    const app = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: { name: 'logs', git_repository: { url: 'https://github.com/acme/a' } } });
    assert.equal(app.status, 201, app.raw);
    serviceId = app.body.id;
  });
  after(() => t.close());

  test('nothing recorded: from the start', async () => {
    assert.equal(await lastRuntimeLineAt(t.ctx.db, serviceId), null);
  });

  test('the latest line, also when two replicas\' lines were recorded interleaved; a deployment\'s lines do not count', async () => {
    await insertRuntimeLine(t.ctx.db, serviceId, '2026-11-26T10:00:01.000000001Z', 'a 1');
    await insertRuntimeLine(t.ctx.db, serviceId, '2026-11-26T10:00:03.250Z', 'b 1');
    await insertRuntimeLine(t.ctx.db, serviceId, '2026-11-26T10:00:02.500Z', 'a 2 (recorded after b 1)');
    await t.ctx.db.query(`insert into deployment_logs (deployment_id, service_id, kind, message, created_at)
      select d.id, $1, 'RUNTIME', 'a job run line of a deployment', '2026-11-26T11:00:00Z' from deployments d limit 1`, [serviceId]);
    assert.equal(await lastRuntimeLineAt(t.ctx.db, serviceId), '2026-11-26T10:00:03.250Z');
  });

  test('read backwards on an index, a bounded number of rows, with a long log', async () => {
    await t.ctx.db.query(`insert into deployment_logs (service_id, kind, message, created_at)
      select $1, 'RUNTIME', 'GET / 200', timestamptz '2026-11-26T09:00:00Z' + i * interval '1 ms' from generate_series(1, 20000) i`, [serviceId]);
    await t.ctx.db.exec('analyze deployment_logs');
    const plan = JSON.stringify(await t.ctx.db.query(`explain (format json) ${LAST_RUNTIME_LINE.replace('$1', `'${serviceId}'`)}`));
    // an index read backwards under a Limit (which index depends on the data): no sort, no full read
    assert.match(plan, /"Scan Direction":"Backward"/);
    assert.match(plan, /"Node Type":"Limit"/);
    assert.doesNotMatch(plan, /"Node Type":"(Sort|Seq Scan|Bitmap Heap Scan)"/);
    assert.equal(await lastRuntimeLineAt(t.ctx.db, serviceId), '2026-11-26T09:00:20.000Z');
  });
});
