// Delivering a finished run's result to the workflow's outputs, with a real receiver on loopback:
// the body, the output's headers and a Standard Webhooks signature (verified with the
// `standardwebhooks` package and the documented secret), outputs without url skipped, retries
// with the same webhook-id, refused private targets and unsendable headers FAILED at once,
// redeliver (to the output's current url and headers), the list route, roles and 404s.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { enqueueOutputDeliveries } from '../../src/modules/workflows/outputs.service.ts';
import type { TaskQueue } from '../../src/queue/queue.ts';
import { deliverWorkflowOutput } from '../../src/workers/workflow-outputs.ts';
import { startWorkflowOutputWorkers } from '../../src/workers/handlers.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { eventually, expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

interface Received { path: string; headers: IncomingHttpHeaders; body: string }

describe('agentic workflow output deliveries', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let server: Server;
  let base: string;
  const received: Received[] = [];
  /** per path: statuses to answer in turn (200 once exhausted) */
  const script = new Map<string, number[]>();

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        received.push({ path: req.url!, headers: req.headers, body });
        const status = script.get(req.url!)?.shift() ?? 200;
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'y'.repeat(3000));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await startTestApp({ config: { webhookAllowPrivateTargets: true }, tuning: { webhookRetries: { baseDelayMs: 200 } } });
    await startWorkflowOutputWorkers(t.ctx);
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(async () => {
    await t.close();
    await new Promise((r) => server.close(r));
  });

  const at = (path: string) => received.filter((r) => r.path === path);
  const createWorkflow = async (outputs: unknown[]) => {
    const r = await t.request('POST', `/environment/${env.id}/agenticWorkflow`, { token: org.token, body: { name: `wf-${randomUUID().slice(0, 8)}`, outputs } });
    assert.equal(r.status, 201, r.raw);
    return r.body;
  };
  /** a run that ended, as the runner records it */
  const finishedRun = async (workflowId: string, status = 'SUCCEEDED', message: string | null = null): Promise<string> => {
    const rows = await t.ctx.db.query<{ id: string }>(
      `insert into agentic_workflow_runs (workflow_id, organization_id, trigger, status, message, result, num_turns, input_tokens, output_tokens,
         cost_usd, duration_ms, started_at, finished_at)
       values ($1, $2, 'MANUAL', $3, $4, 'db-1: /var was 97% full; removed 12 GB of rotated logs', 7, 12345, 678, 0.0421, 4200,
         now() - interval '5 seconds', now()) returning id`, [workflowId, org.id, status, message]);
    return rows[0]!.id;
  };
  const enqueue = (runId: string, queue: TaskQueue = t.ctx.queue) =>
    t.ctx.db.transaction((tx) => enqueueOutputDeliveries(tx, { queue, sealer: t.ctx.sealer }, runId));
  /** records deliveries without queueing their attempts (made by hand with another context) */
  const noQueue = { enqueue: async () => null } as unknown as TaskQueue;
  const deliveries = async (wfId: string, runId: string, token = org.token) => {
    const r = await t.request('GET', `/agenticWorkflow/${wfId}/run/${runId}/outputDelivery`, { token });
    assert.equal(r.status, 200, r.raw);
    return r;
  };
  const settled = (wfId: string, runId: string, n = 1) => eventually(async () => {
    const r = await deliveries(wfId, runId);
    return r.body.results.length >= n && r.body.results.every((d: { status: string }) => d.status !== 'PENDING') ? r : null;
  }, 15_000);

  test('a finished run reaches each output with a url: the body, its headers, a valid signature; no url: no delivery', async () => {
    const w = await createWorkflow([
      { name: 'triage', url: `${base}/triage`, headers: [{ name: 'Authorization', value: 'Bearer out-secret-7f3a' }, { name: 'X-Team', value: 'sre' }, { name: 'Webhook-Id', value: 'spoofed' }] },
      { name: 'nowhere', url: null, instructions: 'only for the prompt' },
      { name: 'archive', url: `${base}/archive` },
    ]);
    const runId = await finishedRun(w.id);
    assert.equal(await enqueue(runId), 2);
    assert.equal(await enqueue(runId), 0, 'one delivery per run and output, whoever calls again');
    await eventually(async () => at('/triage').length >= 1 && at('/archive').length >= 1);
    const got = at('/triage')[0]!;
    const body = JSON.parse(got.body);
    assert.equal(body.type, 'agentic_workflow.run.finished');
    assert.match(body.timestamp, /Z$/);
    assert.deepEqual([body.data.run.id, body.data.run.status, body.data.run.trigger, body.data.run.result], [runId, 'SUCCEEDED', 'MANUAL', 'db-1: /var was 97% full; removed 12 GB of rotated logs']);
    assert.deepEqual([body.data.run.num_turns, body.data.run.input_tokens, body.data.run.output_tokens, body.data.run.cost_usd, body.data.run.duration_ms], [7, 12345, 678, 0.0421, 4200]);
    assert.ok(body.data.run.started_at && body.data.run.finished_at && body.data.run.created_at);
    assert.deepEqual(body.data.agentic_workflow, { id: w.id, name: w.name });
    assert.deepEqual(body.data.output, { name: 'triage' });
    assert.deepEqual([body.data.environment_id, body.data.organization_id], [env.id, org.id]);
    assert.equal(JSON.parse(at('/archive')[0]!.body).data.output.name, 'archive');
    assert.equal(got.headers.authorization, 'Bearer out-secret-7f3a');
    assert.equal(got.headers['x-team'], 'sre');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.match(String(got.headers['webhook-id']), /^msg_[0-9a-f]{32}$/, 'berth sets webhook-id, not the output');
    // the documented secret: from the route, and derived from webhook.url's secret
    const secret = await t.request('GET', `/agenticWorkflow/${w.id}/outputSigningSecret`, { token: await org.tokenFor('VIEWER') });
    assert.equal(secret.status, 200, secret.raw);
    const hookSecret = new URL(w.webhook.url).pathname.split('/').at(-1)!;
    const derived = 'whsec_' + createHmac('sha256', hookSecret).update(`berth-agentic-workflow-outputs:${w.id}`).digest('base64');
    assert.equal(secret.body.signing_secret, derived);
    const wh = new Webhook(derived);
    assert.deepEqual(wh.verify(got.body, got.headers as Record<string, string>), body);
    assert.throws(() => wh.verify(got.body.replace('SUCCEEDED', 'SUCCEEDEX'), got.headers as Record<string, string>));
    // the list: both deliveries, each with its attempt; header names, never their values
    const list = await settled(w.id, runId, 2);
    assert.equal(list.body.results.length, 2);
    assert.equal(list.body.pagination.total_count, 2);
    const triage = list.body.results.find((d: { output_name: string }) => d.output_name === 'triage');
    assert.deepEqual([triage.status, triage.attempts, triage.last_status_code, triage.target_url], ['DELIVERED', 1, 200, `${base}/triage`]);
    assert.deepEqual(triage.header_names, ['Authorization', 'X-Team', 'Webhook-Id']);
    assert.equal(triage.webhook_message_id, got.headers['webhook-id']);
    assert.deepEqual(triage.request, body);
    assert.deepEqual(triage.attempt_history.map((a: { response_status_code: number; response_body: string; error: null }) => [a.response_status_code, a.response_body, a.error]), [[200, 'ok', null]]);
    assert.equal(typeof triage.attempt_history[0].duration_ms, 'number');
    assert.ok(!list.raw.includes('out-secret-7f3a'), 'header values never appear');
    assert.ok(!(await deliveries(w.id, runId, await org.tokenFor('VIEWER'))).raw.includes('out-secret-7f3a'));
    const stored = await t.ctx.db.query<{ row: string }>('select row_to_json(o)::text as row from agentic_workflow_output_deliveries o where run_id = $1', [runId]);
    assert.ok(stored.every((r) => !r.row.includes('out-secret-7f3a')), 'sealed at rest');
  });

  test('FAILED and CANCELED runs are delivered with their message; a run not finished is not', async () => {
    const w = await createWorkflow([{ name: 'out', url: `${base}/ends` }]);
    const failed = await finishedRun(w.id, 'FAILED', 'timed out after 600 s');
    const canceled = await finishedRun(w.id, 'CANCELED', 'Canceled on request');
    const running = await finishedRun(w.id, 'RUNNING');
    assert.equal(await enqueue(running), 0);
    assert.equal(await enqueue(failed), 1);
    assert.equal(await enqueue(canceled), 1);
    await eventually(async () => at('/ends').length >= 2);
    const runs = at('/ends').map((r) => JSON.parse(r.body).data.run).sort((a, b) => a.status.localeCompare(b.status));
    assert.deepEqual(runs.map((r) => [r.status, r.message]), [['CANCELED', 'Canceled on request'], ['FAILED', 'timed out after 600 s']]);
    assert.equal((await deliveries(w.id, running)).body.results.length, 0);
  });

  test('a 500 is retried with the same webhook-id and body until a 2xx; every attempt is listed', async () => {
    script.set('/flaky', [500, 500]);
    const w = await createWorkflow([{ name: 'flaky', url: `${base}/flaky` }]);
    const runId = await finishedRun(w.id);
    await enqueue(runId);
    await eventually(async () => at('/flaky').length >= 3, 15_000);
    const [a, b, c] = at('/flaky');
    assert.equal(new Set([a, b, c].map((r) => r!.headers['webhook-id'])).size, 1);
    assert.equal(new Set([a, b, c].map((r) => r!.body)).size, 1);
    const d = (await settled(w.id, runId)).body.results[0];
    assert.equal(d.status, 'DELIVERED');
    assert.equal(d.attempts, 3);
    assert.deepEqual(d.attempt_history.map((x: { attempt: number; response_status_code: number }) => [x.attempt, x.response_status_code]), [[1, 500], [2, 500], [3, 200]]);
    assert.equal(d.attempt_history[0].response_body.length, 1024, 'an excerpt of the answer');
  });

  test('without WEBHOOK_ALLOW_PRIVATE_TARGETS a private target is FAILED at once, not retried, and says why', async () => {
    // this process's context with the default configuration (the same database and keys)
    const strict = { ...t.ctx, config: Object.freeze({ ...t.ctx.config, webhookAllowPrivateTargets: false }) };
    {
      const w = await createWorkflow([{ name: 'loopback', url: `${base}/private` }, { name: 'local', url: 'http://localhost:9/x' }]);
      const runId = await finishedRun(w.id);
      assert.equal(await enqueue(runId, noQueue), 2);
      const ids = (await deliveries(w.id, runId)).body.results.map((d: { id: string }) => d.id);
      for (const id of ids) await deliverWorkflowOutput(strict, id);
      await new Promise((r) => setTimeout(r, 600));
      const list = (await deliveries(w.id, runId)).body.results;
      for (const d of list) {
        assert.deepEqual([d.status, d.attempts, d.next_attempt_at, d.last_status_code], ['FAILED', 1, null, null], d.output_name);
        assert.match(d.last_error, /must not point to a loopback, private.*WEBHOOK_ALLOW_PRIVATE_TARGETS=true/);
        assert.equal(d.attempt_history[0].error, d.last_error);
      }
      assert.equal(at('/private').length, 0);
      // a second task for a FAILED delivery sends nothing
      await deliverWorkflowOutput(strict, ids[0]);
      assert.equal((await deliveries(w.id, runId)).body.results[0].attempts, 1);
    }
  });

  test('a header that HTTP cannot carry fails the delivery at once, naming it', async () => {
    const w = await createWorkflow([{ name: 'bad', url: `${base}/bad-header`, headers: [{ name: 'X-Multi', value: 'one\r\nInjected: two' }] }]);
    const runId = await finishedRun(w.id);
    await enqueue(runId);
    const d = (await settled(w.id, runId)).body.results[0];
    assert.equal(d.status, 'FAILED');
    assert.match(d.last_error, /header 'X-Multi'/);
    assert.equal(at('/bad-header').length, 0);
  });

  test("redeliver sends again (same webhook-id, the output's current headers); roles, 404s, 409, cascade", async () => {
    const w = await createWorkflow([{ name: 'again', url: `${base}/again`, headers: [{ name: 'X-Token', value: 'first-value' }] }]);
    const runId = await finishedRun(w.id);
    await enqueue(runId);
    const first = (await settled(w.id, runId)).body.results[0];
    assert.equal(first.status, 'DELIVERED');
    const redeliver = (token: string, wfId = w.id, run = runId, id = first.id) =>
      t.request('POST', `/agenticWorkflow/${wfId}/run/${run}/outputDelivery/${id}/redeliver`, { token });
    expectErrorBody(await redeliver(await org.tokenFor('VIEWER')), 403);
    // the header was rotated since the run: a redeliver sends the current one
    const edit = await t.request('PUT', `/agenticWorkflow/${w.id}`, { token: org.token, body: { name: w.name, outputs: [{ name: 'again', url: `${base}/again`, headers: [{ name: 'X-Token', value: 'second-value' }] }] } });
    assert.equal(edit.status, 200, edit.raw);
    const re = await redeliver(await org.tokenFor('DEVOPS'));
    assert.equal(re.status, 202, re.raw);
    assert.equal(re.body.id, first.id);
    assert.equal(re.body.status, 'PENDING');
    assert.ok(!re.raw.includes('second-value'));
    await eventually(async () => at('/again').length >= 2);
    const [one, two] = at('/again');
    assert.equal(one!.headers['webhook-id'], two!.headers['webhook-id']);
    assert.equal(one!.body, two!.body);
    assert.deepEqual([one!.headers['x-token'], two!.headers['x-token']], ['first-value', 'second-value']);
    const secret = (await t.request('GET', `/agenticWorkflow/${w.id}/outputSigningSecret`, { token: org.token })).body.signing_secret;
    new Webhook(secret).verify(two!.body, two!.headers as Record<string, string>);
    const after = (await settled(w.id, runId)).body.results[0];
    assert.deepEqual([after.status, after.attempts, after.attempt_history.length], ['DELIVERED', 2, 2]);

    // another workflow's run, an unknown run or delivery: 404; another organization: 403; no token: 401
    const other = await createWorkflow([]);
    expectErrorBody(await t.request('GET', `/agenticWorkflow/${other.id}/run/${runId}/outputDelivery`, { token: org.token }), 404);
    expectErrorBody(await redeliver(org.token, other.id), 404);
    expectErrorBody(await redeliver(org.token, w.id, randomUUID()), 404);
    expectErrorBody(await redeliver(org.token, w.id, runId, randomUUID()), 404);
    expectErrorBody(await t.request('GET', `/agenticWorkflow/${w.id}/run/${runId}/outputDelivery`, { token: (await seedOrganization(t)).token }), 403);
    expectErrorBody(await t.request('GET', `/agenticWorkflow/${w.id}/run/${runId}/outputDelivery`), 401);
    // the output is gone: nothing to redeliver to
    await t.request('PUT', `/agenticWorkflow/${w.id}`, { token: org.token, body: { name: w.name, outputs: [] } });
    assert.match(expectErrorBody(await redeliver(org.token), 409).message, /no output 'again'/);
    // under /api/v1 too
    assert.equal((await t.request('GET', `/api/v1/agenticWorkflow/${w.id}/run/${runId}/outputDelivery`, { token: org.token })).status, 200);
    // deleting the workflow deletes its runs' deliveries and their attempts
    assert.equal((await t.request('DELETE', `/agenticWorkflow/${w.id}`, { token: org.token })).status, 204);
    const left = await t.ctx.db.query<{ n: number }>(
      `select (select count(*) from agentic_workflow_output_deliveries where run_id = $1)::int
        + (select count(*) from agentic_workflow_output_attempts where delivery_id = $2)::int as n`, [runId, first.id]);
    assert.equal(left[0]!.n, 0);
  });
});
