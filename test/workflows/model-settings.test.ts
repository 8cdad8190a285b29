// A workflow's model.settings and raw mcp through the API (issue 26): checked on create and edit
// (400 validation_error listing every problem, nothing stored), a valid configuration kept to the
// letter (VS Code's {"servers": …} form too, decision 0344), the members named in the OpenAPI
// document; LLM providers' optional base_url.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';

type Problems = Array<{ field: string; message: string }>;

describe('workflow model settings and mcp configuration', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  const create = (body: Record<string, unknown>) =>
    t.request('POST', `/environment/${env.id}/agenticWorkflow`, { token: org.token, body: { name: `wf-${randomUUID().slice(0, 8)}`, ...body } });
  const invalid = (reply: Awaited<ReturnType<TestApp['request']>>): Problems => {
    const e = expectErrorBody(reply, 400);
    assert.equal(e.code, 'validation_error');
    const errors = reply.body.errors as Problems;
    assert.ok(Array.isArray(errors) && errors.length > 0, reply.raw);
    assert.equal(e.message, errors[0]!.message);
    return errors;
  };
  const workflowCount = async () =>
    (await t.ctx.db.query<{ n: number }>(`select count(*)::int as n from services where environment_id = $1 and type = 'AGENTIC_WORKFLOW'`, [env.id]))[0]!.n;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(async () => { await t.close(); });

  test('create with bad settings: 400 listing each problem, nothing stored', async () => {
    const before = await workflowCount();
    const errors = invalid(await create({
      model: { type: 'CLAUDE', settings: JSON.stringify({ temperature: 0, max_turns: 0, timeout_seconds: 5, base_url: 'ftp://gw.example', model: 'claude sonnet', max_cost_usd: -2 }) },
    }));
    assert.deepEqual(errors, [
      { field: 'model.settings', message: 'model.settings.temperature is not a known member; the members are model, base_url, max_turns, timeout_seconds, max_cost_usd' },
      { field: 'model.settings', message: 'model.settings.max_turns must be an integer from 1 to 500; got 0' },
      { field: 'model.settings', message: 'model.settings.timeout_seconds must be an integer from 10 to 86400; got 5' },
      { field: 'model.settings', message: 'model.settings.base_url must be an http or https URL; got the scheme "ftp"' },
      { field: 'model.settings', message: 'model.settings.model must not contain white space or control characters; got "claude sonnet"' },
      { field: 'model.settings', message: 'model.settings.max_cost_usd must be a number of US dollars above 0 and at most 10000, or null (no spend cap); got -2' },
    ]);
    assert.match(invalid(await create({ model: { type: 'CLAUDE', settings: 'max_turns: 3' } }))[0]!.message, /^model\.settings must be JSON text \(or empty\): /);
    assert.match(invalid(await create({ model: { type: 'CLAUDE', settings: '[30]' } }))[0]!.message, /^model\.settings must be a JSON object/);
    // settings and mcp problems, and others found after the schema, come in one answer
    const both = invalid(await create({ webhook_ip_allowlist: ['10.0.0.0/99'], mcp: '{"mcpServers": {"gh": {"type": "http"}}}', model: { type: 'CLAUDE', settings: '{"max_turns": 501}' } }));
    assert.deepEqual(both.map((p) => p.field), ['webhook_ip_allowlist.0', 'mcp', 'model.settings']);
    assert.equal(both[1]!.message, 'mcp.mcpServers.gh.url is required (the server\'s http or https address)');
    assert.equal(await workflowCount(), before);
  });

  test('create with a bad mcp: every problem with its JSON path', async () => {
    const errors = invalid(await create({
      mcp: JSON.stringify({ mcpServers: { 'bad name': { command: 'npx' }, fs: { command: '', args: [1] }, web: { type: 'sse', url: 'ws://x' }, legacy: { url: 'https://x' } } }),
    }));
    assert.ok(errors.every((p) => p.field === 'mcp'));
    assert.deepEqual(errors.map((p) => p.message), [
      'mcp.mcpServers["bad name"] is not a valid server name: 1 to 64 letters, digits, "_" or "-"',
      'mcp.mcpServers.fs.command must be a non-empty string; got ""',
      'mcp.mcpServers.fs.args[0] must be a string; got 1',
      'mcp.mcpServers.web.url must be an http or https URL; got the scheme "ws"',
      'mcp.mcpServers.legacy.type must be "http" or "sse" for a server with a url (a server without type is a stdio one and needs command)',
    ]);
    assert.match(invalid(await create({ mcp: '{"mcp_servers": {}}' }))[0]!.message, /^mcp\.mcp_servers is not a known member/);
    assert.deepEqual(invalid(await create({ mcp: '{"servers": []}' })), [{ field: 'mcp', message: 'mcp.servers must be an object of servers by name; got []' }]);
  });

  test('VS Code\'s form ({"servers": …}, .vscode/mcp.json): 201, the text kept byte for byte in every answer; its checks are the other form\'s', async () => {
    // as a file from VS Code: tabs, its own member order, an empty inputs list, a JSON escape, non-ASCII text
    const mcp = '{\n\t"servers": {\n\t\t"docs": {"type": "http", "url": "https://docs.example.com/mcp", "headers": {"X-Team": "plateforme-\\u00e9"}},\n'
      + '\t\t"events": {"url": "http://10.0.0.2:9000/sse", "type": "sse"},\n\t\t"fs": {"command": "/usr/bin/mcp-fs", "args": ["--root", "/workspace"], "env": {"NOTE": "café ☕"}}\n\t},\n\t"inputs": []\n}\n';
    const w = await create({ mcp });
    assert.equal(w.status, 201, w.raw);
    assert.equal(w.body.mcp, mcp);
    assert.equal((await t.request('GET', `/agenticWorkflow/${w.body.id}`, { token: org.token })).body.mcp, mcp);
    const listed = await t.request('GET', `/environment/${env.id}/agenticWorkflow`, { token: org.token });
    assert.equal(listed.body.results.find((x: { id: string }) => x.id === w.body.id).mcp, mcp);
    const kept = await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { token: org.token, body: { name: w.body.name, description: 'edited' } });
    assert.equal(kept.status, 200, kept.raw);
    assert.equal(kept.body.mcp, mcp);
    const sent = mcp.replace('"inputs": []', '"inputs":[ ]');
    const edited = await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { token: org.token, body: { name: w.body.name, mcp: sent } });
    assert.equal(edited.status, 200, edited.raw);
    assert.equal(edited.body.mcp, sent);
    assert.equal((await t.request('GET', `/agenticWorkflow/${w.body.id}`, { token: org.token })).body.mcp, sent);
    // the same problems as in the harness's form, at the servers path, as a validation_error on mcp
    assert.deepEqual(invalid(await create({ mcp: JSON.stringify({ servers: { web: { type: 'sse', url: 'ws://x' }, fs: { command: '' } } }) })), [
      { field: 'mcp', message: 'mcp.servers.web.url must be an http or https URL; got the scheme "ws"' },
      { field: 'mcp', message: 'mcp.servers.fs.command must be a non-empty string; got ""' },
    ]);
  });

  test('VS Code\'s inputs, an ${input:…} reference, both forms at once: 400 naming the member and why, nothing stored', async () => {
    const before = await workflowCount();
    const errors = invalid(await create({ mcp: JSON.stringify({
      servers: { gh: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${input:github-token}' } } },
      inputs: [{ type: 'promptString', id: 'github-token', description: 'GitHub token', password: true }],
    }) }));
    assert.deepEqual(errors.map((p) => p.field), ['mcp', 'mcp']);
    assert.match(errors[0]!.message, /^mcp\.inputs is not supported: VS Code asks for these values when a server starts, and a berth run is unattended/);
    assert.match(errors[1]!.message, /^mcp\.servers\.gh\.headers\.Authorization refers to \$\{input:github-token\}, a value VS Code asks for/);
    assert.match(errors[1]!.message, /attach an MCP connector \(mcp_servers\)/);
    const both = invalid(await create({ mcp: '{"mcpServers": {}, "servers": {}}' }));
    assert.deepEqual(both, [{ field: 'mcp', message: 'mcp must have either mcpServers (Claude Code\'s form) or servers (VS Code\'s form), not both: keep one of them, with all the servers' }]);
    assert.equal(await workflowCount(), before);
  });

  test('a valid configuration round-trips to the letter; empty text is allowed', async () => {
    const settings = '{\n  "model": "claude-sonnet-4-5",\n  "base_url": "https://litellm.internal.example/anthropic",\n  "max_turns": 50,\n  "timeout_seconds": 600,\n  "max_cost_usd": 2.5\n}';
    const mcp = JSON.stringify({ mcpServers: {
      everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], env: { LOG: 'debug' } },
      docs: { type: 'http', url: 'https://mcp.example.com/docs', headers: { 'X-Team': 'platform' } },
    } });
    const w = await create({ mcp, model: { type: 'CLAUDE', settings } });
    assert.equal(w.status, 201, w.raw);
    assert.equal(w.body.mcp, mcp);
    assert.equal(w.body.model.settings, settings);
    const got = await t.request('GET', `/agenticWorkflow/${w.body.id}`, { token: org.token });
    assert.deepEqual(got.body, w.body);
    // an edit that omits them keeps them; one that sends empty text clears them
    const kept = await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { token: org.token, body: { name: w.body.name, agent_prompt: 'x', model: { type: 'CLAUDE' } } });
    assert.equal(kept.status, 200, kept.raw);
    assert.equal(kept.body.model.settings, settings);
    assert.equal(kept.body.mcp, mcp);
    const cleared = await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { token: org.token, body: { name: w.body.name, mcp: '', model: { type: 'CLAUDE', settings: ' ' } } });
    assert.equal(cleared.status, 200, cleared.raw);
    assert.equal(cleared.body.mcp, '');
    assert.equal(cleared.body.model.settings, ' ');
  });

  test('edit with a bad mcp or bad settings: 400 and the stored workflow unchanged', async () => {
    const w = await create({ description: 'before', mcp: '{"mcpServers": {"fs": {"command": "mcp-fs"}}}', model: { type: 'CLAUDE', settings: '{"max_turns": 7}' } });
    assert.equal(w.status, 201, w.raw);
    const [row] = await t.ctx.db.query<{ spec: unknown; updated_at: Date | null }>('select spec, updated_at from services where id = $1', [w.body.id]);
    const put = (body: Record<string, unknown>) => t.request('PUT', `/agenticWorkflow/${w.body.id}`, { token: org.token, body: { name: 'renamed', description: 'after', ...body } });
    const errors = invalid(await put({ mcp: '{"mcpServers": {"fs": {"command": "mcp-fs", "env": {"A": 1}}, "r": {"type": "http", "url": "https://x", "command": "y"}}}' }));
    assert.deepEqual(errors.map((p) => p.message), [
      'mcp.mcpServers.fs.env.A must be a string; got 1',
      'mcp.mcpServers.r.command is not a known member of an http server; its members are type, url, headers',
    ]);
    invalid(await put({ mcp: '{"mcpServers": ' }));
    invalid(await put({ model: { type: 'CLAUDE', settings: '{"max_turns": "7"}' } }));
    const got = await t.request('GET', `/agenticWorkflow/${w.body.id}`, { token: org.token });
    assert.deepEqual(got.body, w.body);
    const [after] = await t.ctx.db.query<{ spec: unknown; updated_at: Date | null }>('select spec, updated_at from services where id = $1', [w.body.id]);
    assert.deepEqual(after, row);
  });

  test('the OpenAPI document names the members of model.settings and mcp, with their defaults', async () => {
    const doc = (await t.request('GET', '/openapi.json')).raw;
    for (const words of ['`max_turns` (integer 1–500, default 30)', '`timeout_seconds` (integer 10–86400, default 1800', '`max_cost_usd` (number of US dollars above 0, at most 10000; default none: no spend cap)', '`base_url`', '`model`', '{"mcpServers": {NAME: server}}', '"type": "http" | "sse"']) {
      assert.ok(doc.includes(JSON.stringify(words).slice(1, -1)), `missing ${words}`);
    }
  });

  describe('LLM provider base_url', () => {
    const providers = () => `/organization/${org.id}/llmProvider`;
    const edit = (id: string, body: Record<string, unknown>) => t.request('PUT', `/llmProvider/${id}`, { token: org.token, body });

    test('optional on create ("" when unset), kept when an edit omits it, cleared by null or ""', async () => {
      const none = await t.request('POST', providers(), { token: org.token, body: { name: `p-${randomUUID().slice(0, 6)}`, type: 'CLAUDE' } });
      assert.equal(none.status, 201, none.raw);
      assert.equal(none.body.base_url, '');
      const p = await t.request('POST', providers(), { token: org.token, body: { name: `p-${randomUUID().slice(0, 6)}`, type: 'CLAUDE', base_url: 'http://litellm:4000' } });
      assert.equal(p.status, 201, p.raw);
      assert.equal(p.body.base_url, 'http://litellm:4000');
      assert.equal((await t.request('GET', `/llmProvider/${p.body.id}`, { token: org.token })).body.base_url, 'http://litellm:4000');
      assert.equal((await edit(p.body.id, { description: 'd' })).body.base_url, 'http://litellm:4000');
      assert.equal((await edit(p.body.id, { base_url: 'https://gw.corp.example/anthropic' })).body.base_url, 'https://gw.corp.example/anthropic');
      assert.equal((await edit(p.body.id, { base_url: null })).body.base_url, '');
      assert.equal((await edit(p.body.id, { base_url: 'https://gw.corp.example' })).body.base_url, 'https://gw.corp.example');
      assert.equal((await edit(p.body.id, { base_url: '' })).body.base_url, '');
      const listed = await t.request('GET', providers(), { token: org.token });
      assert.equal(listed.body.results.find((x: { id: string }) => x.id === p.body.id).base_url, '');
      // BEDROCK providers may name one too (a gateway in front of Bedrock)
      const bedrock = await t.request('POST', providers(), { token: org.token, body: { name: `b-${randomUUID().slice(0, 6)}`, type: 'BEDROCK', region: 'eu-west-1', base_url: 'https://bedrock-gw.example' } });
      assert.equal(bedrock.body.base_url, 'https://bedrock-gw.example');
    });

    test('400 for anything but an http(s) URL, on create and edit; nothing stored', async () => {
      const name = `bad-${randomUUID().slice(0, 6)}`;
      for (const bad of ['litellm:4000', 'ftp://gw.example', 'https://u:pw@gw.example', 'https://gw.example/?key=1']) {
        const errors = invalid(await t.request('POST', providers(), { token: org.token, body: { name, type: 'CLAUDE', base_url: bad } }));
        assert.equal(errors[0]!.field, 'base_url');
        assert.match(errors[0]!.message, /^base_url must /);
      }
      assert.equal((await t.ctx.db.query('select id from llm_providers where name = $1', [name])).length, 0);
      expectErrorBody(await t.request('POST', providers(), { token: org.token, body: { name, type: 'CLAUDE', base_url: 42 } }), 400);
      const p = await t.request('POST', providers(), { token: org.token, body: { name, type: 'CLAUDE', base_url: 'https://gw.example' } });
      assert.equal(p.status, 201, p.raw);
      assert.match(invalid(await edit(p.body.id, { description: 'x', base_url: 'gw.example' }))[0]!.message, /^base_url must be an http or https URL/);
      const got = await t.request('GET', `/llmProvider/${p.body.id}`, { token: org.token });
      assert.equal(got.body.base_url, 'https://gw.example');
      assert.equal(got.body.description, '');
    });
  });
});
