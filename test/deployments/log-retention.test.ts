// Retention of runtime lines against the real database (PGlite, or PostgreSQL with DATABASE_URL;
// decision 0408): lines past the age go, a service over its count keeps its newest N, other
// services, deployments' and job runs' lines stay, every replica's resume point (0332) survives,
// stored counts stay exact, each statement deletes at most its batch on indexes, and one process
// prunes at a time. What should stay is computed by expectedKept (the rules) from the lines.
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { insertDeployment } from '../../src/modules/deployments/deployments.repo.ts';
import { insertRuntimeLine, runtimeResumePoint } from '../../src/modules/deployments/runtime-state.ts';
import { DELETE_OLDER_THAN, DELETE_OLDEST_OF_SERVICE, deleteOlderThan, deleteOldestOfService } from '../../src/modules/log-retention/log-retention.repo.ts';
import { expectedKept, type RetentionSettings } from '../../src/modules/log-retention/log-retention.rules.ts';
import { pruneRuntimeLogs, vacuumIfDue } from '../../src/modules/log-retention/log-retention.service.ts';
import { LOG_RETENTION_LEASE, startLogPruner } from '../../src/workers/log-retention.ts';
import { seedEnvironment, seedService, type SeededEnvironment } from '../support/factories.ts';
import { seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { runtimeLines, storedRuntimeCount, writeLines } from '../support/runtime-lines.ts';

const DAY = 86_400_000;
/** a replica's container id, unique to this run (ids are global: another test's replica must not share one) */
const RUN = randomBytes(28).toString('hex');
const replica = (name: string) => `${name.repeat(8)}${RUN}`;
const ids = (lines: Array<{ id: number }>) => lines.map((l) => l.id);
const settings = (s: Partial<RetentionSettings>): RetentionSettings => ({ maxAgeDays: 0, linesPerService: 0, batch: 5000, intervalSeconds: 3600, ...s });

describe('log retention', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  const db = () => t.ctx.db;
  const service = () => seedService(t, env, 'CONTAINER', { image_name: 'nginx', tag: '1' });
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    // a test process killed while pruning left its lease: not this run's business
    await db().query('delete from engine_leases where name = $1', [LOG_RETENTION_LEASE]);
  });
  after(() => t.close());

  test('the deletes choose their lines on indexes, never by reading the table', async () => {
    // a log as long as a real one, so the planner's choices are those it makes in production
    await writeLines(db(), await service(), replica('f'), new Date(Date.now() - 3600_000), 20_000);
    await db().exec('analyze deployment_logs');
    const svc = await service();
    for (const sql of [DELETE_OLDER_THAN.replaceAll('$1', `'${new Date(Date.now() - 14 * DAY).toISOString()}'::timestamptz`),
      DELETE_OLDEST_OF_SERVICE.replaceAll('$1', `'${svc}'::uuid`)]) {
      const plan = JSON.stringify(await db().query(`explain (format json) ${sql.replaceAll('$2', '500')}`));
      for (const index of ['deployment_logs_runtime_idx', 'deployment_logs_container_idx', 'deployment_logs_untagged_runtime_idx', 'deployment_logs_pkey']) {
        assert.ok(plan.includes(`"Index Name":"${index}"`), `${index} not used: ${plan}`);
      }
      assert.doesNotMatch(plan, /"Node Type":"(Seq Scan|Bitmap Heap Scan)"[^{}]*"Relation Name":"deployment_logs"/, plan);
    }
  });

  test('by age: older lines go, each replica\'s last instant stays; deployments\' and job runs\' lines and young services stay', async () => {
    const now = new Date();
    const ago = (ms: number) => new Date(now.getTime() - ms);
    const svc = await service();
    const young = await service();
    await writeLines(db(), svc, replica('a'), ago(20 * DAY), 300);
    await writeLines(db(), svc, replica('a'), ago(60_000), 50);
    // b has been quiet for 30 days; its last two lines share an instant
    await writeLines(db(), svc, replica('b'), ago(31 * DAY), 4, 1000);
    for (const text of ['b last', 'b last too']) await insertRuntimeLine(db(), svc, replica('b'), ago(30 * DAY).toISOString(), text);
    // lines recorded before they named their replica (migration 0021)
    await writeLines(db(), svc, null, ago(40 * DAY), 3, 1000);
    await writeLines(db(), young, replica('y'), ago(DAY), 100);
    // a deployment's log and a job run's output, as old as the pruned lines
    const deployment = await insertDeployment(db(), {
      organizationId: org.id, projectId: env.projectId, environmentId: env.id, serviceId: svc, serviceType: 'CONTAINER',
      action: 'DEPLOY', gitCommitId: null, imageTag: null, origin: 'API', triggeredBy: null, metadata: {}, previousState: 'STOPPED',
    });
    await db().query(`insert into deployment_logs (deployment_id, service_id, kind, message, created_at)
      select $1, $2, (array['BUILD', 'DEPLOY', 'RUNTIME'])[i % 3 + 1], 'step ' || i, $3::timestamptz + i * interval '1 ms' from generate_series(1, 120) i`,
    [deployment, svc, ago(20 * DAY)]);
    const [run] = await db().query<{ id: string }>(`insert into job_runs (job_id, organization_id, environment_id, trigger)
      values ($1, $2, $3, 'MANUAL') returning id`, [svc, org.id, env.id]);
    await db().query(`insert into deployment_logs (service_id, run_id, kind, message, created_at)
      select $1, $2, 'RUNTIME', 'job ' || i, $3 from generate_series(1, 10) i`, [svc, run!.id, ago(20 * DAY)]);

    const lines = await runtimeLines(db(), svc);
    const youngLines = await runtimeLines(db(), young);
    const resumeAt = async () => Promise.all([replica('a'), replica('b'), replica('n')].map((c) => runtimeResumePoint(db(), svc, c)));
    const resumeBefore = await resumeAt();
    const expected = expectedKept(lines, { maxAgeDays: 14, linesPerService: 0 }, now);
    assert.equal(expected.size, 50 + 2 + 1, 'the day\'s lines, b\'s last instant, the last line without a replica');

    const result = await pruneRuntimeLogs(db(), settings({ maxAgeDays: 14, batch: 100 }), { now });
    assert.equal(result.complete, true);
    assert.ok(result.byAge >= lines.length - expected.size, JSON.stringify(result));
    assert.ok(result.statements >= Math.ceil(result.byAge / 100), JSON.stringify(result));
    assert.deepEqual(ids(await runtimeLines(db(), svc)), [...expected].sort((x, y) => x - y));
    assert.deepEqual(await runtimeLines(db(), young), youngLines);
    assert.deepEqual(await resumeAt(), resumeBefore, 'every replica resumes where it did');
    const [kept] = await db().query<{ deployment: number; job: number }>(`select count(*) filter (where deployment_id = $1)::int as deployment,
      count(*) filter (where run_id = $2)::int as job from deployment_logs where service_id = $3`, [deployment, run!.id, svc]);
    assert.deepEqual(kept, { deployment: 120, job: 10 });
    const page = await t.request('GET', `/deployment/${deployment}/log?page=2&page_size=100`, { token: org.token });
    assert.equal(page.status, 200, page.raw);
    assert.equal(page.body.results.length, 20);
    assert.deepEqual(page.body.pagination, { page: 2, page_size: 100, total_count: 120, total_pages: 2 });
    assert.equal(await storedRuntimeCount(db(), svc), expected.size);
    assert.equal(await storedRuntimeCount(db(), young), 100);
  });

  test('by count: a service over it keeps its newest N, a quiet replica\'s last line among them; others untouched; exact while lines arrive', async () => {
    const now = new Date();
    const big = await service();
    const small = await service();
    const t0 = now.getTime() - 3600_000;
    await writeLines(db(), big, replica('q'), new Date(t0), 3, 1000);
    await writeLines(db(), big, replica('c'), new Date(t0 + 10_000), 2500);
    await writeLines(db(), small, replica('s'), new Date(t0), 900);
    const lines = await runtimeLines(db(), big);
    const smallLines = await runtimeLines(db(), small);
    const expected = expectedKept(lines, { maxAgeDays: 0, linesPerService: 1000 }, now);
    assert.ok(expected.has(lines[2]!.id) && !expected.has(lines[0]!.id), 'q keeps its last line only');
    // the observer goes on writing c's output while the pruner runs
    const written: string[] = [];
    const writing = (async () => {
      for (let i = 1; i <= 200; i++) {
        const at = new Date(now.getTime() + i).toISOString().replace('Z', '123Z');
        await insertRuntimeLine(db(), big, replica('c'), at, `live ${i}`);
        written.push(at);
      }
    })();
    const result = await pruneRuntimeLogs(db(), settings({ linesPerService: 1000, batch: 300 }));
    await writing;
    assert.ok(result.byCount >= 1503, JSON.stringify(result));
    const after = await runtimeLines(db(), big);
    // lines written after the prune read the count are beyond it: they wait for the next prune
    const live = after.filter((l) => l.message.startsWith('live '));
    const old = after.filter((l) => !l.message.startsWith('live '));
    assert.equal(live.length, 200, 'lines written meanwhile are all there');
    assert.ok(old.length <= 1000 && old.length >= 800, String(old.length));
    const oldC = lines.filter((l) => l.containerId === replica('c'));
    assert.deepEqual(ids(old), [lines[2]!.id, ...ids(oldC.slice(-(old.length - 1)))], 'q\'s last line and the newest of c stayed');
    assert.deepEqual(ids(old).slice(-900), [...expected].sort((x, y) => x - y).slice(-900));
    assert.deepEqual(await runtimeLines(db(), small), smallLines);
    assert.equal(await storedRuntimeCount(db(), big), after.length);
    const last = written.at(-1)!;
    assert.deepEqual(await runtimeResumePoint(db(), big, replica('c')),
      { micros: BigInt(Date.parse(last)) * 1000n + 123n, recorded: 1 });
    // the next prune brings it down to the count exactly
    const next = expectedKept(after, { maxAgeDays: 0, linesPerService: 1000 }, now);
    await pruneRuntimeLogs(db(), settings({ linesPerService: 1000, batch: 300 }));
    assert.deepEqual(ids(await runtimeLines(db(), big)), [...next].sort((x, y) => x - y));
    assert.equal(next.size, 1000);
    assert.equal(await storedRuntimeCount(db(), big), 1000);
  });

  test('a statement deletes at most its batch, the oldest first', async () => {
    const svc = await service();
    await writeLines(db(), svc, replica('e'), new Date(Date.now() - 60_000), 50, 10);
    const lines = await runtimeLines(db(), svc);
    assert.equal(await deleteOldestOfService(db(), svc, 7), 7);
    assert.deepEqual(ids(await runtimeLines(db(), svc)), ids(lines.slice(7)));
    // everything older than the cutoff, across services: still 5 a statement
    const cutoff = new Date(Date.now() - 14 * DAY);
    await writeLines(db(), svc, replica('e'), new Date(cutoff.getTime() - DAY), 30);
    const due = async () => (await db().query<{ n: number }>(`select count(*)::int as n from deployment_logs
      where kind = 'RUNTIME' and deployment_id is null and run_id is null and created_at < $1`, [cutoff]))[0]!.n;
    const before = await due();
    assert.equal(await deleteOlderThan(db(), cutoff, 5), 5);
    assert.equal(await due(), before - 5);
    assert.equal(await storedRuntimeCount(db(), svc), 50 - 7 + 30 - 5);
  });

  test('a prune out of time or stopped leaves the rest for the next', async () => {
    const svc = await service();
    await writeLines(db(), svc, replica('g'), new Date(Date.now() - 30 * DAY), 20);
    await writeLines(db(), svc, replica('g'), new Date(Date.now() - 1000), 1);
    const stopped = new AbortController();
    stopped.abort();
    for (const options of [{ budgetMs: 0 }, { signal: stopped.signal }]) {
      assert.deepEqual(await pruneRuntimeLogs(db(), settings({ maxAgeDays: 14, linesPerService: 5 }), options),
        { byAge: 0, byCount: 0, statements: 0, slowestMs: 0, complete: false });
    }
    assert.equal((await runtimeLines(db(), svc)).length, 21);
    assert.equal((await pruneRuntimeLogs(db(), settings({ maxAgeDays: 14 }))).complete, true);
    assert.equal((await runtimeLines(db(), svc)).length, 1);
  });

  test('one process prunes at a time (a lease); no pruner when both limits are 0; PGlite vacuums', async () => {
    assert.equal(startLogPruner(t.ctx, settings({})), null);
    const first = startLogPruner(t.ctx, settings({ maxAgeDays: 14 }))!;
    const second = startLogPruner(t.ctx, settings({ maxAgeDays: 14 }))!;
    try {
      assert.ok(await first.tick());
      assert.equal(await second.tick(), null, 'the lease is held by the first');
      await first.stop();
      const taken = await second.tick();
      assert.ok(taken && taken.complete);
    } finally {
      await first.stop();
      await second.stop();
    }
    // PostgreSQL's autovacuum does this there
    assert.equal(await vacuumIfDue(db(), 1e9, 100), db().kind === 'pglite');
    assert.equal(await vacuumIfDue(db(), 0, 100), false);
  });
});
