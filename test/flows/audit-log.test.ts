// The organization audit log through the API: every successful mutation is one event (who, what,
// when, where), read by ADMIN and above, newest first, filtered, paged by cursor tokens, and kept
// (with its names) after the target is deleted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

describe('organization audit log', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let appId: string;
  const events = async (query = '', token = org.token) => t.request('GET', `/organization/${org.id}/events${query}`, { token });
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    const devops = await org.tokenFor('DEVOPS');
    const app = await t.request('POST', `/environment/${env.id}/application`, { token: devops, headers: { 'x-berth-origin': 'cli', 'user-agent': 'berth-cli/1' }, body: { name: 'Audited', git_repository: { url: 'https://github.com/acme/a' } } });
    assert.equal(app.status, 201, app.raw);
    appId = app.body.id;
    assert.equal((await t.request('PUT', `/application/${appId}`, { token: devops, body: { description: 'changed', cpu: 250 } })).status, 200);
    assert.equal((await t.request('POST', `/application/${appId}/environmentVariable`, { token: devops, body: { key: 'K', value: 'secret-looking-value' } })).status, 201);
    assert.equal((await t.request('POST', `/application/${appId}/deploy`, { token: devops })).status, 202);
    assert.equal((await t.request('GET', `/application/${appId}`, { token: devops })).status, 200);
    assert.equal((await t.request('PUT', `/application/${appId}`, { token: devops, body: { cpu: 'lots' } })).status, 400);
    const del = await t.request('DELETE', `/application/${appId}`, { token: devops });
    assert.equal(del.status, 204, del.raw);
  });
  after(() => t.close());

  test('each successful mutation is one event, newest first, in the public shape; reads and failures are not', async () => {
    const r = await events();
    assert.equal(r.status, 200, r.raw);
    const mine = r.body.events.filter((e: { target_id: string }) => e.target_id === appId);
    assert.deepEqual(mine.map((e: { event_type: string; sub_target_type: string | null }) => [e.event_type, e.sub_target_type]), [
      ['DELETE', null], ['TRIGGER_DEPLOY', null], ['CREATE', 'VARIABLE'], ['UPDATE', null], ['CREATE', null],
    ]);
    const created = mine.at(-1);
    assert.deepEqual(
      [created.target_type, created.target_name, created.project_id, created.environment_id, created.environment_name, created.origin, created.user_agent],
      ['APPLICATION', 'Audited', env.projectId, env.id, env.name, 'CLI', 'berth-cli/1']);
    assert.match(created.triggered_by, /^token devops-/);
    assert.match(created.timestamp, /^\d{4}-\d\d-\d\dT/);
    assert.equal(mine[0].target_name, 'Audited', 'the name is kept after deletion');
    assert.deepEqual(JSON.parse(mine[3].change), { fields: ['description', 'cpu'] });
    assert.ok(!r.raw.includes('secret-looking-value'), 'values are never recorded');
    assert.equal(r.body.organization_max_limit_reached, false);
  });

  test('a created project and environment are their own place; the environment is placed in its project', async () => {
    const project = await t.request('POST', `/organization/${org.id}/project`, { token: org.token, body: { name: 'Placed' } });
    assert.equal(project.status, 201, project.raw);
    const environment = await t.request('POST', `/project/${project.body.id}/environment`, { token: org.token, body: { name: 'placed-env', cluster_id: env.clusterId } });
    assert.equal(environment.status, 201, environment.raw);
    const place = (e: Record<string, unknown>) => [e.event_type, e.target_type, e.target_name, e.project_id, e.project_name, e.environment_id, e.environment_name];
    const [ofProject] = (await events(`?targetId=${project.body.id}`)).body.events;
    assert.deepEqual(place(ofProject), ['CREATE', 'PROJECT', 'Placed', project.body.id, 'Placed', null, '']);
    const [ofEnvironment] = (await events(`?targetId=${environment.body.id}`)).body.events;
    assert.deepEqual(place(ofEnvironment), ['CREATE', 'ENVIRONMENT', 'placed-env', project.body.id, 'Placed', environment.body.id, 'placed-env']);
  });

  test('filters: event type, target, sub-target, environment, origin, time', async () => {
    const del = await events(`?eventType=DELETE&targetType=APPLICATION`);
    assert.deepEqual(del.body.events.map((e: { target_id: string }) => e.target_id), [appId]);
    const byTarget = await events(`?targetId=${appId}&subTargetType=VARIABLE`);
    assert.equal(byTarget.body.events.length, 1);
    assert.equal((await events(`?serviceEnvironmentId=${env.id}&origin=CLI`)).body.events.length, 1);
    assert.equal((await events(`?fromTimestamp=${Date.now() + 60_000}`)).body.events.length, 0);
    assert.ok((await events(`?toTimestamp=${new Date(Date.now() + 60_000).toISOString()}`)).body.events.length >= 5);
    expectErrorBody(await events('?fromTimestamp=yesterday'), 400);
  });

  test('pages join by continueToken and stepBackToken', async () => {
    const all = (await events(`?targetId=${appId}`)).body.events.map((e: { id: string }) => e.id);
    const first = await events(`?targetId=${appId}&pageSize=2`);
    assert.deepEqual(first.body.events.map((e: { id: string }) => e.id), all.slice(0, 2));
    assert.equal(first.body.links.previous, undefined);
    const second = await t.request('GET', first.body.links.next, { token: org.token });
    assert.deepEqual(second.body.events.map((e: { id: string }) => e.id), all.slice(2, 4));
    const third = await t.request('GET', second.body.links.next, { token: org.token });
    assert.deepEqual(third.body.events.map((e: { id: string }) => e.id), all.slice(4));
    assert.equal(third.body.links.next, undefined);
    const back = await t.request('GET', third.body.links.previous, { token: org.token });
    assert.deepEqual(back.body.events.map((e: { id: string }) => e.id), all.slice(2, 4));
    expectErrorBody(await events('?continueToken=nonsense'), 400);
  });

  test('ADMIN and above read it; DEVOPS and other organizations cannot', async () => {
    assert.equal((await events('', await org.tokenFor('ADMIN'))).status, 200);
    expectErrorBody(await events('', await org.tokenFor('DEVOPS')), 403);
    expectErrorBody(await events('', (await seedOrganization(t)).token), 403);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/events`), 401);
  });

  test('a page of the newest events is read from the key (organization, seq) backwards: no sort, no second index', async () => {
    const plan = await t.ctx.db.transaction(async (tx) => {
      await tx.query('set local enable_seqscan = off'); // a test database is small enough to be read whole
      return tx.query<{ 'QUERY PLAN': unknown }>(`explain (format json) select seq from audit_events
        where organization_id = '${org.id}' and seq < 9000000000 order by seq desc limit 21`);
    });
    const text = JSON.stringify(plan);
    assert.match(text, /"Scan Direction":"Backward"/);
    assert.match(text, /"Index Name":"audit_events_pkey"/);
    assert.doesNotMatch(text, /"Node Type":"Sort"/);
  });
});
