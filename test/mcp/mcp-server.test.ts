// berth's MCP server through the official SDK's client over real HTTP (loopback), on the simulated
// engine with the deployment workers in this process: initialize; the tools a VIEWER and a DEVOPS
// token are offered; reading tools answer what the REST API answers; names resolve (ambiguity
// lists the candidates); a deploy through a tool is a deployment in the API, waited on with
// progress; variables set (secrets write-only) and deleted; errors are tool errors with berth's
// error body; another organization's token gets nothing of this one; GET is 405; the resources.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { seedOrganization, startTestApp, listenOnLoopback, type SeededOrganization, type TestApp } from '../support/harness.ts';

type ToolAnswer = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };

describe('berth as an MCP server', () => {
  let t: TestApp;
  let base: string;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let projectName: string;
  let appId: string;
  const clients: Client[] = [];

  async function connect(token: string, path = '/mcp'): Promise<Client> {
    const client = new Client({ name: 'berth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(base + path), { requestInit: { headers: { authorization: `Token ${token}` } } }));
    clients.push(client);
    return client;
  }
  const call = async (c: Client, name: string, args: Record<string, unknown> = {}, options?: Parameters<Client['callTool']>[2]) =>
    (await c.callTool({ name, arguments: args }, undefined, options)) as ToolAnswer;

  before(async () => {
    t = await startTestApp();
    base = await listenOnLoopback(t);
    await startDeploymentWorkers(t.ctx);
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    projectName = (await t.ctx.db.query<{ name: string }>('select name from projects where id = $1', [env.projectId]))[0]!.name;
    const r = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: { name: 'storefront', git_repository: { url: 'https://github.com/acme/storefront' } } });
    assert.equal(r.status, 201, r.raw);
    appId = r.body.id;
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await t.close();
  });

  test('a VIEWER is offered the reading tools only; a DEVOPS token the acting ones too, marked as such', async () => {
    const viewer = await connect(await org.tokenFor('VIEWER'));
    const seen = (await viewer.listTools()).tools;
    assert.ok(seen.some((x) => x.name === 'list_services'));
    assert.deepEqual(seen.filter((x) => !x.annotations?.readOnlyHint).map((x) => x.name), []);
    assert.ok(!seen.some((x) => x.name === 'deploy_service'));
    const refused = await call(viewer, 'deploy_service', { service: 'storefront' });
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent.status, 403);

    const devops = await connect(await org.tokenFor('DEVOPS'));
    const tools = (await devops.listTools()).tools;
    const stop = tools.find((x) => x.name === 'stop_service')!;
    assert.equal(stop.annotations?.destructiveHint, true);
    assert.equal(stop.annotations?.readOnlyHint, false);
    assert.equal(tools.find((x) => x.name === 'deploy_service')!.annotations?.destructiveHint, false);
    // input schemas are the TypeBox schemas: the variable key is the REST API's
    const setVar = tools.find((x) => x.name === 'set_variable')!;
    assert.match(String((setVar.inputSchema.properties as any).key.description), /letters, digits and underscores/);
  });

  test('reading tools answer what the REST API answers, by name or id', async () => {
    const c = await connect(await org.tokenFor('VIEWER'));
    const listed = await call(c, 'list_services', { environment: env.name });
    assert.equal(listed.isError, undefined, JSON.stringify(listed));
    const rest = await t.request('GET', `/environment/${env.id}/services`, { token: org.token });
    const restItems = rest.body.results as Array<{ id: string; name: string; state: string }>;
    assert.deepEqual(listed.structuredContent.services.map((s: any) => [s.id, s.name, s.state]), restItems.map((s) => [s.id, s.name, s.state]));

    const got = await call(c, 'get_service', { service: 'storefront', environment: env.name, project: projectName });
    const restApp = await t.request('GET', `/application/${appId}`, { token: org.token });
    assert.deepEqual(got.structuredContent.settings, restApp.body);
    const links = await t.request('GET', `/application/${appId}/link`, { token: org.token });
    assert.deepEqual(got.structuredContent.public_urls.map((l: any) => l.url), links.body.results.map((l: any) => l.url));
    const byId = await call(c, 'get_service', { service: appId });
    assert.equal(byId.structuredContent.settings.id, appId);

    const orgs = await call(c, 'list_organizations');
    assert.deepEqual(orgs.structuredContent.result.map((o: any) => o.id), [org.id]);
    const envs = await call(c, 'list_environments', { project: projectName });
    assert.deepEqual(envs.structuredContent.result.map((e: any) => e.id), [env.id]);
  });

  test('a name that fits several services is an error listing them; an unknown one is a 404 body', async () => {
    const other = await seedEnvironment(t, org);
    const r = await t.request('POST', `/environment/${other.id}/application`, { token: org.token, body: { name: 'storefront', git_repository: { url: 'https://github.com/acme/storefront' } } });
    assert.equal(r.status, 201, r.raw);
    const c = await connect(org.token);
    const ambiguous = await call(c, 'get_service', { service: 'storefront' });
    assert.equal(ambiguous.isError, true);
    assert.equal(ambiguous.structuredContent.status, 400);
    assert.match(ambiguous.structuredContent.message, new RegExp(`ambiguous.*storefront in .*${env.name}.*storefront in .*${other.name}|ambiguous.*${other.name}.*${env.name}`));
    const missing = await call(c, 'get_service', { service: 'nope', environment: env.name });
    assert.equal(missing.structuredContent.status, 404);
    assert.equal(missing.structuredContent.error, 'Not Found');
    assert.equal(typeof missing.structuredContent.request_id, 'string');
    const badArgs = await call(c, 'get_service', { environment: env.name });
    assert.equal(badArgs.structuredContent.status, 400);
    assert.equal(badArgs.structuredContent.code, 'validation_error');
  });

  test('deploy through a tool: the deployment is in the API, waited on with progress, and audited', async () => {
    const c = await connect(await org.tokenFor('DEVOPS'));
    const progress: string[] = [];
    const done = await call(c, 'deploy_service', { service: 'storefront', environment: env.name, wait: true, wait_seconds: 60 },
      { onprogress: (p) => { progress.push(String(p.message)); }, timeout: 90_000 });
    assert.equal(done.isError, undefined, JSON.stringify(done));
    assert.equal(done.structuredContent.finished, true);
    assert.equal(done.structuredContent.deployment.status, 'DEPLOYED');
    assert.ok(progress.length >= 1, 'progress was notified');
    const history = await t.request('GET', `/application/${appId}/deploymentHistory`, { token: org.token });
    assert.equal(history.body.results[0].id, done.structuredContent.deployment.id);
    const audit = await t.request('GET', `/organization/${org.id}/events?eventType=TRIGGER_DEPLOY&targetId=${appId}`, { token: org.token });
    assert.equal(audit.status, 200, audit.raw);
    const event = audit.body.events.find((e: any) => e.target_id === appId);
    assert.ok(event, audit.raw);
    assert.match(event.user_agent, /^berth-mcp/);
    assert.match(event.triggered_by, /^token devops-/);

    const deployments = await call(c, 'list_deployments', { service: appId });
    assert.equal(deployments.structuredContent.result[0].id, done.structuredContent.deployment.id);
    const log = await call(c, 'get_deployment_log', { deployment_id: done.structuredContent.deployment.id });
    assert.ok(log.structuredContent.lines.length > 0);
    const logs = await call(c, 'get_service_logs', { service: appId, tail: 5 });
    assert.ok(logs.structuredContent.lines.length <= 5 && logs.structuredContent.lines.length > 0);
    const future = await call(c, 'get_service_logs', { service: appId, since: new Date(Date.now() + 60_000).toISOString() });
    assert.deepEqual(future.structuredContent.lines, []);
    const status = await call(c, 'get_environment_status', { environment: env.id });
    assert.equal(status.structuredContent.environment.id, env.id);
  });

  test('rollback deploys an earlier deployment\'s commit again; stop waits for STOPPED; a workflow run started by a tool is in its runs', async () => {
    const c = await connect(await org.tokenFor('DEVOPS'));
    const first = await call(c, 'deploy_service', { service: appId, git_commit_id: 'a'.repeat(40), wait: true, wait_seconds: 60 }, { timeout: 90_000 });
    assert.equal(first.structuredContent.deployment.git_commit_id, 'a'.repeat(40), JSON.stringify(first));
    const second = await call(c, 'deploy_service', { service: appId, git_commit_id: 'b'.repeat(40), wait: true, wait_seconds: 60 }, { timeout: 90_000 });
    assert.equal(second.structuredContent.deployment.status, 'DEPLOYED');
    const back = await call(c, 'rollback_service', { service: appId, deployment_id: first.structuredContent.deployment.id, wait: true, wait_seconds: 60 }, { timeout: 90_000 });
    assert.equal(back.isError, undefined, JSON.stringify(back));
    assert.equal(back.structuredContent.deployment.git_commit_id, 'a'.repeat(40));
    assert.equal(back.structuredContent.deployment.action, 'DEPLOY');
    const history = await t.request('GET', `/application/${appId}/deploymentHistory`, { token: org.token });
    assert.equal(history.body.results[0].id, back.structuredContent.deployment.id);
    // a deployment of another service is not a version of this one
    const other = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: { name: `other-${Date.now()}`, git_repository: { url: 'https://github.com/acme/o' } } });
    const foreign = await call(c, 'rollback_service', { service: other.body.id, deployment_id: first.structuredContent.deployment.id });
    assert.equal(foreign.structuredContent.status, 404);

    const stopped = await call(c, 'stop_service', { service: appId, wait: true, wait_seconds: 60 }, { timeout: 90_000 });
    assert.equal(stopped.structuredContent.deployment.status, 'STOPPED', JSON.stringify(stopped));

    const wf = await t.request('POST', `/environment/${env.id}/agenticWorkflow`, { token: org.token, body: { name: 'triage' } });
    assert.equal(wf.status, 201, wf.raw);
    const started = await call(c, 'run_workflow', { workflow: 'triage', environment: env.name, payload: { alert: 'disk full' } });
    assert.equal(started.isError, undefined, JSON.stringify(started));
    assert.equal(started.structuredContent.trigger, 'MANUAL');
    const runs = await call(c, 'list_workflow_runs', { workflow: wf.body.id });
    assert.equal(runs.structuredContent.result[0].id, started.structuredContent.id);
    assert.deepEqual(runs.structuredContent.result[0].payload, { alert: 'disk full' });
    assert.equal((await call(c, 'run_workflow', { workflow: 'storefront', environment: env.name })).structuredContent.status, 400);
  });

  test('the rate limit is the API\'s: past the budget a call is a 429 with berth\'s error body', async () => {
    const limited = await startTestApp({ config: { rateLimitPerHour: 3 } });
    try {
      const url = `${await listenOnLoopback(limited)}/mcp`;
      const token = (await seedOrganization(limited)).token;
      const statuses: number[] = [];
      let last: any;
      for (let i = 0; i < 5; i++) {
        const r = await fetch(url, { method: 'POST', headers: { authorization: `Token ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }) });
        statuses.push(r.status);
        last = await r.text();
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      assert.equal(JSON.parse(last).code, 'rate_limited');
    } finally {
      await limited.close();
    }
  });

  test('the audit log and the projects by name; a deployment\'s whole log as a resource', async () => {
    const admin = await connect(org.token);
    const events = await call(admin, 'get_audit_log', { event_type: 'TRIGGER_DEPLOY', limit: 5 });
    assert.equal(events.isError, undefined, JSON.stringify(events));
    assert.ok(events.structuredContent.result.length > 0 && events.structuredContent.result.every((e: any) => e.event_type === 'TRIGGER_DEPLOY'));
    const devops = await connect(await org.tokenFor('DEVOPS'));
    assert.equal((await call(devops, 'get_audit_log')).structuredContent.status, 403, 'the audit log needs ADMIN, as in the API');

    const projects = await call(admin, 'list_projects', { organization: org.name });
    assert.ok(projects.structuredContent.result.some((p: any) => p.id === env.projectId && p.name === projectName));

    const deployment = (await t.request('GET', `/application/${appId}/deploymentHistory`, { token: org.token })).body.results[0];
    const log = await admin.readResource({ uri: `berth://deployment/${deployment.id}/log` });
    const rest = await t.request('GET', `/deployment/${deployment.id}/log?page_size=100`, { token: org.token });
    assert.equal((log.contents[0] as { text: string }).text.split('\n').length, rest.body.results.length);
    await assert.rejects(admin.readResource({ uri: 'berth://deployment/00000000-0000-4000-8000-000000000000/log' }), /not found/i);
  });

  test('variables: a secret is write-only, set twice is one variable, delete removes it', async () => {
    const c = await connect(await org.tokenFor('DEVOPS'));
    const set = await call(c, 'set_variable', { service: appId, key: 'API_TOKEN', value: 's3cr3t-value', secret: true });
    assert.equal(set.isError, undefined, JSON.stringify(set));
    assert.equal(set.structuredContent.variable.value, null);
    assert.ok(!JSON.stringify(set).includes('s3cr3t-value'));
    const again = await call(c, 'set_variable', { service: appId, key: 'API_TOKEN', value: 'another' });
    assert.equal(again.structuredContent.created, false);
    const rest = await t.request('GET', `/application/${appId}/secret`, { token: org.token });
    assert.equal(rest.body.results.filter((v: any) => v.key === 'API_TOKEN').length, 1);
    const del = await call(c, 'delete_variable', { service: appId, key: 'API_TOKEN' });
    assert.equal(del.isError, undefined, JSON.stringify(del));
    const gone = await call(c, 'delete_variable', { service: appId, key: 'API_TOKEN' });
    assert.equal(gone.structuredContent.status, 404);
  });

  test('another organization\'s token gets nothing of this one', async () => {
    const stranger = await seedOrganization(t);
    const c = await connect(stranger.token);
    const byName = await call(c, 'get_service', { service: 'storefront' });
    assert.equal(byName.structuredContent.status, 404);
    // by id: refused exactly as the REST API refuses it
    const rest = await t.request('GET', `/application/${appId}`, { token: stranger.token });
    const byId = await call(c, 'get_service', { service: appId });
    assert.deepEqual([byId.structuredContent.status, byId.structuredContent.message], [rest.body.status, rest.body.message]);
    assert.equal(byId.structuredContent.status, 403);
    const deploy = await call(c, 'deploy_service', { service: appId });
    assert.equal(deploy.structuredContent.status, 403);
    assert.equal((await call(c, 'list_services', { environment: env.id })).structuredContent.status, 403);
  });

  test('HTTP: a request that asks to close its connection gets it closed (an egress proxy relays the next request raw otherwise)', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(new URL(base).port), '127.0.0.1', () => {
        socket.write(`POST /mcp HTTP/1.1\r\nHost: berth\r\nConnection: close\r\nAuthorization: Token ${org.token}\r\n`
          + `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      });
      let text = '';
      socket.on('data', (d) => { text += d.toString(); });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      setTimeout(() => reject(new Error(`the connection stayed open: ${text.slice(0, 300)}`)), 5_000).unref();
    });
    assert.match(answer, /^HTTP\/1\.1 200/);
    assert.doesNotMatch(answer, /keep-alive/i);
    assert.match(answer, /list_services/);
  });

  test('HTTP: no token is a 401 body; GET is 405; /api/v1/mcp works too; resources read logs', async () => {
    const noToken = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(noToken.status, 401);
    assert.equal(((await noToken.json()) as { code: string }).code, 'unauthorized');
    const get = await fetch(`${base}/mcp`, { headers: { authorization: `Token ${org.token}` } });
    assert.equal(get.status, 405);
    const c = await connect(org.token, '/api/v1/mcp');
    const templates = await c.listResourceTemplates();
    assert.deepEqual(templates.resourceTemplates.map((x) => x.name).sort(), ['deployment-log', 'service-manifests']);
    const manifests = await c.readResource({ uri: `berth://service/${appId}/manifests` });
    assert.match(String((manifests.contents[0] as { text?: string }).text), /kind: Deployment/);
    await assert.rejects(c.readResource({ uri: 'berth://nothing' }), /Unknown resource/);
  });
});
