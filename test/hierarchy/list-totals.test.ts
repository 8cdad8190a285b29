// Page totals come from stored counts (migrations/0011_row_counts.sql, spread over shards by
// 0014): they must equal a real count after creates, deletes, cascades and clones, concurrent
// ones included, and a page must not cost more at 100,000 rows than at 100.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, seedService, type SeededEnvironment } from '../support/factories.ts';

describe('list totals', () => {
  let t: TestApp;
  let org: SeededOrganization;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
  });
  after(async () => { await t.close(); });

  async function total(path: string): Promise<number> {
    const r = await t.request('GET', `${path}${path.includes('?') ? '&' : '?'}page=1&page_size=5`, { token: org.token });
    assert.equal(r.status, 200, r.raw);
    return r.body.pagination.total_count;
  }
  async function counted(sql: string, id: string): Promise<number> {
    return Number((await t.ctx.db.query<{ n: number }>(sql, [id]))[0]!.n);
  }

  test('environments and projects: creates, deletes, a project delete cascading, the project count', async () => {
    const env = await seedEnvironment(t, org);
    const p = env.projectId;
    for (let i = 0; i < 3; i++) {
      const r = await t.request('POST', `/project/${p}/environment`, { token: org.token, body: { name: `e${i}`, cluster_id: env.clusterId } });
      assert.equal(r.status, 201, r.raw);
    }
    assert.equal(await total(`/project/${p}/environment`), 4);
    assert.equal((await t.request('GET', `/project/${p}`, { token: org.token })).body.associated_environments_count, 4);
    const list = await t.request('GET', `/project/${p}/environment?page=1&page_size=10`, { token: org.token });
    assert.equal((await t.request('DELETE', `/environment/${list.body.results[1].id}`, { token: org.token })).status < 300, true);
    await t.ctx.db.query('delete from environments where id = $1', [list.body.results[2].id]);
    assert.equal(await total(`/project/${p}/environment`), await counted('select count(*)::int as n from environments where project_id = $1', p));
    assert.equal(await total(`/project/${p}/environment?name=E2`), 1, 'a name filter counts the filtered rows');

    const projectsBefore = await total(`/organization/${org.id}/project`);
    assert.equal(projectsBefore, await counted('select count(*)::int as n from projects where organization_id = $1', org.id));
    await t.ctx.db.query('delete from projects where id = $1', [p]);
    assert.equal(await total(`/organization/${org.id}/project`), projectsBefore - 1);
    const left = await t.ctx.db.query('select * from row_counts where parent_id = $1', [p]);
    assert.deepEqual(left, [], 'a deleted parent leaves no counts behind');
  });

  test('concurrent creates and deletes in one parent: exact totals, the sessions counting on their own shards', async () => {
    const env = await seedEnvironment(t, org);
    const p = env.projectId;
    const created = await Promise.all(Array.from({ length: 24 }, (_, i) =>
      t.request('POST', `/project/${p}/environment`, { token: org.token, body: { name: `c${i}`, cluster_id: env.clusterId } })));
    for (const r of created) assert.equal(r.status, 201, r.raw);
    await Promise.all(created.slice(0, 6).map((r) => t.ctx.db.query('delete from environments where id = $1', [r.body.id])));
    const exact = await counted('select count(*)::int as n from environments where project_id = $1', p);
    assert.equal(exact, 1 + 24 - 6);
    assert.equal(await total(`/project/${p}/environment`), exact);
    assert.equal((await t.request('GET', `/project/${p}`, { token: org.token })).body.associated_environments_count, exact);
    const shards = await counted(`select count(*)::int as n from row_counts where parent_id = $1 and kind = 'environments'`, p);
    // PGlite is one session (one shard); a PostgreSQL pool runs concurrent requests on several
    if (process.env.DATABASE_URL) assert.ok(shards > 1, `concurrent sessions share one counter row (${shards} shard)`);
    assert.ok(shards <= 8);
  });

  test('services by type, and a clone copying several services in one statement', async () => {
    const env: SeededEnvironment = await seedEnvironment(t, org);
    await seedService(t, env, 'APPLICATION');
    await seedService(t, env, 'APPLICATION');
    const job = await seedService(t, env, 'JOB', { job_type: 'CRON' });
    await seedService(t, env, 'CONTAINER');
    assert.equal(await total(`/environment/${env.id}/application`), 2);
    assert.equal(await total(`/environment/${env.id}/container`), 1);
    await t.ctx.db.query('delete from services where id = $1', [job]);
    const clone = await t.request('POST', `/environment/${env.id}/clone`, { token: org.token, body: { name: 'copy' } });
    assert.equal(clone.status, 202, clone.raw);
    assert.equal(await total(`/environment/${clone.body.id}/application`), 2);
    assert.equal(await total(`/environment/${clone.body.id}/container`), 1);
    const byType = await t.ctx.db.query<{ kind: string; n: number }>(
      `select kind, sum(n)::int as n from row_counts where parent_id = $1 group by kind having sum(n) > 0 order by kind`, [env.id]);
    assert.deepEqual(byType, [{ kind: 'services.APPLICATION', n: 2 }, { kind: 'services.CONTAINER', n: 1 }]);
  });

  test('100,000 environments in a project: the total is exact and a page costs what it costs at 100', async () => {
    const small = await seedEnvironment(t, org);
    const big = await seedEnvironment(t, org);
    await t.ctx.db.query(
      `insert into environments (organization_id, project_id, cluster_id, name, mode)
       select $1, $2, $3, 'bulk-' || i, 'DEVELOPMENT' from generate_series(1, 99) i`, [org.id, small.projectId, small.clusterId]);
    await t.ctx.db.query(
      `insert into environments (organization_id, project_id, cluster_id, name, mode)
       select $1, $2, $3, 'bulk-' || i, 'DEVELOPMENT' from generate_series(1, 99999) i`, [org.id, big.projectId, big.clusterId]);
    await t.ctx.db.exec('analyze environments');
    assert.equal(await total(`/project/${big.projectId}/environment`), 100_000);
    assert.equal(await total(`/project/${small.projectId}/environment`), 100);

    const timeOf = async (path: string) => {
      const times: number[] = [];
      for (let i = 0; i < 15; i++) {
        const start = process.hrtime.bigint();
        await total(path);
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      return times.sort((a, b) => a - b)[7]!;
    };
    await timeOf(`/project/${small.projectId}/environment`);
    const smallMs = await timeOf(`/project/${small.projectId}/environment`);
    const bigMs = await timeOf(`/project/${big.projectId}/environment`);
    // counting 100,000 rows takes tens of milliseconds; a stored count keeps the two alike
    assert.ok(bigMs < smallMs * 3 + 2, `page of 100,000: ${bigMs.toFixed(2)} ms, of 100: ${smallMs.toFixed(2)} ms`);
    await t.ctx.db.query('delete from projects where id = any($1::uuid[])', [[small.projectId, big.projectId]]);
  });
});
