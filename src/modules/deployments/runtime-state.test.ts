// Where the observer resumes a re-adopted replica's output (runtime-state.ts runtimeResumePoint,
// decision 0332): after the container's own last recorded line, to the microsecond and counting
// the lines that share it; other containers' and deployments' lines aside; lines from before
// lines named their container (migration 0021) as the fallback; found on indexes, not by reading
// a whole log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedEnvironment } from '../../../test/support/factories.ts';
import { seedOrganization, startTestApp, type TestApp } from '../../../test/support/harness.ts';
import { insertRuntimeLine, runtimeResumePoint } from './runtime-state.ts';
import { CONTAINER_LAST_LINE, UNTAGGED_LAST_LINE } from './runtime-state.repo.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const micros = (iso: string, extra: number) => BigInt(Date.parse(iso)) * 1000n + BigInt(extra);

describe('runtime lines: where following a replica resumes', () => {
  let t: TestApp;
  let serviceId: string;
  let otherServiceId: string;
  before(async () => {
    t = await startTestApp();
    const org = await seedOrganization(t);
    const env = await seedEnvironment(t, org);
    const create = async (name: string) => {
      const app = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: { name, git_repository: { url: 'https://github.com/acme/a' } } });
      assert.equal(app.status, 201, app.raw);
      return app.body.id as string;
    };
    serviceId = await create('logs');
    otherServiceId = await create('other');
  });
  after(() => t.close());

  /** a line as recorded before lines named their container (kept to the millisecond then) */
  const untagged = (service: string, at: string, runId: string | null = null) => t.ctx.db.query(
    `insert into deployment_logs (service_id, kind, message, created_at, run_id) values ($1, 'RUNTIME', 'old line', $2, $3)`, [service, at, runId]);

  test('nothing recorded: the container\'s whole output', async () => {
    assert.equal(await runtimeResumePoint(t.ctx.db, serviceId, A), null);
  });

  test('after the container\'s own last line, to the microsecond, counting the lines that share it', async () => {
    await insertRuntimeLine(t.ctx.db, serviceId, A, '2026-11-26T10:00:01.000001Z', 'a 1');
    await insertRuntimeLine(t.ctx.db, serviceId, A, '2026-11-26T10:00:01.000002Z', 'a 2');
    await insertRuntimeLine(t.ctx.db, serviceId, A, '2026-11-26T10:00:01.000002Z', 'a 3 (same microsecond)');
    // another replica of the service, recorded later with a later time, does not move A's point
    await insertRuntimeLine(t.ctx.db, serviceId, B, '2026-11-26T10:00:05.500000Z', 'b 1');
    // neither does a line of a deployment
    await t.ctx.db.query(`insert into deployment_logs (deployment_id, service_id, kind, message, created_at)
      select d.id, $1, 'RUNTIME', 'a job run line of a deployment', '2026-11-26T11:00:00Z' from deployments d limit 1`, [serviceId]);
    assert.deepEqual(await runtimeResumePoint(t.ctx.db, serviceId, A), { micros: micros('2026-11-26T10:00:01Z', 2), recorded: 2 });
    assert.deepEqual(await runtimeResumePoint(t.ctx.db, serviceId, B), { micros: micros('2026-11-26T10:00:05Z', 500_000), recorded: 1 });
  });

  test('a line from a deleted service is not recorded', async () => {
    await insertRuntimeLine(t.ctx.db, '00000000-0000-4000-8000-000000000000', A, '2026-11-26T12:00:00.000000Z', 'gone');
    assert.deepEqual(await runtimeResumePoint(t.ctx.db, serviceId, A), { micros: micros('2026-11-26T10:00:01Z', 2), recorded: 2 });
  });

  test('a container with no line of its own: after the service\'s last line recorded without a container, the whole millisecond', async () => {
    await untagged(otherServiceId, '2026-11-26T09:00:00.250Z');
    await untagged(otherServiceId, '2026-11-26T09:00:00.125Z');
    // a job run's line is not a replica's
    const [run] = await t.ctx.db.query<{ id: string }>(`insert into job_runs (job_id, organization_id, environment_id, trigger)
      select s.id, s.organization_id, s.environment_id, 'MANUAL' from services s where s.id = $1 returning id`, [otherServiceId]);
    await untagged(otherServiceId, '2026-11-26T09:30:00Z', run!.id);
    assert.deepEqual(await runtimeResumePoint(t.ctx.db, otherServiceId, A.replace(/a/g, 'c')),
      { micros: micros('2026-11-26T09:00:00.250Z', 999), recorded: Infinity });
  });

  test('read on indexes, a bounded number of rows, with long logs', async () => {
    await t.ctx.db.query(`insert into deployment_logs (service_id, kind, message, created_at, container_id)
      select $1, 'RUNTIME', 'GET / 200', timestamptz '2026-11-26T09:00:00Z' + i * interval '1 ms', $2 from generate_series(1, 20000) i`, [serviceId, B]);
    await t.ctx.db.query(`insert into deployment_logs (service_id, kind, message, created_at)
      select $1, 'RUNTIME', 'GET / 200', timestamptz '2026-11-26T08:00:00Z' + i * interval '1 ms' from generate_series(1, 20000) i`, [serviceId]);
    await t.ctx.db.exec('analyze deployment_logs');
    for (const [sql, arg] of [[CONTAINER_LAST_LINE, B], [UNTAGGED_LAST_LINE, serviceId]] as const) {
      const plan = JSON.stringify(await t.ctx.db.query(`explain (format json) ${sql.replaceAll('$1', `'${arg}'`)}`));
      assert.match(plan, /"Index Name":"deployment_logs_(container|untagged_runtime)_idx"/, plan);
      assert.doesNotMatch(plan, /"Node Type":"(Sort|Seq Scan|Bitmap Heap Scan)"/, plan);
    }
    // B's own line at 10:00:05.5 is still its last; the service's last untagged line is the bulk's
    assert.deepEqual(await runtimeResumePoint(t.ctx.db, serviceId, B), { micros: micros('2026-11-26T10:00:05Z', 500_000), recorded: 1 });
    assert.deepEqual(await runtimeResumePoint(t.ctx.db, serviceId, 'd'.repeat(64)), { micros: micros('2026-11-26T08:00:20Z', 999), recorded: Infinity });
  });
});
