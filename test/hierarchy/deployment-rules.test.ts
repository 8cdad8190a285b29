// Deployment rules: project rules (CRUD, validation, order, names), a new environment taking the
// first matching rule, and the environment's own rule (read, edit by id).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedCluster, seedEnvironment } from '../support/factories.ts';
import { hierarchyExamples } from '../../src/http/examples/hierarchy.ts';

const UNKNOWN = '00000000-0000-4000-8000-00000000dead';

describe('deployment rules', () => {
  let t: TestApp;
  before(async () => { t = await startTestApp(); });
  after(async () => { await t.close(); });

  async function setup(): Promise<{ org: SeededOrganization; pid: string; cluster: string }> {
    const org = await seedOrganization(t);
    const p = await t.request('POST', `/organization/${org.id}/project`, { token: org.token, body: { name: 'p' } });
    return { org, pid: p.body.id, cluster: await seedCluster(t, org.id) };
  }
  const { createDeploymentRule: example, editProjectDeployemtnRule: edit } = hierarchyExamples;
  /** the reference's example on this organization's cluster, with `over` */
  const rule = (cluster: string, over: object = {}) => ({ ...example, cluster_id: cluster, ...over });

  test('create (201), get, list, edit, delete; times returned in the public form', async () => {
    const { org, pid, cluster } = await setup();
    // a time is HH:MM or a date-time whose time part is used
    const r = await t.request('POST', `/project/${pid}/deploymentRule`, { token: org.token, body: rule(cluster, { stop_time: '1970-01-01T19:30:00.000Z' }) });
    assert.equal(r.status, 201, r.raw);
    assert.deepEqual(
      [r.body.name, r.body.mode, r.body.cluster_id, r.body.timezone, r.body.start_time, r.body.stop_time, r.body.weekdays, r.body.wildcard, r.body.auto_stop, r.body.priority_index, r.body.description],
      [example.name, example.mode, cluster, example.timezone, '1970-01-01T08:00:00.000Z', '1970-01-01T19:30:00.000Z', example.weekdays, example.wildcard, true, 0, example.description]);
    const got = await t.request('GET', `/project/${pid}/deploymentRule/${r.body.id}`, { token: await org.tokenFor('VIEWER') });
    assert.deepEqual(got.body, r.body);
    const e = await t.request('PUT', `/project/${pid}/deploymentRule/${r.body.id}`, { token: org.token, body: { ...edit, cluster_id: cluster } });
    assert.equal(e.status, 200, e.raw);
    assert.deepEqual([e.body.name, e.body.start_time, e.body.stop_time, e.body.weekdays, e.body.wildcard, e.body.auto_stop, e.body.description],
      [edit.name, '1970-01-01T07:00:00.000Z', '1970-01-01T21:00:00.000Z', edit.weekdays, example.wildcard, true, example.description], 'members omitted keep their value');
    const list = await t.request('GET', `/project/${pid}/deploymentRule`, { token: await org.tokenFor('VIEWER') });
    assert.equal(list.body.results.length, 1);
    assert.equal((await t.request('DELETE', `/project/${pid}/deploymentRule/${r.body.id}`, { token: org.token })).status, 204);
    expectErrorBody(await t.request('GET', `/project/${pid}/deploymentRule/${r.body.id}`, { token: org.token }), 404);
  });

  test('validation: required members, enums, time zone, times, stop after start, weekdays, foreign cluster', async () => {
    const { org, pid, cluster } = await setup();
    const other = await seedOrganization(t);
    const foreign = await seedCluster(t, other.id);
    const post = (over: object) => t.request('POST', `/project/${pid}/deploymentRule`, { token: org.token, body: rule(cluster, over) });
    for (const field of ['name', 'mode', 'cluster_id', 'timezone', 'start_time', 'stop_time', 'weekdays']) {
      assert.match(expectErrorBody(await post({ [field]: undefined }), 400).message, new RegExp(`${field} is required`));
    }
    assert.match(expectErrorBody(await post({ mode: 'TESTING' }), 400).message, /^mode/);
    assert.match(expectErrorBody(await post({ timezone: 'Mars/Base' }), 400).message, /^timezone/);
    assert.match(expectErrorBody(await post({ start_time: '25:00' }), 400).message, /^start_time/);
    assert.match(expectErrorBody(await post({ stop_time: '7pm' }), 400).message, /^stop_time/);
    assert.equal(expectErrorBody(await post({ start_time: '20:00' }), 400).message, 'stop_time must be after start_time');
    assert.match(expectErrorBody(await post({ weekdays: [] }), 400).message, /^weekdays/);
    assert.match(expectErrorBody(await post({ weekdays: ['MON'] }), 400).message, /^weekdays/);
    assert.match(expectErrorBody(await post({ weekdays: ['MONDAY', 'MONDAY'] }), 400).message, /^weekdays/);
    assert.equal(expectErrorBody(await post({ cluster_id: foreign }), 400).message, 'cluster_id does not name a cluster of this organization');
  });

  test('names unique per project in any letter case (409); permissions and unknown parents', async () => {
    const { org, pid, cluster } = await setup();
    const other = await seedOrganization(t);
    await t.request('POST', `/project/${pid}/deploymentRule`, { token: org.token, body: rule(cluster, { name: 'Night' }) });
    assert.equal(expectErrorBody(await t.request('POST', `/project/${pid}/deploymentRule`, { token: org.token, body: rule(cluster, { name: 'NIGHT' }) }), 409).message,
      'Deployment rule name is already taken in this project');
    expectErrorBody(await t.request('POST', `/project/${pid}/deploymentRule`, { token: await org.tokenFor('VIEWER'), body: rule(cluster) }), 403);
    expectErrorBody(await t.request('POST', `/project/${pid}/deploymentRule`, { token: await org.tokenFor('DEVOPS'), body: rule(cluster) }), 403);
    expectErrorBody(await t.request('GET', `/project/${pid}/deploymentRule`, { token: other.token }), 403);
    expectErrorBody(await t.request('GET', `/project/${UNKNOWN}/deploymentRule`, { token: org.token }), 404);
    expectErrorBody(await t.request('POST', `/project/${UNKNOWN}/deploymentRule`, { token: org.token, body: rule(cluster) }), 404);
    expectErrorBody(await t.request('PUT', `/project/${pid}/deploymentRule/${UNKNOWN}`, { token: org.token, body: rule(cluster) }), 404);
    expectErrorBody(await t.request('DELETE', `/project/${pid}/deploymentRule/${UNKNOWN}`, { token: org.token }), 404);
  });

  test('priority order: every rule once (400 otherwise); a new environment takes the first matching rule', async () => {
    const { org, pid, cluster } = await setup();
    const catchAll = await t.request('POST', `/project/${pid}/deploymentRule`, { token: org.token, body: rule(cluster, { name: 'all', wildcard: '*', mode: 'STAGING', start_time: '06:00' }) });
    const dev = await t.request('POST', `/project/${pid}/deploymentRule`, { token: org.token, body: rule(cluster, { name: 'dev', wildcard: 'dev-*', mode: 'PRODUCTION', start_time: '09:15', auto_stop: true }) });
    assert.equal(dev.body.priority_index, 1);
    const order = (ids: string[], token = org.token) => t.request('PUT', `/project/${pid}/deploymentRule/order`, { token, body: { project_deployment_rule_ids_in_order: ids } });
    assert.match(expectErrorBody(await order([dev.body.id]), 400).message, /every rule/);
    assert.match(expectErrorBody(await order([dev.body.id, UNKNOWN]), 400).message, /not a rule/);
    expectErrorBody(await order([dev.body.id, catchAll.body.id], await org.tokenFor('VIEWER')), 403);
    const before = await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: { name: 'dev-early' } });
    assert.equal(before.body.mode, 'STAGING', 'the catch-all rule is first');
    const ok = await order([dev.body.id, catchAll.body.id]);
    assert.equal(ok.status, 200, ok.raw);
    assert.deepEqual(ok.body.results.map((r: { id: string; priority_index: number }) => [r.id, r.priority_index]), [[dev.body.id, 0], [catchAll.body.id, 1]]);
    const env = await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: { name: 'DEV-login' } });
    assert.deepEqual([env.body.mode, env.body.cluster_id], ['PRODUCTION', cluster]);
    const envRule = await t.request('GET', `/environment/${env.body.id}/deploymentRule`, { token: org.token });
    assert.deepEqual([envRule.body.start_time, envRule.body.timezone, envRule.body.auto_stop, envRule.body.weekdays], ['1970-01-01T09:15:00.000Z', example.timezone, true, example.weekdays]);
    const explicit = await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: { name: 'dev-2', mode: 'DEVELOPMENT' } });
    assert.equal(explicit.body.mode, 'DEVELOPMENT', 'the request wins over the rule');
    // a cluster named by a rule cannot be deleted
    await t.ctx.db.query('delete from environments where project_id = $1', [pid]);
    expectErrorBody(await t.request('DELETE', `/organization/${org.id}/cluster/${cluster}`, { token: org.token }), 409);
  });

  test('environment rule: defaults, edit by id (auto_preview is the environment\'s), validation, rights, 404s', async () => {
    const org = await seedOrganization(t);
    const other = await seedOrganization(t);
    const env = await seedEnvironment(t, org);
    const r = await t.request('GET', `/environment/${env.id}/deploymentRule`, { token: await org.tokenFor('VIEWER') });
    assert.equal(r.status, 200, r.raw);
    assert.deepEqual([r.body.environment.id, r.body.timezone, r.body.start_time, r.body.stop_time, r.body.weekdays, r.body.auto_stop, r.body.auto_preview, r.body.on_demand_preview],
      [env.id, 'UTC', '1970-01-01T08:00:00.000Z', '1970-01-01T19:00:00.000Z', ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'], false, false, false]);
    const body = hierarchyExamples.editEnvironmentDeploymentRule;
    const e = await t.request('PUT', `/environment/${env.id}/deploymentRule/${r.body.id}`, { token: org.token, body });
    assert.equal(e.status, 200, e.raw);
    assert.deepEqual([e.body.id, e.body.timezone, e.body.start_time, e.body.weekdays, e.body.auto_stop, e.body.auto_preview], [r.body.id, body.timezone, '1970-01-01T07:00:00.000Z', body.weekdays, true, true]);
    const envNow = await t.request('GET', `/environment/${env.id}`, { token: org.token });
    assert.equal(envNow.body.auto_preview, true);
    assert.equal(expectErrorBody(await t.request('PUT', `/environment/${env.id}/deploymentRule/${r.body.id}`, { token: org.token, body: { ...body, stop_time: '06:00' } }), 400).message, 'stop_time must be after start_time');
    assert.match(expectErrorBody(await t.request('PUT', `/environment/${env.id}/deploymentRule/${r.body.id}`, { token: org.token, body: { ...body, timezone: 'Nowhere' } }), 400).message, /^timezone/);
    assert.match(expectErrorBody(await t.request('PUT', `/environment/${env.id}/deploymentRule/${r.body.id}`, { token: org.token, body: { ...body, weekdays: undefined } }), 400).message, /weekdays is required/);
    expectErrorBody(await t.request('PUT', `/environment/${env.id}/deploymentRule/${r.body.id}`, { token: await org.tokenFor('VIEWER'), body }), 403);
    expectErrorBody(await t.request('GET', `/environment/${env.id}/deploymentRule`, { token: other.token }), 403);
    expectErrorBody(await t.request('PUT', `/environment/${env.id}/deploymentRule/${UNKNOWN}`, { token: org.token, body }), 404);
    expectErrorBody(await t.request('GET', `/environment/${UNKNOWN}/deploymentRule`, { token: org.token }), 404);
  });
});
