// GET /metrics: Prometheus text with request durations by route and status and queue depth,
// readable by loopback clients, or with METRICS_TOKEN as a bearer token.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedEnvironment, seedService } from '../support/factories.ts';
import { seedOrganization, startTestApp } from '../support/harness.ts';

describe('metrics', () => {
  test('request durations by route and status, queue depth per kind', async () => {
    const t = await startTestApp();
    try {
      const org = await seedOrganization(t);
      await t.request('GET', `/organization/${org.id}`, { token: org.token });
      await t.request('GET', '/organization/00000000-0000-4000-8000-000000000000', { token: org.token });
      const r = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
      assert.equal(r.statusCode, 200);
      assert.match(r.headers['content-type'] as string, /text\/plain/);
      assert.match(r.body, /berth_http_request_duration_seconds_count\{method="GET",route="\/organization\/:organizationId",status="200"\} 1/);
      assert.match(r.body, /status="404"\} 1/);
      assert.match(r.body, /berth_queue_tasks\{kind="maintenance.cleanup",state="created"\} \d+/);
      const env = await seedEnvironment(t, org);
      const app = await seedService(t, env, 'APPLICATION');
      assert.equal((await t.request('POST', `/application/${app}/deploy`, { token: org.token, body: {} })).status, 202);
      const after = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
      assert.match(after.body, /# TYPE berth_deployments gauge\nberth_deployments\{status="[A-Z_]+"\} [1-9]/);
      assert.match(after.body, /# TYPE berth_webhook_attempts gauge/);
      const remote = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.9' });
      assert.equal(remote.statusCode, 403);
    } finally {
      await t.close();
    }
  });

  test('with METRICS_TOKEN the bearer token is required', async () => {
    const t = await startTestApp({ config: { metricsToken: 'scrape-me' } });
    try {
      assert.equal((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 401);
      const ok = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.9', headers: { authorization: 'Bearer scrape-me' } });
      assert.equal(ok.statusCode, 200);
    } finally {
      await t.close();
    }
  });
});
