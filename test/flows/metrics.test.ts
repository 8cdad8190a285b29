// GET /metrics: Prometheus text with request durations by route and status, queue depth,
// counters of deployments and webhook deliveries by outcome, process and Node.js metrics,
// readable by loopback clients, or with METRICS_TOKEN as a bearer token.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedEnvironment, seedService } from '../support/factories.ts';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { eventually, seedOrganization, startTestApp } from '../support/harness.ts';

describe('metrics', () => {
  test('request durations by route and status, queue depth per kind', async () => {
    const t = await startTestApp();
    try {
      const org = await seedOrganization(t);
      await t.request('GET', `/organization/${org.id}`, { token: org.token });
      await t.request('GET', '/organization/00000000-0000-4000-8000-000000000000', { token: org.token });
      await t.request('GET', `/api/v1/organization/${org.id}`, { token: org.token });
      await t.request('GET', '/no/such/route', { token: org.token });
      const r = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
      assert.equal(r.statusCode, 200);
      assert.match(r.headers['content-type'] as string, /text\/plain/);
      assert.match(r.body, /berth_http_request_duration_seconds_count\{method="GET",route="\/organization\/:organizationId",status="200"\} 2/, 'the /api/v1 alias counts under its route');
      assert.match(r.body, /berth_http_request_duration_seconds_count\{method="GET",route="\/organization\/:organizationId",status="404"\} 1/);
      assert.match(r.body, /berth_http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} 1/);
      assert.match(r.body, /berth_queue_tasks\{kind="maintenance.cleanup",state="created"\} \d+/);
      assert.match(r.body, /^process_cpu_user_seconds_total \d/m);
      assert.match(r.body, /^nodejs_eventloop_lag_seconds \d/m);
      assert.match(r.body, /^process_resident_memory_bytes \d/m);
      await startDeploymentWorkers(t.ctx);
      const env = await seedEnvironment(t, org);
      const app = await seedService(t, env, 'APPLICATION');
      const deployed = (text: string) => Number(/^berth_deployments_total\{action="DEPLOY",status="DEPLOYED"\} (\d+)$/m.exec(text)?.[1] ?? 0);
      const before = deployed((await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body);
      const d = await t.request('POST', `/application/${app}/deploy`, { token: org.token, body: {} });
      assert.equal(d.status, 202);
      await eventually(async () => (await t.request('GET', `/deployment/${d.body.id}`, { token: org.token })).body.finished, 20_000);
      const after = (await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
      assert.match(after, /# TYPE berth_deployments_total counter/);
      assert.ok(deployed(after) >= before + 1, `${before} → ${deployed(after)}`);
      assert.match(after, /# TYPE berth_webhook_attempts_total counter/);
      // deleting the service deletes its deployment rows; the counter does not go down
      assert.equal((await t.request('DELETE', `/application/${app}`, { token: org.token })).status, 204);
      const later = (await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
      assert.ok(deployed(later) >= deployed(after));
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
