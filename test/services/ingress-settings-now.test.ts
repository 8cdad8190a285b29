// Ingress-only advanced settings take effect at once (issue 30, decision 0337): an edit of
// network.ingress.* keys alone hands the engine the service's complete settings and the value of
// the variable basic_auth_env_var names (a secret opened), and leaves the service UP_TO_DATE; an
// edit of any other key marks it OUT_OF_DATE as before; an engine that cannot apply them marks it
// OUT_OF_DATE too, without failing the edit. (The docker engine's side: test/engine/ingress-settings.test.ts.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IngressSettingsTarget } from '../../src/engine/engine.ts';
import { seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment } from '../support/factories.ts';

describe('ingress settings edited on a running service', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let appId: string;
  const calls: IngressSettingsTarget[] = [];
  let fail = false;
  const status = async () => (await t.request('GET', `/application/${appId}/status`, { token: org.token })).body.service_deployment_status;
  const put = (body: Record<string, unknown>) => t.request('PUT', `/application/${appId}/advancedSettings`, { token: org.token, body });
  const deployed = () => t.ctx.db.query(`update services set deployment_status = 'UP_TO_DATE' where id = $1`, [appId]);

  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    const env = await seedEnvironment(t, org);
    appId = (await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: { name: 'app', git_repository: { url: 'https://github.com/a/b' } } })).body.id;
    t.ctx.engine.applyIngressSettings = async (service) => {
      calls.push(service);
      if (fail) throw new Error('ingress: HAProxy does not answer');
      return [];
    };
  });
  after(async () => t.close());

  test('only ingress keys: the engine applies them, the service stays UP_TO_DATE', async () => {
    await deployed();
    assert.equal((await put({ 'network.ingress.whitelist_source_range': '10.0.0.0/8' })).status, 201);
    assert.equal(await status(), 'UP_TO_DATE');
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.id, appId);
    assert.equal(calls[0]!.advancedSettings['network.ingress.whitelist_source_range'], '10.0.0.0/8');
    assert.equal(calls[0]!.advancedSettings['network.ingress.proxy_body_size_mb'], 100, 'complete settings, defaults included');
    assert.deepEqual(calls[0]!.env, {}, 'no variable read without basic auth');
  });

  test('basic auth: the named variable\'s value (a secret, opened) goes to the engine, and only that one', async () => {
    await t.request('POST', `/application/${appId}/secret`, { token: org.token, body: { key: 'HTPASSWD', value: 'u:$6$abc$x' } });
    await t.request('POST', `/application/${appId}/environmentVariable`, { token: org.token, body: { key: 'OTHER', value: 'o' } });
    await deployed();
    calls.length = 0;
    assert.equal((await put({ 'network.ingress.basic_auth_env_var': 'HTPASSWD' })).status, 201);
    assert.deepEqual(calls.map((c) => c.env), [{ HTPASSWD: 'u:$6$abc$x' }]);
    assert.equal(await status(), 'UP_TO_DATE', 'a variable added since the deployment is the variables\' business, not this edit\'s');
  });

  test('any other key, alone or with ingress keys: OUT_OF_DATE as before; no change: the engine is not called', async () => {
    await deployed();
    calls.length = 0;
    assert.equal((await put({ 'network.ingress.basic_auth_env_var': 'HTPASSWD' })).status, 201);
    assert.equal(calls.length, 0, 'nothing changed');
    assert.equal((await put({ 'hpa.cpu.average_utilization_percent': 70, 'network.ingress.enable_cors': true })).status, 201);
    assert.equal(await status(), 'OUT_OF_DATE');
    assert.equal(calls.length, 1, 'the ingress keys still take effect at once');
  });

  test('an engine that cannot apply them: the edit is stored and the service marked OUT_OF_DATE', async () => {
    await deployed();
    fail = true;
    const r = await put({ 'network.ingress.enable_sticky_session': true });
    fail = false;
    assert.equal(r.status, 201);
    assert.equal(r.body['network.ingress.enable_sticky_session'], true);
    assert.equal(await status(), 'OUT_OF_DATE');
  });
});
