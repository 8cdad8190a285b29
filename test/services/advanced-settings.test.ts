// Advanced settings of applications, containers and jobs over HTTP: defaults, GET, PUT of a
// subset (the keys sent change, the others stay; 201 with the complete object), unknown keys and
// invalid values 400 naming the key, authorization; and the environment's listing of every service.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { advancedSettingKeys, defaultAdvancedSettings } from '../../src/modules/services/advanced-settings/index.ts';
import { serviceExamples } from '../../src/http/examples/services.ts';

describe('advanced settings and the services listing', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let appId: string;
  let containerId: string;
  let jobId: string;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    const reg = await t.ctx.db.query<{ id: string }>(`insert into container_registries (organization_id, name, kind, url) values ($1, 'r', 'ECR', 'https://ecr') returning id`, [org.id]);
    const app = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: { name: 'app', git_repository: { url: 'https://github.com/a/b' } } });
    const container = await t.request('POST', `/environment/${env.id}/container`, { token: org.token, body: { name: 'ctr', registry_id: reg[0]!.id, image_name: 'i', tag: 't' } });
    const job = await t.request('POST', `/environment/${env.id}/job`, { token: org.token, body: { name: 'job', source: { image: { image_name: 'i', tag: 't', registry_id: reg[0]!.id } }, schedule: { on_start: {} } } });
    appId = app.body.id;
    containerId = container.body.id;
    jobId = job.body.id;
  });
  after(async () => t.close());

  test('defaults endpoints answer every key of each kind with the facts defaults', async () => {
    for (const kind of ['application', 'container', 'job'] as const) {
      const title = kind[0]!.toUpperCase() + kind.slice(1);
      const r = await t.request('GET', `/default${title}AdvancedSettings`, { token: await org.tokenFor('VIEWER') });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, defaultAdvancedSettings(kind));
      assert.deepEqual(Object.keys(r.body).sort(), [...advancedSettingKeys(kind)].sort());
    }
    const app = (await t.request('GET', '/defaultApplicationAdvancedSettings', { token: org.token })).body;
    assert.equal(app['build.timeout_max_sec'], 1800);
    assert.equal(app['deployment.termination_grace_period_seconds'], 60);
    assert.deepEqual(app['deployment.lifecycle.pre_stop_exec_command'], ['/bin/sh', '-c', 'sleep 15']);
    assert.equal(app['network.ingress.whitelist_source_range'], '0.0.0.0/0');
  });

  test('application: GET is the defaults, PUT of a subset changes only those keys (201)', async () => {
    const before = await t.request('GET', `/application/${appId}/advancedSettings`, { token: org.token });
    assert.deepEqual(before.body, defaultAdvancedSettings('application'));
    const put = await t.request('PUT', `/application/${appId}/advancedSettings`, { token: await org.tokenFor('DEVOPS'), body: serviceExamples.editAdvancedSettings });
    assert.equal(put.status, 201, put.raw);
    assert.equal(put.body['network.ingress.proxy_body_size_mb'], 250);
    assert.equal(put.body['deployment.update_strategy.type'], 'Recreate');
    assert.equal(put.body['build.timeout_max_sec'], 1800);
    const second = await t.request('PUT', `/application/${appId}/advancedSettings`, { token: org.token, body: { 'hpa.cpu.average_utilization_percent': 80 } });
    assert.equal(second.body['network.ingress.proxy_body_size_mb'], 250, 'keys not sent stay');
    assert.deepEqual((await t.request('GET', `/application/${appId}/advancedSettings`, { token: org.token })).body, second.body);
    const stored = await t.ctx.db.query<{ advanced_settings: Record<string, unknown> }>('select advanced_settings from services where id = $1', [appId]);
    assert.deepEqual(Object.keys(stored[0]!.advanced_settings).sort(), ['deployment.update_strategy.type', 'hpa.cpu.average_utilization_percent', 'network.ingress.proxy_body_size_mb']);
  });

  test('unknown keys, wrong types, bad values and other kinds keys are 400 naming the key', async () => {
    const put = (id: string, path: string, body: unknown) => t.request('PUT', `/${path}/${id}/advancedSettings`, { token: org.token, body });
    assert.match(expectErrorBody(await put(appId, 'application', { 'network.ingress.nope': 1 }), 400).message, /network.ingress.nope/);
    assert.match(expectErrorBody(await put(appId, 'application', { 'build.timeout_max_sec': 'long' }), 400).message, /build.timeout_max_sec/);
    assert.match(expectErrorBody(await put(appId, 'application', { 'deployment.antiaffinity.pod': 'Required' }), 400).message, /deployment.antiaffinity.pod/);
    assert.match(expectErrorBody(await put(appId, 'application', { 'network.ingress.whitelist_source_range': '10.0.0.0/33' }), 400).message, /network.ingress.whitelist_source_range/);
    assert.match(expectErrorBody(await put(appId, 'application', { 'deployment.update_strategy.type': 'RollingUpdate', 'deployment.update_strategy.rolling_update.max_unavailable_percent': 0, 'deployment.update_strategy.rolling_update.max_surge_percent': 0 }), 400).message, /cannot both be 0/);
    assert.match(expectErrorBody(await put(containerId, 'container', { 'build.timeout_max_sec': 10 }), 400).message, /build.timeout_max_sec/);
    assert.match(expectErrorBody(await put(jobId, 'job', { 'network.ingress.enable_cors': true }), 400).message, /network.ingress.enable_cors/);
    expectErrorBody(await put(appId, 'container', {}), 404);
  });

  test('container and job settings; job build.* keys are its build_settings; VIEWER cannot PUT', async () => {
    const c = await t.request('PUT', `/container/${containerId}/advancedSettings`, { token: org.token, body: serviceExamples.editContainerAdvancedSettings });
    assert.equal(c.status, 201, c.raw);
    assert.equal(c.body['network.ingress.proxy_request_buffering'], 'off');
    assert.equal(c.body['network.ingress.proxy_read_timeout_seconds'], 120);
    const j = await t.request('PUT', `/job/${jobId}/advancedSettings`, { token: org.token, body: serviceExamples.editJobAdvancedSettings });
    assert.equal(j.status, 201, j.raw);
    assert.deepEqual(Object.keys(j.body).sort(), [...advancedSettingKeys('job')].sort());
    assert.equal((await t.request('GET', `/job/${jobId}`, { token: org.token })).body.build_settings.ram_max_in_gib, 4);
    expectErrorBody(await t.request('PUT', `/job/${jobId}/advancedSettings`, { token: await org.tokenFor('VIEWER'), body: {} }), 403);
    const stranger = await seedOrganization(t);
    expectErrorBody(await t.request('GET', `/job/${jobId}/advancedSettings`, { token: stranger.token }), 403);
    expectErrorBody(await t.request('GET', '/defaultJobAdvancedSettings'), 401);
  });

  test('a settings change of a deployed service marks it OUT_OF_DATE', async () => {
    await t.ctx.db.query(`update services set deployment_status = 'UP_TO_DATE' where id = $1`, [containerId]);
    await t.request('PUT', `/container/${containerId}/advancedSettings`, { token: org.token, body: { 'hpa.cpu.average_utilization_percent': 70 } });
    assert.equal((await t.request('GET', `/container/${containerId}/status`, { token: org.token })).body.service_deployment_status, 'OUT_OF_DATE');
  });

  test('GET /environment/{id}/services lists every service of any type', async () => {
    const db = await t.request('POST', `/environment/${env.id}/database`, { token: org.token, body: { name: 'db', type: 'REDIS', version: '7', mode: 'CONTAINER' } });
    const r = await t.request('GET', `/environment/${env.id}/services`, { token: await org.tokenFor('VIEWER') });
    assert.equal(r.status, 200);
    const byName = Object.fromEntries(r.body.results.map((s: { name: string }) => [s.name, s]));
    assert.deepEqual(Object.keys(byName).sort(), ['app', 'ctr', 'db', 'job']);
    assert.equal(byName.db.id, db.body.id);
    assert.equal(byName.job.service_type, 'JOB');
    assert.equal(byName.app.service_type, 'APPLICATION');
    assert.deepEqual(byName.db.environment, { id: env.id });
    assert.equal(byName.db.state, 'STOPPED');
    assert.equal(byName.db.service_deployment_status, 'NEVER_DEPLOYED');
    assert.ok(byName.db.created_at.endsWith('Z'));
    assert.equal(r.body.pagination.total_count, 4);
    const paged = await t.request('GET', `/environment/${env.id}/services?page=2&page_size=3`, { token: org.token });
    assert.equal(paged.body.results.length, 1);
    assert.equal(paged.body.pagination.total_pages, 2);
    const stranger = await seedOrganization(t);
    expectErrorBody(await t.request('GET', `/environment/${env.id}/services`, { token: stranger.token }), 403);
    expectErrorBody(await t.request('GET', '/environment/00000000-0000-4000-8000-000000000000/services', { token: org.token }), 404);
  });
});
