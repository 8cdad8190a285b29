// Workflow runs: the public webhook (secret, source-IP allowlist, disabled, size limit), run
// history and cancel, the schedule's next_run_at in several zones, and exactly-once scheduled
// runs when the scheduler ticks concurrently.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { cancelExamples } from '../../src/http/examples/services.ts';
import { nextOccurrence, parseCron } from '../../src/lib/cron.ts';
import { runWorkflowScheduleTick } from '../../src/workers/workflow-schedule.ts';
import { startWorkflowScheduleWorker } from '../../src/workers/handlers.ts';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { startWebhookWorkers } from '../../src/workers/handlers.ts';

const hookPath = (url: string) => new URL(url).pathname;

describe('agentic workflow runs', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  const create = async (body: Record<string, unknown> = {}) => {
    const r = await t.request('POST', `/environment/${env.id}/agenticWorkflow`, { token: org.token, body: { name: `wf-${randomUUID().slice(0, 8)}`, ...body } });
    assert.equal(r.status, 201, r.raw);
    return r.body;
  };
  before(async () => {
    // runs request deployments: slow steps keep them in progress while this file looks at them
    t = await startTestApp({ simulated: { stepMs: 1000 } });
    // workers of the kinds a run enqueues inside its transaction (PGlite: see the report)
    await startDeploymentWorkers(t.ctx);
    await startWebhookWorkers(t.ctx);
    await startWorkflowScheduleWorker(t.ctx);
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(async () => {
    await t.close();
  });

  test('a POST to webhook.url with any JSON starts a recorded run; no Authorization needed', async () => {
    const w = await create();
    const r = await t.request('POST', hookPath(w.webhook.url), { body: { issue: 42, labels: ['bug'] } });
    assert.equal(r.status, 202, r.raw);
    assert.equal(r.body.trigger, 'WEBHOOK');
    assert.equal(r.body.agentic_workflow_id, w.id);
    assert.deepEqual(r.body.payload, { issue: 42, labels: ['bug'] });
    assert.ok(['QUEUED', 'RUNNING', 'SUCCEEDED'].includes(r.body.status));
    const list = await t.request('GET', `/agenticWorkflow/${w.id}/run`, { token: await org.tokenFor('VIEWER') });
    assert.equal(list.status, 200);
    assert.equal(list.body.results[0].id, r.body.id);
    assert.equal(list.body.pagination.page_size, 20);
    const one = await t.request('GET', `/agenticWorkflow/${w.id}/run/${r.body.id}`, { token: org.token });
    assert.equal(one.body.id, r.body.id);
    expectErrorBody(await t.request('GET', `/agenticWorkflow/${w.id}/run/${randomUUID()}`, { token: org.token }), 404);
    expectErrorBody(await t.request('GET', `/agenticWorkflow/${w.id}/run`), 401);
    expectErrorBody(await t.request('GET', `/agenticWorkflow/${w.id}/run`, { token: (await seedOrganization(t)).token }), 403);
  });

  test('wrong secret or unknown workflow → 404; disabled → 409; over 64 KiB → 413', async () => {
    const w = await create();
    expectErrorBody(await t.request('POST', `/agenticWorkflow/${w.id}/hook/not-the-secret`, { body: {} }), 404);
    expectErrorBody(await t.request('POST', `/agenticWorkflow/${randomUUID()}/hook/x`, { body: {} }), 404);
    const big = { blob: 'x'.repeat(70 * 1024) };
    expectErrorBody(await t.request('POST', hookPath(w.webhook.url), { body: big }), 413);
    const off = await create({ enabled: false });
    expectErrorBody(await t.request('POST', hookPath(off.webhook.url), { body: {} }), 409);
    // no body at all is fine
    assert.equal((await t.request('POST', hookPath(w.webhook.url))).status, 202);
  });

  test('the source IP must be in webhook_ip_allowlist (empty = every source)', async () => {
    const outside = await create({ webhook_ip_allowlist: ['10.0.0.0/8', '2001:db8::/32'] });
    assert.match(expectErrorBody(await t.request('POST', hookPath(outside.webhook.url), { body: {} }), 403).message, /webhook_ip_allowlist/);
    const inside = await create({ webhook_ip_allowlist: ['10.0.0.0/8', '127.0.0.0/8'] });
    assert.equal((await t.request('POST', hookPath(inside.webhook.url), { body: {} })).status, 202);
    const runs = await t.ctx.db.query<{ n: number }>('select count(*)::int as n from agentic_workflow_runs where workflow_id = $1', [outside.id]);
    assert.equal(runs[0]!.n, 0);
  });

  test('behind a trusted proxy the client address comes from X-Forwarded-For', async () => {
    const proxied = await startTestApp({ config: { trustProxy: true } });
    try {
      const o = await seedOrganization(proxied);
      const e = await seedEnvironment(proxied, o);
      const w = (await proxied.request('POST', `/environment/${e.id}/agenticWorkflow`, { token: o.token, body: { name: 'proxied', webhook_ip_allowlist: ['203.0.113.0/24'] } })).body;
      assert.equal((await proxied.request('POST', hookPath(w.webhook.url), { body: {}, headers: { 'x-forwarded-for': '203.0.113.9' } })).status, 202);
      expectErrorBody(await proxied.request('POST', hookPath(w.webhook.url), { body: {}, headers: { 'x-forwarded-for': '198.51.100.1' } }), 403);
    } finally {
      await proxied.close();
    }
  });

  test('cancelDeployment cancels the current run; 409 when none', async () => {
    const w = await create();
    expectErrorBody(await t.request('POST', `/agenticWorkflow/${w.id}/cancelDeployment`, { token: org.token, body: {} }), 409);
    const run = (await t.request('POST', hookPath(w.webhook.url), { body: {} })).body;
    expectErrorBody(await t.request('POST', `/agenticWorkflow/${w.id}/cancelDeployment`, { token: await org.tokenFor('VIEWER'), body: {} }), 403);
    const c = await t.request('POST', `/agenticWorkflow/${w.id}/cancelDeployment`, { token: org.token, body: cancelExamples.cancelAgenticWorkflowDeployment });
    assert.equal(c.status, 202, c.raw);
    assert.equal(c.body.id, run.id);
    assert.equal(c.body.status, 'CANCELED');
    assert.ok(c.body.finished_at);
    const history = await t.request('GET', `/agenticWorkflow/${w.id}/deploymentHistoryV2`, { token: org.token });
    assert.equal(history.status, 200);
    assert.ok(Array.isArray(history.body.results));
  });

  test('next_run_at: the next firing in the workflow\'s zone; null while disabled; enabling recomputes it', async () => {
    for (const tz of ['Europe/Paris', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata']) {
      const before = new Date();
      const w = await create({ schedule: { cron_expression: '0 9 * * *', timezone: tz } });
      const expected = nextOccurrence((parseCron('0 9 * * *') as { ok: true; schedule: never }).schedule, tz, before)!;
      assert.equal(w.schedule.next_run_at, expected.toISOString(), tz);
      assert.equal(w.schedule.timezone, tz);
    }
    const off = await create({ enabled: false, schedule: { cron_expression: '0 9 * * *', timezone: 'Europe/Paris' } });
    assert.equal(off.schedule.next_run_at, null);
    const on = await t.request('PUT', `/agenticWorkflow/${off.id}`, { token: org.token, body: { name: off.name, enabled: true } });
    assert.match(on.body.schedule.next_run_at, /Z$/);
    const moved = await t.request('PUT', `/agenticWorkflow/${off.id}`, { token: org.token, body: { name: off.name, schedule: { cron_expression: '0 9 * * *', timezone: 'Asia/Tokyo' } } });
    assert.notEqual(moved.body.schedule.next_run_at, on.body.schedule.next_run_at);
    const disabled = await t.request('PUT', `/agenticWorkflow/${off.id}`, { token: org.token, body: { name: off.name, enabled: false } });
    assert.equal(disabled.body.schedule.next_run_at, null);
  });

  test('scheduled runs: exactly one per occurrence when ticks overlap; at most one catch-up after downtime', async () => {
    const w = await create({ schedule: { cron_expression: '0 * * * *', timezone: 'Etc/UTC' } });
    // the worker was down for three hours: the occurrence it recorded is long past
    const missed = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 3_600_000);
    await t.ctx.db.query('update agentic_workflows set next_run_at = $2 where service_id = $1', [w.id, missed]);
    await Promise.all([runWorkflowScheduleTick(t.ctx), runWorkflowScheduleTick(t.ctx), runWorkflowScheduleTick(t.ctx)]);
    const runs = await t.ctx.db.query<{ trigger: string; scheduled_for: Date }>('select trigger, scheduled_for from agentic_workflow_runs where workflow_id = $1', [w.id]);
    assert.equal(runs.length, 1);
    assert.equal(runs[0]!.trigger, 'SCHEDULE');
    assert.equal(new Date(runs[0]!.scheduled_for).toISOString(), missed.toISOString());
    const next = (await t.request('GET', `/agenticWorkflow/${w.id}`, { token: org.token })).body.schedule.next_run_at;
    assert.ok(new Date(next) > new Date(), 'next_run_at moved past now');
    // the same occurrence seen again (a tick that read the old next_run_at) makes no second run
    await t.ctx.db.query('update agentic_workflows set next_run_at = $2 where service_id = $1', [w.id, missed]);
    await runWorkflowScheduleTick(t.ctx);
    const again = await t.ctx.db.query<{ n: number }>('select count(*)::int as n from agentic_workflow_runs where workflow_id = $1', [w.id]);
    assert.equal(again[0]!.n, 1);
    const listed = await t.request('GET', `/agenticWorkflow/${w.id}/run`, { token: org.token });
    assert.equal(listed.body.results[0].trigger, 'SCHEDULE');
  });
});
