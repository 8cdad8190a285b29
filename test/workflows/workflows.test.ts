// Agentic workflows: the seed's defaults on a name-only creation, every sub-object's validation,
// the model credential rules, attached connectors, context services, edits keeping what is
// omitted, and 401/403/404/409.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, seedService, type SeededEnvironment } from '../support/factories.ts';
import { workflowExamples } from '../../src/http/examples/workflows.ts';

const REQUIRED_MEMBERS = ['id', 'service_type', 'environment', 'name', 'slug', 'description', 'webhook_ip_allowlist', 'docker_fragment',
  'enabled', 'mcp', 'mcp_server_ids', 'mcp_servers', 'context_service_ids', 'outputs', 'model', 'project_repositories', 'agent_prompt',
  'governance', 'resources', 'webhook', 'schedule', 'execution_mode', 'created_at'];

describe('agentic workflows', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  const url = () => `/environment/${env.id}/agenticWorkflow`;
  const create = (body: Record<string, unknown>) => t.request('POST', url(), { token: org.token, body: { name: `wf-${randomUUID().slice(0, 8)}`, ...body } });
  const bad = async (body: Record<string, unknown>, pattern?: RegExp) => {
    const e = expectErrorBody(await create(body), 400);
    if (pattern) assert.match(e.message, pattern);
    return e;
  };
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(async () => { await t.close(); });

  test('only name is required: 201 with every required member and the seed defaults', async () => {
    const r = await t.request('POST', url(), { token: org.token, body: { name: 'Nightly Triage' } });
    assert.equal(r.status, 201);
    for (const m of REQUIRED_MEMBERS) assert.ok(m in r.body, `missing ${m}`);
    const b = r.body;
    assert.equal(b.service_type, 'AGENTIC_WORKFLOW');
    assert.deepEqual(b.environment, { id: env.id });
    assert.equal(b.name, 'Nightly Triage');
    assert.equal(b.slug, 'nightly-triage');
    assert.equal(b.description, '');
    assert.deepEqual(b.webhook_ip_allowlist, []);
    assert.equal(b.docker_fragment, '');
    assert.equal(b.enabled, true);
    assert.equal(b.mcp, '');
    assert.deepEqual(b.mcp_server_ids, []);
    assert.deepEqual(b.mcp_servers, []);
    assert.deepEqual(b.context_service_ids, []);
    assert.deepEqual(b.outputs, []);
    assert.deepEqual(b.model, { type: 'CLAUDE', settings: '', llm_provider_id: null });
    assert.deepEqual(b.project_repositories, []);
    assert.equal(b.agent_prompt, '');
    assert.deepEqual(b.governance, { host_allowlist: [], platform_access: 'READ' });
    assert.deepEqual(b.resources, { cpu_milli: 1000, ram_mib: 1024, gpu: 0, storage_gib: 0 });
    assert.equal(b.schedule, null);
    assert.equal(b.execution_mode, 'IN_PLACE');
    assert.match(b.webhook.url, new RegExp(`^http://berth\\.test/agenticWorkflow/${b.id}/hook/[\\w-]{20,}$`));
    const got = await t.request('GET', `/agenticWorkflow/${b.id}`, { token: await org.tokenFor('VIEWER') });
    assert.deepEqual(got.body, b);
    const svc = await t.ctx.db.query<{ type: string }>('select type from services where id = $1', [b.id]);
    assert.equal(svc[0]!.type, 'AGENTIC_WORKFLOW');
  });

  test('a full configuration round-trips; sub-object defaults apply; the api_key is never returned', async () => {
    const ctxSvc = await seedService(t, env, 'APPLICATION');
    const r = await create({
      description: 'd', webhook_ip_allowlist: ['10.0.0.0/8', '2001:db8::/32', '192.0.2.7'], docker_fragment: 'RUN true', enabled: true,
      mcp: '{"mcpServers":{}}', context_service_ids: [ctxSvc],
      outputs: [{ name: 'slack', url: 'https://hooks.example/x', headers: [{ name: 'X-A', value: '1' }] }, { name: 'log' }],
      model: { type: 'BEDROCK', api_key: 'sk-WF-SECRET', settings: '{"max_turns":10}' },
      project_repositories: [{ url: 'https://github.com/a/b', branch: 'main' }, { url: 'https://github.com/a/c', branch: 'dev', git_token_id: null }],
      agent_prompt: 'fix it', governance: { host_allowlist: ['api.github.com'] },
      resources: { cpu_milli: 500, ram_mib: 512, gpu: 1, storage_gib: 10 }, execution_mode: 'CLONE_ENVIRONMENT',
    });
    assert.equal(r.status, 201);
    assert.doesNotMatch(r.raw, /WF-SECRET/);
    assert.ok(!('api_key' in r.body.model));
    assert.deepEqual(r.body.model, { type: 'BEDROCK', settings: '{"max_turns":10}', llm_provider_id: null });
    assert.deepEqual(r.body.outputs, [
      { name: 'slack', url: 'https://hooks.example/x', headers: [{ name: 'X-A', value: '1' }], instructions: '' },
      { name: 'log', url: null, headers: [], instructions: '' },
    ]);
    assert.deepEqual(r.body.project_repositories[0], { url: 'https://github.com/a/b', branch: 'main', git_token_id: null });
    assert.deepEqual(r.body.context_service_ids, [ctxSvc]);
    assert.equal(r.body.execution_mode, 'CLONE_ENVIRONMENT');
    assert.deepEqual(r.body.webhook_ip_allowlist, ['10.0.0.0/8', '2001:db8::/32', '192.0.2.7']);
    const stored = await t.ctx.db.query<{ secrets: Record<string, string> }>('select secrets from services where id = $1', [r.body.id]);
    assert.ok(stored[0]!.secrets.api_key && !stored[0]!.secrets.api_key.includes('WF-SECRET'));
    const listed = await t.request('GET', url(), { token: org.token });
    assert.ok(listed.body.results.some((w: { id: string }) => w.id === r.body.id));
    assert.doesNotMatch(listed.raw, /WF-SECRET/);
  });

  test('the reference\'s example: created as sent (the api_key kept, never returned); its edit changes what it sends', async () => {
    const { createAgenticWorkflow: example, editAgenticWorkflow: edit } = workflowExamples;
    const own = await seedEnvironment(t, org); // its name is taken in env by the first test
    const r = await t.request('POST', `/environment/${own.id}/agenticWorkflow`, { token: org.token, body: example });
    assert.equal(r.status, 201, r.raw);
    const b = r.body;
    for (const k of ['name', 'description', 'agent_prompt', 'webhook_ip_allowlist', 'resources', 'execution_mode'] as const) assert.deepEqual(b[k], example[k], k);
    assert.deepEqual(b.project_repositories, example.project_repositories.map((p) => ({ ...p, git_token_id: null })));
    assert.deepEqual(b.outputs, example.outputs.map((o) => ({ headers: [], ...o })));
    assert.deepEqual(b.governance.host_allowlist, example.governance.host_allowlist);
    assert.deepEqual([b.schedule.cron_expression, b.schedule.timezone], [example.schedule.cron_expression, example.schedule.timezone]);
    assert.deepEqual(b.model, { type: example.model.type, settings: example.model.settings, llm_provider_id: null });
    assert.ok(!r.raw.includes(example.model.api_key));
    const e = await t.request('PUT', `/agenticWorkflow/${b.id}`, { token: org.token, body: edit });
    assert.equal(e.status, 200, e.raw);
    assert.deepEqual([e.body.agent_prompt, e.body.model.settings, e.body.schedule.cron_expression], [edit.agent_prompt, edit.model.settings, edit.schedule.cron_expression]);
    assert.deepEqual([e.body.description, e.body.project_repositories, e.body.outputs], [b.description, b.project_repositories, b.outputs], 'omitted members keep their value');
    const sealed = await t.ctx.db.query<{ secrets: { api_key?: string } }>('select secrets from services where id = $1', [b.id]);
    assert.equal(t.ctx.sealer.open(sealed[0]!.secrets.api_key!), example.model.api_key, 'the api_key omitted is kept');
  });

  test('400: every invalid sub-object', async () => {
    expectErrorBody(await t.request('POST', url(), { token: org.token, body: {} }), 400);
    expectErrorBody(await t.request('POST', url(), { token: org.token, body: { name: '' } }), 400);
    await bad({ webhook_ip_allowlist: ['10.0.0.0/33'] }, /webhook_ip_allowlist\[0\]/);
    await bad({ webhook_ip_allowlist: ['not-an-ip'] }, /webhook_ip_allowlist/);
    await bad({ webhook_ip_allowlist: ['2001:db8::/129'] }, /webhook_ip_allowlist/);
    await bad({ outputs: [{ url: 'https://x' }] }, /name/);
    await bad({ outputs: [{ name: 'o', headers: [{ name: 'h' }] }] }, /value/);
    await bad({ outputs: [{ name: 'o', headers: [{ value: 'v' }] }] }, /name/);
    await bad({ project_repositories: [{ url: 'https://github.com/a/b' }] }, /branch/);
    await bad({ project_repositories: [{ branch: 'main' }] }, /url/);
    await bad({ project_repositories: [{ url: 'u', branch: 'b', git_token_id: 'nope' }] }, /git_token_id/);
    await bad({ governance: {} }, /host_allowlist/);
    await bad({ resources: { cpu_milli: 1000, ram_mib: 1024, gpu: 0 } }, /storage_gib/);
    await bad({ resources: { cpu_milli: -1, ram_mib: 1024, gpu: 0, storage_gib: 0 } }, /cpu_milli/);
    await bad({ resources: { cpu_milli: 1, ram_mib: 1, gpu: -2, storage_gib: 0 } }, /gpu/);
    await bad({ execution_mode: 'SOMEWHERE' }, /execution_mode/);
    await bad({ model: { settings: 'x' } }, /type/);
    await bad({ model: { type: 'GPT' } }, /type/);
    await bad({ mcp: '{not json' }, /mcp must be JSON/);
    await bad({ mcp_servers: [{ required: true }] }, /id/);
    await bad({ enabled: 'yes' }, /enabled/);
  });

  test('400: schedule needs both members, a valid cron, an IANA zone and at most one firing per 5 minutes', async () => {
    await bad({ schedule: { cron_expression: '0 * * * *' } }, /timezone/);
    await bad({ schedule: { timezone: 'Etc/UTC' } }, /cron_expression/);
    await bad({ schedule: { cron_expression: '0 * * *', timezone: 'Etc/UTC' } }, /cron_expression is invalid/);
    await bad({ schedule: { cron_expression: '61 * * * *', timezone: 'Etc/UTC' } }, /cron_expression is invalid/);
    await bad({ schedule: { cron_expression: '0 * * * *', timezone: 'Mars/Olympus' } }, /timezone/);
    await bad({ schedule: { cron_expression: '0 * * * *', timezone: '+02:00' } }, /timezone/);
    await bad({ schedule: { cron_expression: '*/2 * * * *', timezone: 'Etc/UTC' } }, /at most once every 5 minutes/);
    await bad({ schedule: { cron_expression: '0,4 * * * *', timezone: 'Etc/UTC' } }, /4 minutes apart/);
    const ok = await create({ schedule: { cron_expression: '*/5 * * * *', timezone: 'Etc/UTC' } });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.schedule.cron_expression, '*/5 * * * *');
    const webhookOnly = await create({ schedule: null });
    assert.equal(webhookOnly.body.schedule, null);
  });

  test('409: names are unique among all services of the environment, case-insensitively', async () => {
    assert.equal((await create({ name: 'Unique Flow' })).status, 201);
    expectErrorBody(await create({ name: 'UNIQUE flow' }), 409);
    await seedService(t, env, 'APPLICATION', {}, 'my-app');
    expectErrorBody(await create({ name: 'My-App' }), 409);
    const other = await seedEnvironment(t, org);
    assert.equal((await t.request('POST', `/environment/${other.id}/agenticWorkflow`, { token: org.token, body: { name: 'unique FLOW' } })).status, 201);
  });

  test('401, 403 (VIEWER writing; another organization), 404 (unknown environment, workflow, other service type)', async () => {
    expectErrorBody(await t.request('POST', url(), { body: { name: 'x' } }), 401);
    expectErrorBody(await t.request('POST', url(), { token: await org.tokenFor('VIEWER'), body: { name: 'x' } }), 403);
    const outsider = await seedOrganization(t);
    expectErrorBody(await t.request('GET', url(), { token: outsider.token }), 403);
    expectErrorBody(await t.request('POST', `/environment/${randomUUID()}/agenticWorkflow`, { token: org.token, body: { name: 'x' } }), 404);
    expectErrorBody(await t.request('GET', `/agenticWorkflow/${randomUUID()}`, { token: org.token }), 404);
    expectErrorBody(await t.request('GET', `/environment/${randomUUID()}/agenticWorkflow`, { token: org.token }), 404);
    expectErrorBody(await t.request('PUT', `/agenticWorkflow/${randomUUID()}`, { token: org.token, body: { name: 'x' } }), 404);
    const app = await seedService(t, env, 'APPLICATION');
    expectErrorBody(await t.request('GET', `/agenticWorkflow/${app}`, { token: org.token }), 404);
    const w = await create({});
    expectErrorBody(await t.request('GET', `/agenticWorkflow/${w.body.id}`, { token: outsider.token }), 403);
    expectErrorBody(await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { token: await org.tokenFor('VIEWER'), body: { name: 'y' } }), 403);
    expectErrorBody(await t.request('DELETE', `/agenticWorkflow/${w.body.id}`, { token: await org.tokenFor('VIEWER') }), 403);
    assert.equal((await t.request('DELETE', `/agenticWorkflow/${w.body.id}`, { token: await org.tokenFor('DEVOPS') })).status, 204);
    expectErrorBody(await t.request('GET', `/agenticWorkflow/${w.body.id}`, { token: org.token }), 404);
  });

  test('context_service_ids must be services of the same environment', async () => {
    const other = await seedEnvironment(t, org);
    const foreign = await seedService(t, other, 'APPLICATION');
    await bad({ context_service_ids: [foreign] }, /not a service of this environment/);
    await bad({ context_service_ids: [randomUUID()] }, /not a service of this environment/);
    const local = await seedService(t, env, 'DATABASE');
    assert.deepEqual((await create({ context_service_ids: [local] })).body.context_service_ids, [local]);
  });

  test('edit: members omitted keep their value, the api_key too; null schedule removes it', async () => {
    const w = await create({ description: 'keep me', model: { type: 'CLAUDE', api_key: 'sk-KEEP-SECRET' }, schedule: { cron_expression: '0 3 * * *', timezone: 'Europe/Paris' }, resources: { cpu_milli: 2000, ram_mib: 2048, gpu: 0, storage_gib: 5 } });
    const e = await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { token: org.token, body: { name: 'Renamed Flow', agent_prompt: 'p', model: { type: 'CLAUDE', settings: '{"max_turns":5}' } } });
    assert.equal(e.status, 200);
    assert.equal(e.body.slug, 'renamed-flow');
    assert.equal(e.body.description, 'keep me');
    assert.equal(e.body.agent_prompt, 'p');
    assert.equal(e.body.resources.cpu_milli, 2000);
    assert.equal(e.body.schedule.cron_expression, '0 3 * * *');
    assert.equal(e.body.schedule.next_run_at, w.body.schedule.next_run_at);
    assert.equal(e.body.webhook.url, w.body.webhook.url);
    assert.doesNotMatch(e.raw, /KEEP-SECRET/);
    const sealed = await t.ctx.db.query<{ secrets: { api_key?: string } }>('select secrets from services where id = $1', [w.body.id]);
    assert.equal(t.ctx.sealer.open(sealed[0]!.secrets.api_key!), 'sk-KEEP-SECRET');
    const noSchedule = await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { token: org.token, body: { name: 'Renamed Flow', schedule: null } });
    assert.equal(noSchedule.body.schedule, null);
    expectErrorBody(await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { token: org.token, body: { name: 'Renamed Flow', webhook_ip_allowlist: ['300.1.1.1/8'] } }), 400);
  });
});
