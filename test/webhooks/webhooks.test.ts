// Organization webhooks end to end with a real receiver on loopback: deployment events signed
// per Standard Webhooks (verified with the `standardwebhooks` package), filters, retries with the
// same webhook-id, 410 disabling, the delivery history, redelivery and ping; and the CRUD rules.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { postJson } from '../../src/modules/webhooks/webhooks.http.ts';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { startWebhookWorkers } from '../../src/workers/handlers.ts';
import { seedEnvironment, seedService } from '../support/factories.ts';
import { eventually, expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { workflowExamples } from '../../src/http/examples/workflows.ts';

interface Received { path: string; headers: IncomingHttpHeaders; body: string }

describe('organization webhooks', () => {
  let t: TestApp;
  let org: SeededOrganization;
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
        if (status === 503) res.setHeader('retry-after', '0');
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'x'.repeat(3000));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await startTestApp({ config: { webhookAllowPrivateTargets: true }, tuning: { webhookRetries: { baseDelayMs: 200 } }, simulated: { stepMs: 50 } });
    await startDeploymentWorkers(t.ctx);
    await startWebhookWorkers(t.ctx);
    org = await seedOrganization(t);
  });
  after(async () => {
    await t.close();
    await new Promise((r) => server.close(r));
  });

  const at = (path: string) => received.filter((r) => r.path === path);
  const createHook = async (path: string, body: Record<string, unknown> = {}, o = org) => {
    const r = await t.request('POST', `/organization/${o.id}/webhook`, { token: o.token, body: {
      target_url: `${base}${path}`, events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED', 'DEPLOYMENT_FAILED'], enabled: true, ...body,
    } });
    assert.equal(r.status, 201, r.raw);
    return r.body;
  };
  const deploy = async (o: SeededOrganization, spec: Record<string, unknown>, name?: string) => {
    const env = await seedEnvironment(t, o);
    const app = await seedService(t, env, 'APPLICATION', spec, name);
    const r = await t.request('POST', `/application/${app}/deploy`, { token: o.token, body: {} });
    assert.equal(r.status, 202);
    return { env, app, deployment: r.body };
  };

  test('a deploy delivers STARTED then SUCCEEDED, signed, with the ids', async () => {
    const o = await seedOrganization(t);
    const hook = await createHook('/ok', {}, o);
    assert.match(hook.signing_secret, /^whsec_/);
    assert.equal(hook.target_secret_set, false);
    const { env, app, deployment } = await deploy(o, { image_name: 'nginx' });
    await eventually(async () => at('/ok').length >= 2);
    // deliveries run in parallel (no ordering guarantee): the events' created_at give their order
    const [first, second] = at('/ok').map((r) => ({ ...r, json: JSON.parse(r.body) }))
      .sort((a, b) => Date.parse(a.json.created_at) - Date.parse(b.json.created_at));
    assert.equal(first!.json.event_type, 'DEPLOYMENT_STARTED');
    assert.equal(second!.json.event_type, 'DEPLOYMENT_SUCCEEDED');
    const p = second!.json.payload;
    assert.deepEqual([p.application_id, p.deployment_id, p.status, p.environment_id, p.project_id, p.organization_id],
      [app, deployment.id, 'DEPLOYED', env.id, env.projectId, o.id]);
    assert.equal(first!.headers['content-type'], 'application/json');
    const wh = new Webhook(hook.signing_secret);
    for (const r of [first!, second!]) {
      assert.deepEqual(wh.verify(r.body, r.headers as Record<string, string>), JSON.parse(r.body));
      assert.match(String(r.headers['webhook-signature']), /^v1,/);
    }
    assert.throws(() => wh.verify(first!.body.replace('STARTED', 'STARTEX'), first!.headers as Record<string, string>));
    const history = await eventually(async () => {
      const h = await t.request('GET', `/organization/${o.id}/webhook/${hook.id}/event`, { token: o.token });
      return h.body.results.every((e: { status: string }) => e.status === 'DELIVERED') ? h : null;
    });
    assert.equal(history.body.results.length, 2);
    assert.equal(history.body.results[0].target_response_status_code, 200);
    assert.equal(history.body.results[0].attempt_history[0].attempt, 1);
  });

  test('a failing deploy delivers FAILED; a webhook subscribed to one kind (client spelling) gets only it; a disabled one nothing', async () => {
    const o = await seedOrganization(t);
    await createHook('/all-fail', {}, o);
    const only = await createHook('/only-failure', { events: ['DEPLOYMENT_FAILURE'] }, o);
    assert.deepEqual(only.events, ['DEPLOYMENT_FAILED']);
    await createHook('/disabled', { enabled: false }, o);
    await deploy(o, { image_name: 'nginx' }, 'api-fail-deploy');
    await eventually(async () => at('/all-fail').length >= 2 && at('/only-failure').length >= 1);
    const allFail = at('/all-fail').map((r) => JSON.parse(r.body)).sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
    assert.deepEqual(allFail.map((b) => b.event_type), ['DEPLOYMENT_STARTED', 'DEPLOYMENT_FAILED']);
    assert.equal(allFail[1].payload.status, 'DEPLOYMENT_ERROR');
    await new Promise((r) => setTimeout(r, 700));
    assert.deepEqual(at('/only-failure').map((r) => JSON.parse(r.body).event_type), ['DEPLOYMENT_FAILED']);
    assert.equal(at('/disabled').length, 0);
  });

  test('503 then 200: retried with the same webhook-id, then delivered; the history records both attempts', async () => {
    const o = await seedOrganization(t);
    script.set('/flaky', [503]);
    const hook = await createHook('/flaky', { events: ['DEPLOYMENT_STARTED'] }, o);
    await deploy(o, { image_name: 'nginx' });
    await eventually(async () => at('/flaky').length >= 2, 15_000);
    const [a, b] = at('/flaky');
    assert.equal(a!.headers['webhook-id'], b!.headers['webhook-id']);
    assert.equal(a!.body, b!.body);
    const ev = await eventually(async () => {
      const h = await t.request('GET', `/organization/${o.id}/webhook/${hook.id}/event`, { token: o.token });
      return h.body.results[0]?.status === 'DELIVERED' ? h.body.results[0] : null;
    });
    assert.deepEqual(ev.attempt_history.map((x: { response_status_code: number }) => x.response_status_code), [503, 200]);
    assert.ok(ev.attempt_history[0].response_body.length <= 1024);
    assert.equal(ev.attempts, 2);
  });

  test('410 disables the webhook; redeliver of a disabled webhook is 409', async () => {
    const o = await seedOrganization(t);
    script.set('/gone', [410]);
    const hook = await createHook('/gone', { events: ['DEPLOYMENT_STARTED'] }, o);
    await deploy(o, { image_name: 'nginx' });
    const after = await eventually(async () => {
      const h = await t.request('GET', `/organization/${o.id}/webhook/${hook.id}`, { token: o.token });
      return h.body.enabled === false ? h.body : null;
    });
    assert.match(after.disabled_reason, /410/);
    const events = await t.request('GET', `/organization/${o.id}/webhook/${hook.id}/event`, { token: o.token });
    assert.equal(events.body.results[0].status, 'FAILED');
    expectErrorBody(await t.request('POST', `/organization/${o.id}/webhook/${hook.id}/event/${events.body.results[0].id}/redeliver`, { token: o.token }), 409);
  });

  test('test ping and redeliver reach the target with the same webhook-id on redelivery', async () => {
    const hook = await createHook('/ping', { target_secret: 'whsec_' + Buffer.from('0123456789abcdef0123456789abcdef').toString('base64') });
    assert.equal(hook.target_secret_set, true);
    assert.equal(hook.signing_secret, undefined);
    const ping = await t.request('POST', `/organization/${org.id}/webhook/${hook.id}/test`, { token: org.token });
    assert.equal(ping.status, 202, ping.raw);
    await eventually(async () => at('/ping').length >= 1);
    assert.equal(JSON.parse(at('/ping')[0]!.body).event_type, 'PING');
    await eventually(async () => (await t.request('GET', `/organization/${org.id}/webhook/${hook.id}/event`, { token: org.token })).body.results[0].status === 'DELIVERED');
    const re = await t.request('POST', `/organization/${org.id}/webhook/${hook.id}/event/${ping.body.id}/redeliver`, { token: org.token });
    assert.equal(re.status, 202);
    await eventually(async () => at('/ping').length >= 2);
    assert.equal(at('/ping')[0]!.headers['webhook-id'], at('/ping')[1]!.headers['webhook-id']);
    new Webhook('whsec_' + Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')).verify(at('/ping')[1]!.body, at('/ping')[1]!.headers as Record<string, string>);
  });

  test('CRUD: defaults, secrets never echoed, PUT keeps omitted members, 400s, 403, 404', async () => {
    const o = await seedOrganization(t);
    const { createOrganizationWebhook: example, editOrganizationWebhook: edit } = workflowExamples;
    const created = await t.request('POST', `/organization/${o.id}/webhook`, { token: o.token, body: {
      ...example, target_secret: 'whsec_c2VjcmV0LXZhbHVlLXNob3VsZC1uZXZlci1sZWFr',
    } });
    assert.equal(created.status, 201, created.raw);
    assert.ok(!created.raw.includes('c2VjcmV0LXZhbHVlLXNob3VsZC1uZXZlci1sZWFr'));
    assert.equal(created.body.signing_secret, undefined, 'the secret given is not returned, none is generated');
    assert.deepEqual([created.body.kind, created.body.enabled, created.body.events, created.body.environment_types_filter], [example.kind, true, example.events, example.environment_types_filter]);
    const id = created.body.id;
    const put = await t.request('PUT', `/organization/${o.id}/webhook/${id}`, { token: o.token, body: edit });
    assert.equal(put.status, 200);
    assert.deepEqual([put.body.enabled, put.body.description, put.body.target_url, put.body.project_names_filter], [edit.enabled, edit.description, example.target_url, example.project_names_filter]);
    // the public clients' spelling of an event is read as berth's
    const spelled = await t.request('PUT', `/organization/${o.id}/webhook/${id}`, { token: o.token, body: { events: ['DEPLOYMENT_SUCCESSFUL'] } });
    assert.deepEqual(spelled.body.events, ['DEPLOYMENT_SUCCEEDED']);
    const list = await t.request('GET', `/organization/${o.id}/webhook`, { token: o.token });
    assert.equal(list.body.results.length, 1);
    assert.ok(!list.raw.includes('secret_sealed'));
    for (const body of [
      { target_url: 'not a url', events: [] },
      { target_url: 'ftp://example.com/x', events: [] },
      { target_url: '/relative', events: [] },
      { target_url: 'https://example.com', events: ['DEPLOYMENT_EXPLODED'] },
      { events: [] },
    ]) expectErrorBody(await t.request('POST', `/organization/${o.id}/webhook`, { token: o.token, body }), 400);
    assert.match(expectErrorBody(await t.request('POST', `/organization/${o.id}/webhook`, { token: o.token, body: { target_url: 'https://example.com', events: ['NOPE'] } }), 400).message, /^events\.0 must be one of DEPLOYMENT_STARTED, .*WORKFLOW_RUN_FAILED, .*DEPLOYMENT_SUCCESSFUL.*; got "NOPE"$/);
    expectErrorBody(await t.request('POST', `/organization/${o.id}/webhook`, { token: await o.tokenFor('DEVOPS'), body: { target_url: 'https://example.com', events: [] } }), 403);
    expectErrorBody(await t.request('GET', `/organization/${o.id}/webhook`, { token: org.token }), 403);
    expectErrorBody(await t.request('GET', `/organization/${o.id}/webhook`), 401);
    expectErrorBody(await t.request('GET', `/organization/${o.id}/webhook/00000000-0000-4000-8000-000000000000`, { token: o.token }), 404);
    assert.equal((await t.request('DELETE', `/organization/${o.id}/webhook/${id}`, { token: o.token })).status, 204);
    expectErrorBody(await t.request('GET', `/organization/${o.id}/webhook/${id}`, { token: o.token }), 404);
  });

  test('private targets are refused by default: at creation, and on the resolved address at delivery', async () => {
    const strict = await startTestApp();
    try {
      const o = await seedOrganization(strict);
      for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://169.254.169.254/latest', 'http://[::1]/x', 'http://10.1.2.3/']) {
        const r = await strict.request('POST', `/organization/${o.id}/webhook`, { token: o.token, body: { target_url: url, events: [] } });
        assert.match(expectErrorBody(r, 400).message, /loopback, private.*WEBHOOK_ALLOW_PRIVATE_TARGETS=true/, url);
      }
    } finally {
      await strict.close();
    }
    const res = await postJson(`http://localhost:${new URL(base).port}/dns`, '{}', {}, { allowPrivate: false, timeoutMs: 2000 });
    assert.equal(res.refused, true);
    assert.match(res.error!, /non-public.*WEBHOOK_ALLOW_PRIVATE_TARGETS=true/);
    assert.equal(at('/dns').length, 0);
  });
});
