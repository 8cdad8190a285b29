// The manifest endpoint: the Kubernetes objects of a service as JSON (default) or YAML, with
// variables in the ConfigMap and secret values never returned; who may read it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedEnvironment, seedService } from '../support/factories.ts';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

describe('service manifests', () => {
  let t: TestApp;
  let org: SeededOrganization;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
  });
  after(async () => { await t.close(); });

  test('an application renders Deployment, Service, Ingress; variables in the ConfigMap; secrets redacted; YAML on request', async () => {
    const env = await seedEnvironment(t, org);
    const app = await seedService(t, env, 'APPLICATION', {
      cpu: 500, memory: 512, min_running_instances: 1, max_running_instances: 3,
      ports: [{ internal_port: 3000, publicly_accessible: true }],
      healthchecks: { liveness_probe: { type: { http: { path: '/health', port: 3000 } } } },
    });
    await t.ctx.db.query(
      `insert into variables (organization_id, project_id, environment_id, service_id, parent_id, scope, key, variable_type, is_secret, value, value_sealed)
       values ($1, $2, $3, $4, $4, 'APPLICATION', 'PLAIN_KEY', 'VALUE', false, 'plain-value', null),
              ($1, $2, $3, $4, $4, 'APPLICATION', 'SECRET_KEY', 'VALUE', true, null, $5)`,
      [env.organizationId, env.projectId, env.id, app, t.ctx.sealer.seal('top-secret-value')]);
    const r = await t.request('GET', `/application/${app}/manifest`, { token: await org.tokenFor('VIEWER') });
    assert.equal(r.status, 200, r.raw);
    const kinds = r.body.results.map((o: { kind: string }) => o.kind);
    for (const k of ['ConfigMap', 'Secret', 'Deployment', 'Service', 'Ingress', 'HorizontalPodAutoscaler']) assert.ok(kinds.includes(k), k);
    for (const o of r.body.results) {
      assert.match(o.metadata.name, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      assert.ok(typeof o.apiVersion === 'string' && o.apiVersion.length > 0);
    }
    const cm = r.body.results.find((o: { kind: string }) => o.kind === 'ConfigMap');
    assert.equal(cm.data.PLAIN_KEY, 'plain-value');
    const secret = r.body.results.find((o: { kind: string }) => o.kind === 'Secret');
    assert.ok('SECRET_KEY' in secret.data);
    assert.ok(!r.raw.includes('top-secret-value') && !r.raw.includes(Buffer.from('top-secret-value').toString('base64')));
    const dep = r.body.results.find((o: { kind: string }) => o.kind === 'Deployment');
    assert.deepEqual(dep.spec.template.spec.containers[0].resources.requests, { cpu: '500m', memory: '512Mi' });
    assert.equal(dep.spec.template.spec.containers[0].livenessProbe.httpGet.path, '/health');
    const yaml = await t.request('GET', `/application/${app}/manifest?format=yaml`, { token: org.token });
    assert.equal(yaml.status, 200);
    assert.match(String(yaml.headers['content-type']), /yaml/);
    assert.match(yaml.raw, /^kind: Deployment$/m);
    assert.ok(!yaml.raw.includes('top-secret-value'));
  });

  test('a job renders a CronJob; a wrong type or unknown id is 404, another organization 403, a bad format 400', async () => {
    const env = await seedEnvironment(t, org);
    const job = await seedService(t, env, 'JOB', { image_name: 'busybox', schedule: { cronjob: { scheduled_at: '0 3 * * *' } } });
    const r = await t.request('GET', `/job/${job}/manifest`, { token: org.token });
    assert.ok(r.body.results.some((o: { kind: string }) => o.kind === 'CronJob'));
    expectErrorBody(await t.request('GET', `/application/${job}/manifest`, { token: org.token }), 404);
    expectErrorBody(await t.request('GET', `/job/${job}/manifest`, { token: (await seedOrganization(t)).token }), 403);
    expectErrorBody(await t.request('GET', `/job/${job}/manifest?format=xml`, { token: org.token }), 400);
  });
});
