// With a real MCP host: Claude Code's native binary (from node_modules, headless, stream-json)
// connects to berth's MCP server over Streamable HTTP on loopback with an API token, driven by the
// scripted model on the host. A DEVOPS token: claude reports the berth server connected, the model
// is offered berth's tools, list_services answers storefront to the model, and redeploy_service
// queues a REDEPLOY that the REST API shows and the simulated engine's workers finish. A VIEWER
// token: the model is offered only the reading tools, and its redeploy attempt changes nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOLS } from '../../src/mcp/catalog.ts';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { eventually, seedOrganization, startTestApp, listenOnLoopback, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { claudeBinary, requestText, runClaude, startLocalScriptedModel, toolResultText, type ClaudeRun, type LocalScriptedModel } from '../support/mcp-hosts.ts';

const ALLOWED = ['mcp__berth__list_services', 'mcp__berth__redeploy_service'];
const READ_TOOLS = TOOLS.filter((x) => x.action === 'read').map((x) => `mcp__berth__${x.name}`).sort();
const ALL_TOOLS = TOOLS.map((x) => `mcp__berth__${x.name}`).sort();

/** what a failed assertion shows of a run */
const shown = (run: ClaudeRun) => `exit ${run.code} (${run.signal ?? 'no signal'}) after ${run.ms} ms\nstderr: ${run.stderr.slice(0, 2000)}\nstdout: ${JSON.stringify(run.events).slice(0, 4000)}`;

/** the tool_result blocks a request's messages carry for tool_use blocks named `name` */
function resultsOf(body: any, name: string): any[] {
  const messages: any[] = body?.messages ?? [];
  const ids = new Set(messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b: any) => b?.type === 'tool_use' && b.name === name).map((b: any) => b.id));
  return messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b: any) => b?.type === 'tool_result' && ids.has(b.tool_use_id));
}

const berthToolsIn = (body: any): string[] => ((body?.tools ?? []) as Array<{ name: string }>).map((x) => x.name).filter((n) => n.startsWith('mcp__berth__')).sort();

describe('Claude Code as an MCP host of berth', () => {
  let t: TestApp;
  let base: string;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let appId: string;
  let model: LocalScriptedModel | undefined;

  const history = async () => {
    const r = await t.request('GET', `/application/${appId}/deploymentHistory`, { token: org.token });
    assert.equal(r.status, 200, r.raw);
    return r.body.results as Array<{ id: string; action: string; status: string; finished: boolean; triggered_by: string }>;
  };
  const claude = async (token: string, marker: string) => runClaude({
    prompt: `Redeploy the storefront service of the environment ${env.name}. [script:${marker}]`,
    modelUrl: model!.url,
    mcpServers: { berth: { type: 'http', url: `${base}/mcp`, headers: { Authorization: `Token ${token}` } } },
    allowedTools: ALLOWED, maxTurns: 6, timeoutMs: 60_000,
  });
  /** the requests the scripted model received from the run with `marker` */
  const requestsOf = async (marker: string) => (await model!.requests()).filter((r) => r.method === 'POST' && requestText(r.body).includes(`[script:${marker}]`));

  before(async () => {
    claudeBinary(); // fails here, saying why, when node_modules lacks it
    t = await startTestApp();
    base = await listenOnLoopback(t);
    await startDeploymentWorkers(t.ctx);
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    const r = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: { name: 'storefront', git_repository: { url: 'https://github.com/acme/storefront' } } });
    assert.equal(r.status, 201, r.raw);
    appId = r.body.id;
    // a redeploy is of the version that runs: deploy one first
    const deploy = await t.request('POST', `/application/${appId}/deploy`, { token: org.token, body: {} });
    assert.equal(deploy.status, 202, deploy.raw);
    await eventually(async () => (await history()).find((d) => d.id === deploy.body.id && d.status === 'DEPLOYED'), 60_000, 250);
    model = await startLocalScriptedModel();
    await model.setScripts({
      'berth-mcp': [
        { tool_use: { name: 'mcp__berth__list_services', input: { environment: env.name } } },
        { tool_use: { name: 'mcp__berth__redeploy_service', input: { service: 'storefront', environment: env.name } } },
        { text: 'done' },
      ],
      'berth-mcp-viewer': [
        { tool_use: { name: 'mcp__berth__redeploy_service', input: { service: 'storefront', environment: env.name } } },
        { text: 'done' },
      ],
    });
  });
  after(async () => {
    await model?.stop();
    await t?.close();
  });

  test('a DEVOPS token: claude lists storefront and redeploys it through berth\'s tools', { timeout: 100_000 }, async () => {
    const run = await claude(await org.tokenFor('DEVOPS'), 'berth-mcp');
    assert.equal(run.code, 0, shown(run));
    const init = run.events.find((e) => e.type === 'system' && e.subtype === 'init');
    assert.ok(init, shown(run));
    assert.deepEqual(init.mcp_servers.filter((s: any) => s.name === 'berth').map((s: any) => s.status), ['connected'], shown(run));
    assert.deepEqual((init.tools as string[]).filter((n) => n.startsWith('mcp__berth__')).sort(), ALL_TOOLS);
    const result = run.events.find((e) => e.type === 'result');
    assert.equal(result?.subtype, 'success', shown(run));
    assert.equal(result.is_error, false);
    assert.equal(result.result, 'done');

    // what the model was sent: berth's tools listed directly (tool search off), then both answers
    const requests = await requestsOf('berth-mcp');
    assert.equal(requests.length, 3, `one model request per scripted step: ${requests.map((r) => r.path).join(', ')}`);
    for (const r of requests) assert.deepEqual(berthToolsIn(r.body), ALL_TOOLS);
    const last = requests.at(-1)!.body;
    const listed = resultsOf(last, 'mcp__berth__list_services');
    assert.equal(listed.length, 1, JSON.stringify(last.messages).slice(0, 3000));
    assert.notEqual(listed[0].is_error, true, toolResultText(listed[0]));
    const services = JSON.parse(toolResultText(listed[0]));
    assert.equal(services.environment.name, env.name);
    assert.deepEqual(services.services.map((s: any) => [s.id, s.name, s.type]), [[appId, 'storefront', 'APPLICATION']]);
    const redeployed = resultsOf(last, 'mcp__berth__redeploy_service');
    assert.equal(redeployed.length, 1);
    assert.notEqual(redeployed[0].is_error, true, toolResultText(redeployed[0]));
    const { deployment } = JSON.parse(toolResultText(redeployed[0]));
    assert.equal(deployment.action, 'REDEPLOY');
    assert.equal(deployment.service_id, appId);

    // the REST API has that deployment, by the DEVOPS token, and the workers finish it
    const inApi = (await history()).find((d) => d.id === deployment.id);
    assert.equal(inApi?.action, 'REDEPLOY');
    assert.match(inApi.triggered_by, /^token devops-/);
    const final = await eventually(async () => (await history()).find((d) => d.id === deployment.id && d.finished), 60_000, 250);
    assert.equal(final.status, 'DEPLOYED');
    const audit = await t.request('GET', `/organization/${org.id}/events?eventType=TRIGGER_REDEPLOY&targetId=${appId}`, { token: org.token });
    assert.equal(audit.status, 200, audit.raw);
    assert.equal(audit.body.events.filter((e: any) => e.target_id === appId && /^berth-mcp/.test(e.user_agent)).length, 1, audit.raw);
  });

  test('a VIEWER token: claude is offered the reading tools only, and its redeploy attempt changes nothing', { timeout: 100_000 }, async () => {
    const before = (await history()).length;
    const run = await claude(await org.tokenFor('VIEWER'), 'berth-mcp-viewer');
    assert.equal(run.code, 0, shown(run));
    const init = run.events.find((e) => e.type === 'system' && e.subtype === 'init');
    assert.deepEqual(init?.mcp_servers.filter((s: any) => s.name === 'berth').map((s: any) => s.status), ['connected'], shown(run));
    assert.deepEqual((init.tools as string[]).filter((n) => n.startsWith('mcp__berth__')).sort(), READ_TOOLS);

    const requests = await requestsOf('berth-mcp-viewer');
    assert.equal(requests.length, 2, `one model request per scripted step: ${requests.map((r) => r.path).join(', ')}`);
    for (const r of requests) {
      assert.deepEqual(berthToolsIn(r.body), READ_TOOLS);
      assert.ok(READ_TOOLS.includes('mcp__berth__list_services') && !berthToolsIn(r.body).includes('mcp__berth__redeploy_service'));
    }
    // the model asked for the tool anyway (allowed on the command line): claude refuses, berth sees nothing
    const attempt = resultsOf(requests.at(-1)!.body, 'mcp__berth__redeploy_service');
    assert.equal(attempt.length, 1);
    assert.equal(attempt[0].is_error, true, toolResultText(attempt[0]));
    assert.equal((await history()).length, before);
  });
});
