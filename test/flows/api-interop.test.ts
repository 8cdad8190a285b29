// Interoperability details the SDK test relies on, each on its own: bodiless POSTs whatever
// their content type (a present non-JSON body keeps its 415), optional action bodies in the
// OpenAPI document, role_id null, cluster advanced settings' refusals, the environment status
// routes' 404/403, and service links from the ingress settings.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedEnvironment, seedService } from '../support/factories.ts';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { hierarchyExamples } from '../../src/http/examples/hierarchy.ts';

describe('API interoperability', () => {
  let t: TestApp;
  let org: SeededOrganization;
  before(async () => {
    t = await startTestApp({ env: { INGRESS_DOMAIN: 'apps.example.test', INGRESS_PORT: '8443' } });
    org = await seedOrganization(t);
  });
  after(() => t.close());

  const post = (url: string, headers: Record<string, string>, payload?: string) =>
    t.app.inject({ method: 'POST', url, headers: { authorization: `Token ${org.token}`, ...headers }, ...(payload !== undefined ? { payload } : {}) });

  test('an action with no body is accepted whatever its content type; a non-JSON body is 415', async () => {
    const env = await seedEnvironment(t, org);
    const db = await seedService(t, env, 'DATABASE');
    for (const type of ['application/x-www-form-urlencoded', 'application/json', 'text/plain', 'application/octet-stream']) {
      const r = await post(`/database/${db}/deploy`, { 'content-type': type }, '');
      assert.equal(r.statusCode, 202, `${type}: ${r.body}`);
    }
    assert.equal((await post(`/api/v1/database/${db}/stop`, { 'content-type': 'application/x-www-form-urlencoded' })).statusCode, 202);
    const form = await post(`/database/${db}/deploy`, { 'content-type': 'application/x-www-form-urlencoded' }, 'a=1');
    assert.equal(form.statusCode, 415);
    assert.equal(JSON.parse(form.body).code, 'unsupported_media_type');
  });

  test('a create with no body is a 400 naming the missing body, not a 415', async () => {
    const r = await post(`/organization/${org.id}/project`, { 'content-type': 'application/x-www-form-urlencoded' }, '');
    assert.equal(r.statusCode, 400, r.body);
    assert.match(JSON.parse(r.body).message, /body/);
  });

  test('the OpenAPI document marks action bodies optional and create bodies required', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    assert.equal(doc.paths['/database/{databaseId}/deploy'].post.requestBody.required, false);
    assert.equal(doc.paths['/environment/{environmentId}/stop'].post.requestBody.required, false);
    assert.equal(doc.paths['/organization/{organizationId}/project'].post.requestBody.required, true);
  });

  test('an API token with role_id null is a VIEWER token; with nothing it is still a 400', async () => {
    const r = await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: { name: 'nullrole', role_id: null } });
    assert.equal(r.status, 201, r.raw);
    assert.equal(r.body.role, 'VIEWER');
    const viewer = r.body.token as string;
    expectErrorBody(await t.request('POST', `/organization/${org.id}/project`, { token: viewer, body: { name: 'nope' } }), 403);
    assert.match(expectErrorBody(await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: { name: 'none' } }), 400).message, /role_id null/);
  });

  test('cluster advanced settings: unknown keys and wrong types are 400, VIEWER cannot change them, defaults stay out of storage', async () => {
    const env = await seedEnvironment(t, org);
    const url = `/organization/${org.id}/cluster/${env.clusterId}/advancedSettings`;
    const got = await t.request('GET', url, { token: await org.tokenFor('VIEWER') });
    assert.equal(got.status, 200);
    assert.equal(got.body['registry.image_retention_time'], 31536000);
    assert.match(expectErrorBody(await t.request('PUT', url, { token: org.token, body: { 'loki.retention': 3 } }), 400).message, /loki\.retention/);
    expectErrorBody(await t.request('PUT', url, { token: org.token, body: { 'loki.log_retention_in_week': 'four' } }), 400);
    expectErrorBody(await t.request('PUT', url, { token: await org.tokenFor('DEVOPS'), body: { 'loki.log_retention_in_week': 2 } }), 403);
    // the reference's example, and a default value (12 weeks), which is not stored
    const example = hierarchyExamples.editClusterAdvancedSettings;
    const put = await t.request('PUT', url, { token: org.token, body: { ...example, 'loki.log_retention_in_week': 12 } });
    assert.equal(put.status, 201);
    assert.deepEqual(put.body['database.redis.allowed_cidrs'], example['database.redis.allowed_cidrs']);
    const stored = await t.ctx.db.query<{ advanced_settings: Record<string, unknown> }>('select advanced_settings from clusters where id = $1', [env.clusterId]);
    assert.deepEqual(stored[0]!.advanced_settings, example);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/cluster/00000000-0000-4000-8000-000000000000/advancedSettings`, { token: org.token }), 404);
  });

  test('environment status routes: 404 for an unknown environment, 403 for another organization', async () => {
    const env = await seedEnvironment(t, org);
    const stranger = await seedOrganization(t);
    for (const path of ['status', 'statuses', 'deploymentHistoryV2']) {
      expectErrorBody(await t.request('GET', `/environment/00000000-0000-4000-8000-000000000000/${path}`, { token: org.token }), 404);
      expectErrorBody(await t.request('GET', `/environment/${env.id}/${path}`, { token: stranger.token }), 403);
    }
  });

  test('links come from INGRESS_DOMAIN and INGRESS_PORT and the public ports; databases have no link route', async () => {
    const env = await seedEnvironment(t, org);
    const app = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: {
      name: 'Front End', git_repository: { url: 'https://github.com/acme/front' },
      ports: [{ internal_port: 3000, publicly_accessible: true }, { internal_port: 9090, publicly_accessible: true }, { internal_port: 5000, publicly_accessible: false }],
    } });
    assert.equal(app.status, 201, app.raw);
    const links = (await t.request('GET', `/application/${app.body.id}/link`, { token: await org.tokenFor('VIEWER') })).body.results;
    const env8 = env.id.replace(/-/g, '').slice(0, 8);
    assert.deepEqual(links.map((l: { url: string; is_default: boolean }) => [l.url, l.is_default]), [
      [`http://front-end-${env8}.apps.example.test:8443`, true],
      [`http://p3000-front-end-${env8}.apps.example.test:8443`, false],
      [`http://p9090-front-end-${env8}.apps.example.test:8443`, false],
    ]);
    const db = await seedService(t, env, 'DATABASE');
    expectErrorBody(await t.request('GET', `/application/${db}/link`, { token: org.token }), 404);
    expectErrorBody(await t.request('GET', `/database/${db}/link`, { token: org.token }), 404);
  });
});
