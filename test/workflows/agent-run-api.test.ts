// Agent runs through the API on the simulated engine (workers in-process; each step takes a short
// while; a run ends SUCCEEDED with a "[simulated]" result and calls no model): a run started by
// hand (POST …/run) with its payload, its roles and refusals; the run's transcript paged; per-run
// cancel; IN_PLACE runs one at a time; the WORKFLOW_RUN_SUCCEEDED event's figures at a real
// receiver on loopback; and what prepareAgentRun hands the engine (connector headers as
// environment references, the key, missing credentials and connectors, a copy's context services,
// VS Code's mcp form rendered as the harness's with the same egress hosts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentArgs, mcpConfigFile } from '../../src/engine/agent/container-config.ts';
import { allowedHosts } from '../../src/engine/agent/egress.ts';
import type { AgentRunSpec } from '../../src/engine/agent/spec.ts';
import { prepareAgentRun, type AgentRunDeps, type PreparedRun } from '../../src/modules/workflows/agent-run.ts';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { startWebhookWorkers } from '../../src/workers/handlers.ts';
import { cleanupRunCopy } from '../../src/workers/workflow-schedule.ts';
import { startWorkflowScheduleWorker } from '../../src/workers/handlers.ts';
import { seedEnvironment, seedService, type SeededEnvironment } from '../support/factories.ts';
import { eventually, expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { workflowExamples } from '../../src/http/examples/workflows.ts';

const FINAL = ['SUCCEEDED', 'FAILED', 'CANCELED'];
const API_KEY = 'sk-ant-api03-run-api-test-4f8a1c9e';

describe('agent runs through the API (simulated engine)', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let server: Server;
  let base: string;
  const received: Array<{ path: string; body: string }> = [];

  const create = async (body: Record<string, unknown> = {}, environmentId = env.id) => {
    const r = await t.request('POST', `/environment/${environmentId}/agenticWorkflow`, { token: org.token, body: { name: `wf-${randomUUID().slice(0, 8)}`, ...body } });
    assert.equal(r.status, 201, r.raw);
    return r.body as { id: string; name: string; webhook: { url: string } };
  };
  const start = async (workflowId: string, body?: unknown, token = org.token) => {
    const r = await t.request('POST', `/agenticWorkflow/${workflowId}/run`, { token, ...(body !== undefined ? { body } : {}) });
    assert.equal(r.status, 202, r.raw);
    return r;
  };
  const getRun = async (workflowId: string, runId: string) => (await t.request('GET', `/agenticWorkflow/${workflowId}/run/${runId}`, { token: org.token })).body;
  const finished = (workflowId: string, runId: string) => eventually(async () => {
    const r = await getRun(workflowId, runId);
    return FINAL.includes(r.status) ? r : null;
  }, 20_000, 20);
  const runCount = async (workflowId: string) =>
    (await t.ctx.db.query<{ n: number }>('select count(*)::int as n from agentic_workflow_runs where workflow_id = $1', [workflowId]))[0]!.n;
  const deps = (over: Partial<AgentRunDeps> = {}): AgentRunDeps => ({
    db: t.ctx.db, sealer: t.ctx.sealer, services: t.ctx.services.services, llmProviders: t.ctx.services.llmProviders, mcpServers: t.ctx.services.mcpServers, runCredentials: t.ctx.services.runCredentials, ingress: { domain: t.config.ingressDomain, port: t.config.ingressPort }, requireCredential: false, berthUrl: null, ...over,
  });
  const specOf = (p: PreparedRun | null) => {
    assert.ok(p, 'the deployment carries a run');
    if ('problem' in p) assert.fail(`a problem instead of a spec: ${p.problem}`);
    return p.spec;
  };
  const problemOf = (p: PreparedRun | null) => {
    assert.ok(p, 'the deployment carries a run');
    assert.ok('problem' in p, `a spec instead of a problem: ${JSON.stringify(p)}`);
    return p.problem;
  };
  const withSteps = async <T>(ms: number, fn: () => Promise<T>): Promise<T> => {
    const before = t.engine.settings.stepMs;
    t.engine.configure({ stepMs: ms });
    try { return await fn(); } finally { t.engine.configure({ stepMs: before }); }
  };

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        received.push({ path: req.url!, body });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await startTestApp({ config: { webhookAllowPrivateTargets: true }, simulated: { stepMs: 30 } });
    await startDeploymentWorkers(t.ctx);
    await startWebhookWorkers(t.ctx);
    await startWorkflowScheduleWorker(t.ctx);
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(async () => {
    await t.close();
    await new Promise((r) => server.close(r));
  });

  test('POST …/run with a JSON body: 202, Location, MANUAL, triggered_by names the token, payload stored; it ends SUCCEEDED [simulated]', async () => {
    const w = await create();
    const token = (await t.ctx.services.tokens.issue(t.ctx.db, org.id, 'ci-runner', 'DEVOPS')).token;
    const payload = workflowExamples.startAgenticWorkflowRun;
    const r = await start(w.id, payload, token);
    const run = r.body;
    assert.equal(r.headers.location, `/agenticWorkflow/${w.id}/run/${run.id}`);
    assert.equal(run.agentic_workflow_id, w.id);
    assert.equal(run.trigger, 'MANUAL');
    assert.equal(run.triggered_by, 'token ci-runner');
    assert.deepEqual(run.payload, payload);
    assert.ok(['QUEUED', 'RUNNING'].includes(run.status), run.status);
    assert.ok(run.deployment_id, 'the run names its deployment');
    const located = await t.request('GET', String(r.headers.location), { token: org.token });
    assert.equal(located.status, 200);
    assert.equal(located.body.id, run.id);
    const stored = await t.ctx.db.query<{ payload: unknown; trigger: string }>('select payload, trigger from agentic_workflow_runs where id = $1', [run.id]);
    assert.deepEqual(stored[0], { payload, trigger: 'MANUAL' });

    const done = await finished(w.id, run.id);
    assert.equal(done.status, 'SUCCEEDED', done.message ?? '');
    assert.match(done.result ?? '', /^\[simulated\] /);
    assert.equal(done.num_turns, 0);
    assert.equal(done.input_tokens, 0);
    assert.equal(done.output_tokens, 0);
    assert.equal(done.cost_usd, 0);
    assert.equal(typeof done.duration_ms, 'number');
    assert.ok(done.duration_ms >= 0);
    assert.ok(done.started_at && done.finished_at);
    assert.equal(done.message, null);
  });

  test('POST …/run without a body: the payload is null; an array body is a payload too', async () => {
    const w = await create();
    const none = (await start(w.id)).body;
    assert.equal(none.payload, null);
    assert.equal(none.trigger, 'MANUAL');
    const list = (await start(w.id, [1, 'two'])).body;
    assert.deepEqual(list.payload, [1, 'two']);
    await finished(w.id, none.id);
    await finished(w.id, list.id);
  });

  test('POST …/run refused: VIEWER 403, disabled 409, unknown workflow 404, over 64 KiB 413, no token 401; no run recorded', async () => {
    const w = await create();
    expectErrorBody(await t.request('POST', `/agenticWorkflow/${w.id}/run`, { token: await org.tokenFor('VIEWER'), body: { a: 1 } }), 403);
    expectErrorBody(await t.request('POST', `/agenticWorkflow/${w.id}/run`, { body: { a: 1 } }), 401);
    expectErrorBody(await t.request('POST', `/agenticWorkflow/${w.id}/run`, { token: org.token, body: { blob: 'x'.repeat(65 * 1024) } }), 413);
    assert.equal(await runCount(w.id), 0);
    const off = await create({ enabled: false });
    const disabled = expectErrorBody(await t.request('POST', `/agenticWorkflow/${off.id}/run`, { token: org.token, body: {} }), 409);
    assert.match(disabled.message, /disabled/);
    assert.equal(await runCount(off.id), 0);
    expectErrorBody(await t.request('POST', `/agenticWorkflow/${randomUUID()}/run`, { token: org.token, body: {} }), 404);
    // another organization's token does not reach the workflow
    const other = await seedOrganization(t);
    assert.ok([403, 404].includes((await t.request('POST', `/agenticWorkflow/${w.id}/run`, { token: other.token, body: {} })).status));
    assert.equal(await runCount(w.id), 0);
  });

  test('GET …/run/{runId}/log pages the transcript, every line marked [simulated]; 404 for another workflow\'s run', async () => {
    const w = await create();
    const run = (await start(w.id, { ping: true })).body;
    assert.equal((await finished(w.id, run.id)).status, 'SUCCEEDED');
    const all = await t.request('GET', `/agenticWorkflow/${w.id}/run/${run.id}/log?page_size=100`, { token: await org.tokenFor('VIEWER') });
    assert.equal(all.status, 200, all.raw);
    const lines = all.body.results as Array<{ message: string; deployment_id: string }>;
    assert.ok(lines.length >= 3, JSON.stringify(lines));
    for (const l of lines) assert.match(l.message, /^\[simulated\] /, l.message);
    assert.ok(lines.some((l) => /result: No agent ran/.test(l.message)), 'the agent\'s result line');
    assert.ok(lines.every((l) => l.deployment_id === run.deployment_id));
    assert.equal(all.body.pagination.total_count, lines.length);
    // pages of one line, in order
    const first = await t.request('GET', `/agenticWorkflow/${w.id}/run/${run.id}/log?page=1&page_size=1`, { token: org.token });
    const second = await t.request('GET', `/agenticWorkflow/${w.id}/run/${run.id}/log?page=2&page_size=1`, { token: org.token });
    assert.deepEqual([first.body.results.length, second.body.results.length], [1, 1]);
    assert.equal(first.body.results[0].message, lines[0]!.message);
    assert.equal(second.body.results[0].message, lines[1]!.message);
    assert.equal(first.body.pagination.total_count, lines.length);
    assert.equal(first.body.pagination.total_pages, lines.length);
    // the last lines
    const tail = await t.request('GET', `/agenticWorkflow/${w.id}/run/${run.id}/log?tail=2`, { token: org.token });
    assert.deepEqual(tail.body.results.map((l: { message: string }) => l.message), lines.slice(-2).map((l) => l.message));
    // another workflow's run is not found through this one
    const other = await create();
    expectErrorBody(await t.request('GET', `/agenticWorkflow/${other.id}/run/${run.id}/log`, { token: org.token }), 404);
    expectErrorBody(await t.request('GET', `/agenticWorkflow/${w.id}/run/${randomUUID()}/log`, { token: org.token }), 404);
  });

  test('POST …/run/{runId}/cancel: VIEWER 403; a running run → 202 CANCELED; again → 409', async () => {
    await withSteps(400, async () => {
      const w = await create();
      const run = (await start(w.id, {})).body;
      await eventually(async () => (await getRun(w.id, run.id)).status === 'RUNNING', 10_000, 10);
      expectErrorBody(await t.request('POST', `/agenticWorkflow/${w.id}/run/${run.id}/cancel`, { token: await org.tokenFor('VIEWER') }), 403);
      assert.equal((await getRun(w.id, run.id)).status, 'RUNNING', 'the VIEWER\'s cancel changed nothing');
      const c = await t.request('POST', `/agenticWorkflow/${w.id}/run/${run.id}/cancel`, { token: await org.tokenFor('DEVOPS') });
      assert.equal(c.status, 202, c.raw);
      assert.equal(c.body.id, run.id);
      assert.equal(c.body.status, 'CANCELED');
      assert.match(c.body.message ?? '', /Canceled by token /);
      expectErrorBody(await t.request('POST', `/agenticWorkflow/${w.id}/run/${run.id}/cancel`, { token: org.token }), 409);
      const dep = await eventually(async () => {
        const d = (await t.request('GET', `/deployment/${run.deployment_id}`, { token: org.token })).body;
        return d.finished ? d : null;
      }, 15_000, 20);
      assert.equal(dep.status, 'CANCELED');
      assert.equal((await getRun(w.id, run.id)).status, 'CANCELED');
      expectErrorBody(await t.request('POST', `/agenticWorkflow/${w.id}/run/${randomUUID()}/cancel`, { token: org.token }), 404);
    });
  });

  test('POST …/run/{runId}/cancel on a QUEUED run (waiting behind another) → 202 CANCELED; the first run goes on', async () => {
    await withSteps(300, async () => {
      const w = await create();
      const first = (await start(w.id, { n: 1 })).body;
      const second = (await start(w.id, { n: 2 })).body;
      assert.equal((await getRun(w.id, second.id)).status, 'QUEUED');
      const c = await t.request('POST', `/agenticWorkflow/${w.id}/run/${second.id}/cancel`, { token: org.token });
      assert.equal(c.status, 202, c.raw);
      assert.equal(c.body.status, 'CANCELED');
      expectErrorBody(await t.request('POST', `/agenticWorkflow/${w.id}/run/${second.id}/cancel`, { token: org.token }), 409);
      assert.equal((await finished(w.id, first.id)).status, 'SUCCEEDED');
      assert.equal((await getRun(w.id, second.id)).status, 'CANCELED');
    });
  });

  test('IN_PLACE runs of one workflow run one at a time: the next waits QUEUED, and starts after the first finished', async () => {
    await withSteps(120, async () => {
      const w = await create();
      const a = (await start(w.id, { n: 1 })).body;
      const b = (await start(w.id, { n: 2 })).body;
      let sawFirstUnfinished = false;
      const deadline = Date.now() + 20_000;
      for (;;) {
        assert.ok(Date.now() < deadline, 'both runs end within 20 s');
        const [ra, rb] = [await getRun(w.id, a.id), await getRun(w.id, b.id)];
        if (!FINAL.includes(ra.status)) {
          sawFirstUnfinished = true;
          assert.equal(rb.status, 'QUEUED', `the second run is ${rb.status} while the first is ${ra.status}`);
          assert.equal(rb.started_at, null);
        }
        if (FINAL.includes(ra.status) && FINAL.includes(rb.status)) break;
        await new Promise((r) => setTimeout(r, 15));
      }
      assert.ok(sawFirstUnfinished);
      const [da, db] = [await getRun(w.id, a.id), await getRun(w.id, b.id)];
      assert.deepEqual([da.status, db.status], ['SUCCEEDED', 'SUCCEEDED']);
      assert.ok(Date.parse(db.started_at) >= Date.parse(da.finished_at), `second started ${db.started_at}, first finished ${da.finished_at}`);
    });
  });

  test('WORKFLOW_RUN_SUCCEEDED at a subscribed organization webhook carries the result summary, turns, tokens, cost and duration', async () => {
    const path = `/events-${randomUUID().slice(0, 8)}`;
    const hook = await t.request('POST', `/organization/${org.id}/webhook`, { token: org.token, body: {
      kind: 'STANDARD', target_url: `${base}${path}`, events: ['WORKFLOW_RUN_STARTED', 'WORKFLOW_RUN_SUCCEEDED'], enabled: true,
    } });
    assert.equal(hook.status, 201, hook.raw);
    try {
      const w = await create();
      const run = (await start(w.id, { alert: 'disk full' })).body;
      const done = await finished(w.id, run.id);
      const event = await eventually(async () => received.filter((r) => r.path === path).map((r) => JSON.parse(r.body))
        .find((b) => b.event_type === 'WORKFLOW_RUN_SUCCEEDED' && b.payload.run_id === run.id), 15_000, 50);
      const p = event.payload;
      assert.equal(p.agentic_workflow_id, w.id);
      assert.equal(p.status, 'SUCCEEDED');
      assert.equal(p.trigger, 'MANUAL');
      assert.match(p.result_summary, /^\[simulated\] /);
      assert.equal(p.result_summary, done.result);
      assert.equal(p.num_turns, 0);
      assert.equal(p.input_tokens, 0);
      assert.equal(p.output_tokens, 0);
      assert.equal(p.cost_usd, 0);
      assert.equal(typeof p.duration_ms, 'number');
      assert.equal(p.duration_ms, done.duration_ms);
      const started = received.filter((r) => r.path === path).map((r) => JSON.parse(r.body))
        .find((b) => b.event_type === 'WORKFLOW_RUN_STARTED' && b.payload.run_id === run.id);
      assert.ok(started, 'the STARTED event reached the receiver too');
    } finally {
      await t.request('DELETE', `/organization/${org.id}/webhook/${hook.body.id}`, { token: org.token });
    }
  });

  test('prepareAgentRun: connector headers only as ${BERTH_MCP_i_HEADER_j} references, values in mcpEnv and secrets; the key in model.env and secrets', async () => {
    const name = `GitHub Tools ${randomUUID().slice(0, 4)}`;
    const headers = { Authorization: 'Bearer hdr-secret-5e1b9a7c', 'X-Team': 'sre-team-value' };
    const c = await t.request('POST', `/organization/${org.id}/mcpServer`, { token: org.token, body: { name, url: 'https://mcp.example.com/gh', headers } });
    assert.equal(c.status, 201, c.raw);
    const w = await create({
      model: { type: 'CLAUDE', api_key: API_KEY, settings: '{"model": "claude-sonnet-4-5", "max_turns": 12, "max_cost_usd": 1.25}' },
      mcp_servers: [{ id: c.body.id, required: true }],
      mcp: JSON.stringify({ mcpServers: { everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] } } }),
      governance: { host_allowlist: ['pypi.org'] },
    });
    const run = (await start(w.id, { issue: 42 })).body;
    const spec = specOf(await prepareAgentRun(deps({ requireCredential: true }), run.deployment_id, w.id));
    assert.equal(spec.runId, run.id);
    assert.equal(spec.workflowId, w.id);
    assert.equal(spec.maxTurns, 12);
    assert.equal(spec.maxCostUsd, 1.25);
    assert.equal(spec.model.modelId, 'claude-sonnet-4-5');
    // the key
    assert.equal(spec.model.kind, 'anthropic');
    assert.equal(spec.model.env.ANTHROPIC_API_KEY, API_KEY);
    assert.ok(spec.secrets.includes(API_KEY));
    // the connector: an http entry whose header values are references into mcpEnv
    const entries = Object.entries(spec.mcpServers).filter(([, e]) => 'url' in e && e.url === 'https://mcp.example.com/gh');
    assert.equal(entries.length, 1, JSON.stringify(spec.mcpServers));
    const [key, entry] = entries[0]!;
    assert.match(key, /^GitHub-Tools-/);
    assert.ok('url' in entry);
    assert.equal(entry.type, 'http');
    assert.deepEqual(Object.keys(entry.headers ?? {}).sort(), Object.keys(headers).sort());
    for (const [header, value] of Object.entries(headers)) {
      const ref = /^\$\{(BERTH_MCP_\d+_HEADER_\d+)\}$/.exec(entry.headers![header]!);
      assert.ok(ref, `${header} is a reference: ${entry.headers![header]}`);
      assert.equal(spec.mcpEnv[ref[1]!], value);
      assert.ok(spec.secrets.includes(value), `${header}'s value is a secret to redact`);
    }
    assert.ok(spec.mcpServers.everything, 'the raw mcp servers are there too');
    const config = JSON.stringify(spec.mcpServers);
    assert.ok(!config.includes('hdr-secret-5e1b9a7c') && !config.includes('sre-team-value'), config);
    assert.ok(!spec.prompt.includes(API_KEY) && !spec.prompt.includes('hdr-secret'), 'no secret in the prompt');
    assert.ok(!agentArgs(spec).some((a) => spec.secrets.some((s) => a.includes(s))), 'no secret in argv');
    assert.match(spec.prompt, /"issue": 42/);
    assert.match(spec.prompt, /started by hand by token /);
    assert.deepEqual(spec.hostAllowlist, ['pypi.org']);
  });

  test('prepareAgentRun: VS Code\'s {"servers": …} form hands the harness the same mcp.json, and its remote hosts join the egress allowlist the same way', async () => {
    const servers = {
      docs: { type: 'http', url: 'https://Docs.Example.com/mcp', headers: { 'X-Team': 'platform' } },
      events: { type: 'sse', url: 'http://mcp-events:9000/sse' },
      fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/workspace'] },
    };
    const governance = { host_allowlist: ['pypi.org'], platform_access: 'NONE' };
    const vscode = await create({ mcp: JSON.stringify({ servers, inputs: [] }, null, '\t'), governance });
    const harness = await create({ mcp: JSON.stringify({ mcpServers: servers }), governance });
    const specs: AgentRunSpec[] = [];
    for (const w of [vscode, harness]) {
      const run = (await start(w.id)).body;
      specs.push(specOf(await prepareAgentRun(deps(), run.deployment_id, w.id)));
      await finished(w.id, run.id);
    }
    const [fromVscode, fromHarness] = specs as [AgentRunSpec, AgentRunSpec];
    assert.deepEqual(fromVscode.mcpServers, fromHarness.mcpServers);
    assert.equal(mcpConfigFile(fromVscode), mcpConfigFile(fromHarness));
    assert.deepEqual(JSON.parse(mcpConfigFile(fromVscode)!), { mcpServers: {
      docs: { type: 'http', url: 'https://Docs.Example.com/mcp', headers: { 'X-Team': 'platform' } },
      events: { type: 'sse', url: 'http://mcp-events:9000/sse', headers: {} },
      fs: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/workspace'], env: {} },
    } });
    assert.deepEqual(allowedHosts(fromVscode), ['api.anthropic.com', 'docs.example.com', 'mcp-events', 'pypi.org']);
    assert.deepEqual(allowedHosts(fromVscode), allowedHosts(fromHarness));
  });

  test('prepareAgentRun: requireCredential and no credential → a problem; the simulated engine runs it anyway', async () => {
    const w = await create({ model: { type: 'CLAUDE' } });
    const run = (await start(w.id)).body;
    assert.match(problemOf(await prepareAgentRun(deps({ requireCredential: true }), run.deployment_id, w.id)), /no model credential/);
    const spec = specOf(await prepareAgentRun(deps({ requireCredential: false }), run.deployment_id, w.id));
    assert.deepEqual(spec.model.env, {});
    assert.equal(spec.maxCostUsd, null, 'no max_cost_usd: no spend cap');
    assert.equal((await finished(w.id, run.id)).status, 'SUCCEEDED');
    // a provider's credential counts
    const p = await t.request('POST', `/organization/${org.id}/llmProvider`, { token: org.token, body: { name: `p-${randomUUID().slice(0, 6)}`, type: 'CLAUDE', credential: 'sk-provider-cred-0a1b2c' } });
    assert.equal(p.status, 201, p.raw);
    const viaProvider = await create({ model: { type: 'CLAUDE', llm_provider_id: p.body.id } });
    const run2 = (await start(viaProvider.id)).body;
    const spec2 = specOf(await prepareAgentRun(deps({ requireCredential: true }), run2.deployment_id, viaProvider.id));
    assert.equal(spec2.model.env.ANTHROPIC_API_KEY, 'sk-provider-cred-0a1b2c');
    assert.ok(spec2.secrets.includes('sk-provider-cred-0a1b2c'));
  });

  test('prepareAgentRun: a required connector deleted later is a problem naming it; saving the connectors again clears it', async () => {
    const name = `Tickets-${randomUUID().slice(0, 6)}`;
    const gone = (await t.request('POST', `/organization/${org.id}/mcpServer`, { token: org.token, body: { name, url: 'https://tickets.example.com/mcp' } })).body.id;
    const optionalName = `Optional-${randomUUID().slice(0, 6)}`;
    const optional = (await t.request('POST', `/organization/${org.id}/mcpServer`, { token: org.token, body: { name: optionalName, url: 'https://opt.example.com/mcp' } })).body.id;
    const w = await create({ mcp_servers: [{ id: gone, required: true }, { id: optional, required: false }] });
    const del = await t.request('DELETE', `/mcpServer/${gone}`, { token: org.token });
    assert.equal(del.status, 200, del.raw);
    const run = (await start(w.id)).body;
    const problem = problemOf(await prepareAgentRun(deps(), run.deployment_id, w.id));
    assert.match(problem, new RegExp(name));
    assert.doesNotMatch(problem, new RegExp(optionalName));
    // the run itself fails before the agent starts, saying so
    const failed = await finished(w.id, run.id);
    assert.equal(failed.status, 'FAILED');
    assert.match(failed.message ?? '', new RegExp(name));
    // deleting an optional connector is no problem
    const w2 = await create({ mcp_servers: [{ id: optional, required: false }] });
    await t.request('DELETE', `/mcpServer/${optional}`, { token: org.token });
    const run2 = (await start(w2.id)).body;
    specOf(await prepareAgentRun(deps(), run2.deployment_id, w2.id));
    // saving the workflow's connectors again clears the note
    const saved = await t.request('PUT', `/agenticWorkflow/${w.id}`, { token: org.token, body: { name: w.name, mcp_servers: [] } });
    assert.equal(saved.status, 200, saved.raw);
    specOf(await prepareAgentRun(deps(), run.deployment_id, w.id));
    const again = (await start(w.id)).body;
    assert.equal((await finished(w.id, again.id)).status, 'SUCCEEDED');
  });

  test('prepareAgentRun: a CLONE_ENVIRONMENT run\'s context services are the copies (same name, another id, the copy\'s environment)', async () => {
    await withSteps(300, async () => {
      const own = await seedEnvironment(t, org);
      const gateway = await seedService(t, own, 'CONTAINER',
        { image_name: 'litellm', tag: 'latest', ports: [{ internal_port: 4000, publicly_accessible: false, is_default: true }] }, 'model-gateway');
      const w = await create({ execution_mode: 'CLONE_ENVIRONMENT', context_service_ids: [gateway] }, own.id);
      const run = (await start(w.id, { task: 'x' })).body;
      assert.ok(run.clone_environment_id);
      const dep = (await t.ctx.db.query<{ service_id: string; environment_id: string }>('select service_id, environment_id from deployments where id = $1', [run.deployment_id]))[0]!;
      assert.equal(dep.environment_id, run.clone_environment_id);
      assert.notEqual(dep.service_id, w.id, 'the copy\'s workflow is deployed');
      const spec = specOf(await prepareAgentRun(deps(), run.deployment_id, dep.service_id));
      assert.equal(spec.runId, run.id);
      assert.equal(spec.environmentId, run.clone_environment_id);
      assert.equal(spec.context.services.length, 1, JSON.stringify(spec.context.services));
      const s = spec.context.services[0]!;
      assert.equal(s.name, 'model-gateway');
      assert.notEqual(s.id, gateway, 'not the original');
      const where = await t.ctx.db.query<{ environment_id: string }>('select environment_id from services where id = $1', [s.id]);
      assert.equal(where[0]?.environment_id, run.clone_environment_id);
      assert.deepEqual(s.ports, [4000]);
      assert.match(spec.prompt, /work on these copies, never the original/);
      assert.match(spec.prompt, /- model-gateway \(CONTAINER\): host /);
      // the IN_PLACE counterpart: the original itself
      const inPlace = await create({ context_service_ids: [gateway] }, own.id);
      const run2 = (await start(inPlace.id)).body;
      const spec2 = specOf(await prepareAgentRun(deps(), run2.deployment_id, inPlace.id));
      assert.equal(spec2.context.services[0]?.id, gateway);
      assert.doesNotMatch(spec2.prompt, /copies/);
      await finished(w.id, run.id);
      await finished(inPlace.id, run2.id);
    });
  });

  /** a CLONE_ENVIRONMENT run whose workflow deployment is running in its copy, then canceled through the per-run route */
  const cancelRunningCloneRun = async () => {
    const own = await seedEnvironment(t, org);
    await seedService(t, own, 'CONTAINER', { image_name: 'nginx', tag: 'latest' });
    const w = await create({ execution_mode: 'CLONE_ENVIRONMENT' }, own.id);
    const run = (await start(w.id, {})).body;
    await eventually(async () => (await getRun(w.id, run.id)).status === 'RUNNING', 15_000, 10);
    // canceled once the running part has written something (else there is no transcript to keep:
    // under load the cancel could land before the first line)
    await eventually(async () => (await t.request('GET', `/agenticWorkflow/${w.id}/run/${run.id}/log`, { token: org.token })).body.results?.length > 0, 15_000, 10);
    const c = await t.request('POST', `/agenticWorkflow/${w.id}/run/${run.id}/cancel`, { token: org.token });
    assert.equal(c.status, 202, c.raw);
    assert.equal(c.body.status, 'CANCELED');
    // the deployment ends CANCELED; it may be gone already with the copy it ran in, removed once the run settled
    const dep = await eventually(async () => {
      const d = (await t.ctx.db.query<{ finished: boolean; status: string }>('select finished, status from deployments where id = $1', [run.deployment_id]))[0];
      return d === undefined ? { status: 'CANCELED', gone: true } : d.finished ? d : null;
    }, 15_000, 20);
    assert.equal(dep.status, 'CANCELED');
    return { w, run };
  };
  const copyExists = async (id: string) => (await t.ctx.db.query('select 1 from environments where id = $1', [id])).length > 0;

  test('a CLONE_ENVIRONMENT run canceled while running: its throwaway copy is removed, as when a run ends otherwise', async () => {
    await withSteps(300, async () => {
      const { run } = await cancelRunningCloneRun();
      const until = Date.now() + 10_000;
      while (Date.now() < until && await copyExists(run.clone_environment_id)) await new Promise((r) => setTimeout(r, 100));
      assert.equal(await copyExists(run.clone_environment_id), false,
        `the copy ${run.clone_environment_id} of the canceled run is still there 10 s after its deployment settled CANCELED`);
    });
  });

  test('a CLONE_ENVIRONMENT run canceled while running keeps its transcript once its copy is gone', async () => {
    await withSteps(300, async () => {
      const { w, run } = await cancelRunningCloneRun();
      const live = await t.request('GET', `/agenticWorkflow/${w.id}/run/${run.id}/log`, { token: org.token });
      assert.ok(live.body.results.length > 0, 'the running part left log lines');
      // the copy goes (when the run settles, or at its expires_at at the latest)
      await cleanupRunCopy(t.ctx, run.clone_environment_id);
      assert.equal(await copyExists(run.clone_environment_id), false);
      const kept = await t.request('GET', `/agenticWorkflow/${w.id}/run/${run.id}/log`, { token: org.token });
      assert.equal(kept.status, 200, kept.raw);
      assert.deepEqual(kept.body.results.map((l: { message: string }) => l.message), live.body.results.map((l: { message: string }) => l.message),
        'the run\'s log once its copy is gone');
    });
  });
});
