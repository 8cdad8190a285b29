// Runs on the deployments module (simulated engine): a webhook-triggered run deploys the workflow
// in place and reaches SUCCEEDED (or FAILED), scheduled runs deploy too, cancel, the deployment
// history, and the WORKFLOW_RUN_* events reaching a subscribed organization webhook.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { startWebhookWorkers } from '../../src/workers/handlers.ts';
import { runWorkflowScheduleTick } from '../../src/workers/workflow-schedule.ts';
import { startWorkflowScheduleWorker } from '../../src/workers/handlers.ts';
import { seedService } from '../support/factories.ts';
import { eventually, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';

const hookPath = (url: string) => new URL(url).pathname;

describe('workflow runs deploy the workflow', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  const create = async (body: Record<string, unknown> = {}) => {
    const r = await t.request('POST', `/environment/${env.id}/agenticWorkflow`, { token: org.token, body: { name: `wf-${randomUUID().slice(0, 8)}`, ...body } });
    assert.equal(r.status, 201, r.raw);
    return r.body;
  };
  const finished = (wfId: string, runId: string) => eventually(async () => {
    const r = (await t.request('GET', `/agenticWorkflow/${wfId}/run/${runId}`, { token: org.token })).body;
    return ['SUCCEEDED', 'FAILED', 'CANCELED'].includes(r.status) ? r : null;
  }, 15_000, 20);
  before(async () => {
    t = await startTestApp({ config: { webhookAllowPrivateTargets: true }, simulated: { stepMs: 30 } });
    await startDeploymentWorkers(t.ctx);
    // the queue must know the delivery kind before an event is enqueued inside a transaction (PGlite)
    await startWebhookWorkers(t.ctx);
    await startWorkflowScheduleWorker(t.ctx);
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(async () => { await t.close(); });

  test('a webhook run requests a DEPLOY of the workflow and reaches SUCCEEDED; events are emitted', async () => {
    const hook = await t.request('POST', `/organization/${org.id}/webhook`, { token: org.token, body: {
      kind: 'STANDARD', target_url: 'https://hooks.example.com/berth', events: ['WORKFLOW_RUN_STARTED', 'WORKFLOW_RUN_SUCCEEDED', 'WORKFLOW_RUN_FAILED'], enabled: true,
    } });
    assert.equal(hook.status, 201, hook.raw);
    const w = await create();
    const run = (await t.request('POST', hookPath(w.webhook.url), { body: { ping: true } })).body;
    assert.ok(run.deployment_id, 'the run names its deployment');
    const done = await finished(w.id, run.id);
    assert.equal(done.status, 'SUCCEEDED');
    assert.ok(done.started_at && done.finished_at);
    const dep = await t.request('GET', `/deployment/${run.deployment_id}`, { token: org.token });
    assert.equal(dep.body.service_id, w.id);
    assert.equal(dep.body.action, 'DEPLOY');
    const history = await t.request('GET', `/agenticWorkflow/${w.id}/deploymentHistoryV2`, { token: org.token });
    assert.equal(history.body.results[0].identifier.execution_id, run.deployment_id);
    assert.equal(history.body.results[0].run_id, run.id);
    const kinds = await eventually(async () => {
      const rows = await t.ctx.db.query<{ event_kind: string; body: string }>('select event_kind, body from webhook_events where webhook_id = $1', [hook.body.id]);
      const set = new Set(rows.map((r) => r.event_kind));
      return set.has('WORKFLOW_RUN_SUCCEEDED') ? rows : null;
    });
    assert.ok(kinds.some((k) => k.event_kind === 'WORKFLOW_RUN_STARTED' && k.body.includes(run.id)));
  });

  test('a failing deployment makes a FAILED run', async () => {
    const w = await create({ name: `fail-deploy-${randomUUID().slice(0, 6)}` });
    const run = (await t.request('POST', hookPath(w.webhook.url), { body: {} })).body;
    assert.equal((await finished(w.id, run.id)).status, 'FAILED');
  });

  test('a scheduled occurrence deploys too', async () => {
    const w = await create({ schedule: { cron_expression: '0 * * * *', timezone: 'Etc/UTC' } });
    await t.ctx.db.query('update agentic_workflows set next_run_at = now() - interval \'1 minute\' where service_id = $1', [w.id]);
    await runWorkflowScheduleTick(t.ctx);
    const runs = (await t.request('GET', `/agenticWorkflow/${w.id}/run`, { token: org.token })).body.results;
    assert.equal(runs.length, 1);
    assert.equal(runs[0].trigger, 'SCHEDULE');
    assert.equal((await finished(w.id, runs[0].id)).status, 'SUCCEEDED');
  });

  test('cancelDeployment cancels the current run and its deployment', async () => {
    t.engine.configure({ stepMs: 400 });
    try {
      const w = await create();
      const run = (await t.request('POST', hookPath(w.webhook.url), { body: {} })).body;
      const c = await t.request('POST', `/agenticWorkflow/${w.id}/cancelDeployment`, { token: org.token, body: { force_cancel: true } });
      assert.equal(c.status, 202, c.raw);
      assert.equal(c.body.status, 'CANCELED');
      const dep = await eventually(async () => {
        const d = (await t.request('GET', `/deployment/${run.deployment_id}`, { token: org.token })).body;
        return d.finished ? d : null;
      }, 15_000, 20);
      assert.equal(dep.status, 'CANCELED');
      assert.equal((await t.request('GET', `/agenticWorkflow/${w.id}/run/${run.id}`, { token: org.token })).body.status, 'CANCELED');
    } finally {
      t.engine.configure({ stepMs: 30 });
    }
  });

  test('CLONE_ENVIRONMENT: the run deploys in a throwaway copy of the environment, deleted once the run settled', async () => {
    const own = await seedEnvironment(t, org);
    await seedService(t, own, 'CONTAINER', { image_name: 'nginx', tag: 'latest' });
    const r = await t.request('POST', `/environment/${own.id}/agenticWorkflow`, { token: org.token, body: { name: 'Isolated Flow', execution_mode: 'CLONE_ENVIRONMENT' } });
    assert.equal(r.status, 201, r.raw);
    const run = (await t.request('POST', hookPath(r.body.webhook.url), { body: {} })).body;
    assert.ok(run.clone_environment_id, 'the run names its copy');
    assert.notEqual(run.clone_environment_id, own.id);
    const copy = await t.ctx.db.query<{ expires_at: Date | null; cloned_from_id: string }>('select expires_at, cloned_from_id from environments where id = $1', [run.clone_environment_id]);
    assert.equal(copy[0]?.cloned_from_id, own.id);
    assert.ok(copy[0]?.expires_at);
    const dep = await t.ctx.db.query<{ environment_id: string }>('select environment_id from deployments where id = $1', [run.deployment_id]);
    assert.equal(dep[0]!.environment_id, run.clone_environment_id);
    const done = await finished(r.body.id, run.id);
    assert.equal(done.status, 'SUCCEEDED', done.message ?? '');
    await eventually(async () => (await t.ctx.db.query('select 1 from environments where id = $1', [run.clone_environment_id])).length === 0, 15_000, 50);
    // the workflow's own environment and the run record stay
    assert.equal((await t.request('GET', `/agenticWorkflow/${r.body.id}/run/${run.id}`, { token: org.token })).status, 200);
    assert.equal((await t.ctx.db.query<{ n: number }>('select count(*)::int as n from services where environment_id = $1', [own.id]))[0]!.n, 2);
  });
});
