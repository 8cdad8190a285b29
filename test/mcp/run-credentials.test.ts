// A workflow run's own berth credential (decision 0197), minted by prepareAgentRun as the engine
// would get it: it reaches berth's MCP server and nothing else of the API; only the run's
// environment, the workflow and its context services; reading unless governance.platform_access
// is ACT; nothing with NONE; and it is refused once the run has ended (the worker revokes it) or
// expired. governance.platform_access is validated and defaults to READ.
// Tests share one process: the deployment workers run here (started by this file or another), so
// each run is let finish before its credential is minted again for the test, and the revocation
// is watched through the worker's own function with an engine whose runAgent uses the credential.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { prepareAgentRun, BERTH_TOKEN_VARIABLE, type AgentRunDeps } from '../../src/modules/workflows/agent-run.ts';
import { allowedHosts, filterLines } from '../../src/engine/agent/egress.ts';
import type { AgentRunSpec } from '../../src/engine/agent/spec.ts';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { runWorkflowAgent } from '../../src/modules/workflows/agent-step.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { eventually, expectErrorBody, seedOrganization, startTestApp, listenOnLoopback, type SeededOrganization, type TestApp } from '../support/harness.ts';

type ToolAnswer = { isError?: boolean; structuredContent?: any };

describe('a workflow run\'s berth credential', () => {
  let t: TestApp;
  let base: string;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let other: SeededEnvironment;
  const ids: Record<string, string> = {};
  const clients: Client[] = [];

  const deps = (): AgentRunDeps => ({
    db: t.ctx.db, sealer: t.ctx.sealer, services: t.ctx.services.services, llmProviders: t.ctx.services.llmProviders, mcpServers: t.ctx.services.mcpServers, runCredentials: t.ctx.services.runCredentials, ingress: { domain: t.config.ingressDomain, port: t.config.ingressPort }, requireCredential: false, berthUrl: 'http://berth.internal:8080',
  });
  async function app(environmentId: string, name: string): Promise<string> {
    const r = await t.request('POST', `/environment/${environmentId}/application`, { token: org.token, body: { name, git_repository: { url: 'https://github.com/acme/x' } } });
    assert.equal(r.status, 201, r.raw);
    return r.body.id;
  }
  async function workflow(governance: Record<string, unknown>): Promise<{ id: string; runId: string; token: string | undefined; mcp: Record<string, any>; spec: AgentRunSpec }> {
    const w = await t.request('POST', `/environment/${env.id}/agenticWorkflow`, { token: org.token, body: {
      name: `wf-${randomUUID().slice(0, 8)}`, context_service_ids: [ids.api], governance: { host_allowlist: [], ...governance },
    } });
    assert.equal(w.status, 201, w.raw);
    const run = await t.request('POST', `/agenticWorkflow/${w.body.id}/run`, { token: org.token });
    assert.equal(run.status, 202, run.raw);
    // the worker has run (and revoked) its own credential: the one minted below is the test's
    await finished(w.body.id, run.body.id);
    const prepared = await prepareAgentRun(deps(), run.body.deployment_id, w.body.id);
    assert.ok(prepared && 'spec' in prepared, JSON.stringify(prepared));
    return { id: w.body.id, runId: run.body.id, token: prepared.spec.mcpEnv[BERTH_TOKEN_VARIABLE], mcp: prepared.spec.mcpServers, spec: prepared.spec };
  }
  const finished = (workflowId: string, runId: string) => eventually(async () => {
    const r = await t.request('GET', `/agenticWorkflow/${workflowId}/run/${runId}`, { token: org.token });
    return ['SUCCEEDED', 'FAILED', 'CANCELED'].includes(r.body.status) ? r.body : null;
  }, 30_000, 50);
  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: 'run-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Token ${token}` } } }));
    clients.push(client);
    return client;
  }
  const call = async (c: Client, name: string, args: Record<string, unknown> = {}) => (await c.callTool({ name, arguments: args })) as ToolAnswer;

  before(async () => {
    t = await startTestApp();
    base = await listenOnLoopback(t);
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    other = await seedEnvironment(t, org);
    ids.api = await app(env.id, 'api');
    ids.billing = await app(env.id, 'billing');
    ids.elsewhere = await app(other.id, 'elsewhere');
    await startDeploymentWorkers(t.ctx);
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await t.close();
  });

  test('governance.platform_access: READ by default, validated, kept when only host_allowlist is sent', async () => {
    const w = await t.request('POST', `/environment/${env.id}/agenticWorkflow`, { token: org.token, body: { name: `wf-${randomUUID().slice(0, 8)}` } });
    assert.equal(w.body.governance.platform_access, 'READ');
    const bad = await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { token: org.token, body: { name: w.body.name, governance: { host_allowlist: [], platform_access: 'ROOT' } } });
    assert.match(expectErrorBody(bad, 400).message, /platform_access/);
    const act = await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { token: org.token, body: { name: w.body.name, governance: { host_allowlist: [], platform_access: 'ACT' } } });
    assert.equal(act.body.governance.platform_access, 'ACT');
    const kept = await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { token: org.token, body: { name: w.body.name, governance: { host_allowlist: ['pypi.org'] } } });
    assert.equal(kept.body.governance.platform_access, 'ACT');
  });

  test('READ: the run reaches its environment, its workflow and context services, reading only; the rest of the API refuses it', async () => {
    const w = await workflow({});
    assert.ok(w.token?.startsWith('brun_'));
    // the agent's MCP configuration names the variable, never the secret
    assert.deepEqual(w.mcp.berth, { type: 'http', url: 'http://berth.internal:8080/mcp', headers: { Authorization: `Token \${${BERTH_TOKEN_VARIABLE}}` } });
    // the egress proxy lets through that URL exactly, not berth's whole host
    assert.equal(w.spec.berthMcpUrl, 'http://berth.internal:8080/mcp');
    assert.ok(!allowedHosts(w.spec).includes('berth.internal'));
    assert.ok(filterLines(allowedHosts(w.spec), [w.spec.berthMcpUrl!]).includes('^http://berth\\.internal:8080/mcp$'));
    const c = await connect(w.token!);
    const names = (await c.listTools()).tools.map((x) => x.name);
    assert.ok(names.includes('list_services') && names.includes('get_service_logs'));
    assert.ok(!names.includes('list_organizations') && !names.includes('get_audit_log'), 'no organization-wide tool');
    assert.ok(!names.includes('deploy_service') && !names.includes('set_variable'), 'no acting tool');

    const listed = await call(c, 'list_services', { environment: env.id });
    assert.deepEqual(listed.structuredContent.services.map((s: any) => s.id).sort(), [ids.api, w.id].sort());
    assert.equal((await call(c, 'get_service', { service: 'api' })).structuredContent.settings.id, ids.api);
    assert.equal((await call(c, 'get_service', { service: ids.billing })).structuredContent.status, 403);
    // another environment of the same organization: out of sight by name, refused by id
    assert.equal((await call(c, 'get_service', { service: 'elsewhere' })).structuredContent.status, 404);
    assert.equal((await call(c, 'get_service', { service: ids.elsewhere })).structuredContent.status, 403);
    // and the services behind the tools refuse it there too (the scope check, not only the lookup)
    const viaDeployment = await t.ctx.services.deployments.history(
      (await t.ctx.services.identity.authenticate(`Token ${w.token}`)), ids.elsewhere, 'APPLICATION', 'Application', { page: 1, pageSize: 1, limit: 1, offset: 0 })
      .then(() => null, (err: { status: number }) => err.status);
    assert.equal(viaDeployment, 403);
    assert.equal((await call(c, 'list_services', { environment: other.id })).structuredContent.status, 403);
    assert.equal((await call(c, 'deploy_service', { service: 'api' })).structuredContent.status, 403);

    const rest = await t.request('GET', `/application/${ids.api}`, { token: w.token });
    assert.match(expectErrorBody(rest, 403).message, /only at berth's MCP server/);
    assert.equal((await t.request('GET', '/organization', { token: w.token })).status, 403);
  });

  test('ACT: the run may deploy and set variables of its context services only', async () => {
    const w = await workflow({ platform_access: 'ACT' });
    const c = await connect(w.token!);
    const deployed = await call(c, 'deploy_service', { service: 'api' });
    assert.equal(deployed.isError, undefined, JSON.stringify(deployed));
    const history = await t.request('GET', `/application/${ids.api}/deploymentHistory`, { token: org.token });
    assert.equal(history.body.results[0].id, deployed.structuredContent.deployment.id);
    assert.match(history.body.results[0].triggered_by, /workflow run /);
    assert.equal((await call(c, 'deploy_service', { service: ids.billing })).structuredContent.status, 403);
    assert.equal((await call(c, 'set_variable', { service: 'api', key: 'FROM_AGENT', value: '1' })).isError, undefined);
    assert.equal((await call(c, 'set_variable', { environment: env.id, key: 'WHOLE_ENV', value: '1' })).structuredContent.status, 403);
  });

  test('NONE: no connection and no credential', async () => {
    const w = await workflow({ platform_access: 'NONE' });
    assert.equal(w.token, undefined);
    assert.equal(w.mcp.berth, undefined);
  });

  test('refused once the run has ended (revoked by the worker) or expired', async () => {
    const w = await workflow({});
    const run = await t.request('GET', `/agenticWorkflow/${w.id}/run/${w.runId}`, { token: org.token });
    // the worker's step, over an engine whose agent uses the credential it was handed while it runs
    let during: ToolAnswer | undefined;
    let handed: string | undefined;
    const engine = {
      ...t.ctx.engine, real: false,
      async runAgent(spec: AgentRunSpec) {
        handed = spec.mcpEnv[BERTH_TOKEN_VARIABLE];
        during = await call(await connect(handed!), 'get_service', { service: 'api' });
        return { status: 'SUCCEEDED' as const, message: null, result: 'ok', numTurns: 1, inputTokens: 1, outputTokens: 1, costUsd: 0, durationMs: 1 };
      },
    };
    const lines: string[] = [];
    await runWorkflowAgent({ ...t.ctx, services: t.ctx.services.services, llmProviders: t.ctx.services.llmProviders, mcpServers: t.ctx.services.mcpServers, runCredentials: t.ctx.services.runCredentials, engine }, {
      id: w.id, type: 'AGENTIC_WORKFLOW', name: 'wf', slug: 'wf', environmentId: env.id, spec: {}, advancedSettings: {},
      gitCommitId: null, imageTag: null, deploymentId: run.body.deployment_id,
    }, async (_kind, message) => { lines.push(message); }, new AbortController().signal, { beat: async () => false });
    assert.equal(during?.structuredContent.settings.id, ids.api, 'the credential worked while the agent ran');
    assert.ok(lines.some((l) => /berth's MCP server is offered to the agent as "berth"/.test(l)), lines.join('\n'));
    const after = await fetch(`${base}/mcp`, { method: 'POST', headers: { authorization: `Token ${handed}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    assert.equal(after.status, 401, 'refused once the agent stopped');
    // revocation is per run: the credential this test minted earlier for the same run is refused too
    await assert.rejects(connect(w.token!), /401|unknown, expired or revoked/);

    const expired = await t.ctx.services.runCredentials.mint(t.ctx.db, {
      organizationId: org.id, runId: w.runId, workflowId: w.id, environmentId: env.id, serviceIds: [w.id], mayAct: false, expiresAt: new Date(Date.now() - 1000),
    });
    const r = await fetch(`${base}/mcp`, { method: 'POST', headers: { authorization: `Token ${expired}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    assert.equal(r.status, 401);
  });
});
