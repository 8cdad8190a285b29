// LLM providers and MCP connectors: shared (ORGANIZATION) and personal (USER) ones with two real
// members, visibility, who may change them, name uniqueness per scope, secrets never echoed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type TestApp } from '../support/harness.ts';
import { startTestOidc, type TestOidc } from '../support/oidc.ts';
import { workflowExamples as ex } from '../../src/http/examples/workflows.ts';

describe('LLM providers and MCP connectors', () => {
  let t: TestApp;
  let oidc: TestOidc;
  let alice: string;
  let bob: string;
  let orgId: string;
  before(async () => {
    oidc = await startTestOidc();
    t = await startTestApp({ config: { oidcIssuer: oidc.issuer, oidcAudience: oidc.audience, oidcJwksUrl: oidc.jwksUrl } });
    alice = await oidc.sign({ sub: 'wf-pc-alice', email: 'pc-alice@example.com', name: 'Alice' });
    bob = await oidc.sign({ sub: 'wf-pc-bob', email: 'pc-bob@example.com', name: 'Bob' });
    orgId = (await t.request('POST', '/organization', { bearer: alice, body: { name: `PC ${Date.now()}` } })).body.id;
    const inv = await t.request('POST', `/organization/${orgId}/inviteMember`, { bearer: alice, body: { email: 'pc-bob@example.com', role: 'DEVOPS' } });
    assert.equal((await t.request('POST', `/organization/${orgId}/inviteMember/${inv.body.id}`, { bearer: bob })).status < 300, true);
  });
  after(async () => {
    await t.close();
    await oidc.close();
  });

  test('an ORGANIZATION provider: seed list item, credential sealed and never returned, kept on edit', async () => {
    const SECRET = new RegExp(ex.createLlmProvider.credential);
    const r = await t.request('POST', `/organization/${orgId}/llmProvider`, { bearer: alice, body: ex.createLlmProvider });
    assert.equal(r.status, 201);
    assert.deepEqual(Object.keys(r.body).sort(), ['base_url', 'created_at', 'description', 'has_credential', 'id', 'name', 'owner_name', 'owner_user_sub', 'region', 'scope', 'type', 'updated_at']);
    assert.equal(r.body.scope, 'ORGANIZATION');
    assert.equal(r.body.has_credential, true);
    assert.equal(r.body.owner_user_sub, 'wf-pc-alice');
    assert.equal(r.body.owner_name, 'Alice');
    assert.deepEqual([r.body.name, r.body.description, r.body.type], [ex.createLlmProvider.name, ex.createLlmProvider.description, ex.createLlmProvider.type]);
    assert.doesNotMatch(r.raw, SECRET);
    const stored = await t.ctx.db.query<{ credential_sealed: string }>('select credential_sealed from llm_providers where id = $1', [r.body.id]);
    assert.doesNotMatch(stored[0]!.credential_sealed, SECRET);
    assert.equal(t.ctx.sealer.open(stored[0]!.credential_sealed), ex.createLlmProvider.credential);
    const edited = await t.request('PUT', `/llmProvider/${r.body.id}`, { bearer: alice, body: ex.editLlmProvider });
    assert.equal(edited.body.has_credential, true);
    assert.equal(edited.body.description, ex.editLlmProvider.description);
    const list = await t.request('GET', `/organization/${orgId}/llmProvider`, { bearer: bob });
    assert.equal(list.status, 200);
    assert.ok(list.body.results.some((x: { id: string }) => x.id === r.body.id));
    assert.equal(list.body.pagination.total_count, list.body.results.length);
    assert.doesNotMatch(list.raw, SECRET);
    // DEVOPS bob may not manage shared providers
    expectErrorBody(await t.request('PUT', `/llmProvider/${r.body.id}`, { bearer: bob, body: { description: 'x' } }), 403);
    expectErrorBody(await t.request('POST', `/organization/${orgId}/llmProvider`, { bearer: bob, body: { name: 'Bobs shared', type: 'CLAUDE' } }), 403);
    // names unique per organization, case-insensitively
    expectErrorBody(await t.request('POST', `/organization/${orgId}/llmProvider`, { bearer: alice, body: { name: 'ANTHROPIC', type: 'CLAUDE' } }), 409);
  });

  test('a BEDROCK provider needs a region; bad type is a 400', async () => {
    assert.match(expectErrorBody(await t.request('POST', `/organization/${orgId}/llmProvider`, { bearer: alice, body: { name: 'Bedrock', type: 'BEDROCK' } }), 400).message, /region/);
    const ok = await t.request('POST', `/organization/${orgId}/llmProvider`, { bearer: alice, body: { name: 'Bedrock', type: 'BEDROCK', region: 'us-east-1' } });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.region, 'us-east-1');
    assert.equal(ok.body.has_credential, false);
    expectErrorBody(await t.request('POST', `/organization/${orgId}/llmProvider`, { bearer: alice, body: { name: 'X', type: 'OPENAI' } }), 400);
    assert.match(expectErrorBody(await t.request('PUT', `/llmProvider/${ok.body.id}`, { bearer: alice, body: { region: '' } }), 400).message, /region/);
  });

  test('a USER provider is personal: only its owner sees, edits and deletes it; tokens cannot own one', async () => {
    const mine = await t.request('POST', `/organization/${orgId}/llmProvider`, { bearer: bob, body: { name: 'Mine', type: 'CLAUDE', scope: 'USER', credential: 'sk-bob-SECRET' } });
    assert.equal(mine.status, 201);
    assert.equal(mine.body.scope, 'USER');
    assert.equal(mine.body.owner_user_sub, 'wf-pc-bob');
    // the same name is free for another member's personal provider and for the shared scope
    assert.equal((await t.request('POST', `/organization/${orgId}/llmProvider`, { bearer: alice, body: { name: 'mine', type: 'CLAUDE', scope: 'USER' } })).status, 201);
    assert.equal((await t.request('POST', `/organization/${orgId}/llmProvider`, { bearer: alice, body: { name: 'MINE', type: 'CLAUDE' } })).status, 201);
    expectErrorBody(await t.request('POST', `/organization/${orgId}/llmProvider`, { bearer: bob, body: { name: 'mINE', type: 'CLAUDE', scope: 'USER' } }), 409);
    expectErrorBody(await t.request('GET', `/llmProvider/${mine.body.id}`, { bearer: alice }), 404);
    const aliceList = await t.request('GET', `/organization/${orgId}/llmProvider`, { bearer: alice });
    assert.ok(!aliceList.body.results.some((x: { id: string }) => x.id === mine.body.id));
    const bobList = await t.request('GET', `/organization/${orgId}/llmProvider`, { bearer: bob });
    assert.ok(bobList.body.results.some((x: { id: string }) => x.id === mine.body.id));
    expectErrorBody(await t.request('PUT', `/llmProvider/${mine.body.id}`, { bearer: alice, body: { description: 'x' } }), 404);
    expectErrorBody(await t.request('DELETE', `/llmProvider/${mine.body.id}`, { bearer: alice }), 404);
    assert.equal((await t.request('PUT', `/llmProvider/${mine.body.id}`, { bearer: bob, body: { description: 'bob' } })).body.description, 'bob');
    assert.match(expectErrorBody(await t.request('PUT', `/llmProvider/${mine.body.id}`, { bearer: bob, body: { scope: 'ORGANIZATION' } }), 400).message, /scope/);
    assert.equal((await t.request('DELETE', `/llmProvider/${mine.body.id}`, { bearer: bob })).status, 204);
    expectErrorBody(await t.request('GET', `/llmProvider/${mine.body.id}`, { bearer: bob }), 404);
  });

  test('tokens: USER scope refused (400), ORGANIZATION owner is empty; 401, 403 and 404', async () => {
    const org = await seedOrganization(t);
    assert.match(expectErrorBody(await t.request('POST', `/organization/${org.id}/llmProvider`, { token: org.token, body: { name: 'p', type: 'CLAUDE', scope: 'USER' } }), 400).message, /token/);
    const p = await t.request('POST', `/organization/${org.id}/llmProvider`, { token: org.token, body: { name: 'p', type: 'CLAUDE' } });
    assert.equal(p.body.owner_user_sub, '');
    assert.equal(p.body.owner_name, '');
    expectErrorBody(await t.request('GET', `/organization/${org.id}/llmProvider`), 401);
    expectErrorBody(await t.request('POST', `/organization/${org.id}/llmProvider`, { token: await org.tokenFor('DEVOPS'), body: { name: 'q', type: 'CLAUDE' } }), 403);
    expectErrorBody(await t.request('GET', `/llmProvider/${p.body.id}`, { bearer: alice }), 403);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/llmProvider`, { bearer: alice }), 403);
    expectErrorBody(await t.request('GET', '/llmProvider/00000000-0000-4000-8000-000000000000', { token: org.token }), 404);
    expectErrorBody(await t.request('GET', `/organization/${crypto.randomUUID()}/llmProvider`, { bearer: alice }), 404);
    expectErrorBody(await t.request('POST', `/organization/${crypto.randomUUID()}/mcpServer`, { bearer: alice, body: { name: 'x', url: 'https://x.example' } }), 404);
    expectErrorBody(await t.request('POST', `/organization/${org.id}/mcpServer`, { token: await org.tokenFor('DEVOPS'), body: { name: 'x', url: 'https://x.example' } }), 403);
    assert.equal((await t.request('GET', `/organization/${org.id}/llmProvider`, { token: await org.tokenFor('VIEWER') })).status, 200);
    expectErrorBody(await t.request('DELETE', `/llmProvider/${p.body.id}`, { token: await org.tokenFor('VIEWER') }), 403);
  });

  test('MCP connectors: https url, headers write-only with names returned, full replace on PUT, delete says 200', async () => {
    const c = await t.request('POST', `/organization/${orgId}/mcpServer`, { bearer: alice, body: { ...ex.createMcpServer, headers: { ...ex.createMcpServer.headers, 'X-Team': 'a' } } });
    assert.equal(c.status, 201);
    assert.deepEqual(c.body.header_names, ['Authorization', 'X-Team']);
    assert.equal(c.body.scope, 'ORGANIZATION');
    assert.equal(c.body.owner_user_sub, 'wf-pc-alice');
    assert.deepEqual([c.body.name, c.body.url, c.body.description], [ex.createMcpServer.name, ex.createMcpServer.url, ex.createMcpServer.description]);
    assert.ok(!c.raw.includes(ex.createMcpServer.headers.Authorization));
    expectErrorBody(await t.request('POST', `/organization/${orgId}/mcpServer`, { bearer: alice, body: { name: 'x', url: 'http://mcp.example.com' } }), 400);
    expectErrorBody(await t.request('POST', `/organization/${orgId}/mcpServer`, { bearer: alice, body: { url: 'https://mcp.example.com' } }), 400);
    expectErrorBody(await t.request('POST', `/organization/${orgId}/mcpServer`, { bearer: alice, body: { name: 'x', url: 'https://a.example', headers: { 'bad header': 'v' } } }), 400);
    expectErrorBody(await t.request('POST', `/organization/${orgId}/mcpServer`, { bearer: alice, body: { name: 'github', url: 'https://x.example' } }), 409);
    const replaced = await t.request('PUT', `/mcpServer/${c.body.id}`, { bearer: alice, body: ex.editMcpServer });
    assert.equal(replaced.status, 200);
    assert.deepEqual(replaced.body.header_names, Object.keys(ex.editMcpServer.headers), 'the headers are replaced whole');
    assert.equal(replaced.body.description, '', 'a PUT replaces every member');
    const cleared = await t.request('PUT', `/mcpServer/${c.body.id}`, { bearer: alice, body: { name: 'GitHub', url: 'https://mcp.example.com/v2' } });
    assert.deepEqual(cleared.body.header_names, []);
    expectErrorBody(await t.request('PUT', `/mcpServer/${c.body.id}`, { bearer: bob, body: { name: 'GitHub', url: 'https://mcp.example.com/v2' } }), 403);
    const personal = await t.request('POST', `/organization/${orgId}/mcpServer`, { bearer: bob, body: { name: 'GitHub', url: 'https://bob.example', scope: 'USER' } });
    assert.equal(personal.status, 201);
    expectErrorBody(await t.request('GET', `/mcpServer/${personal.body.id}`, { bearer: alice }), 404);
    const aliceList = await t.request('GET', `/organization/${orgId}/mcpServer`, { bearer: alice });
    assert.ok(!aliceList.body.results.some((x: { id: string }) => x.id === personal.body.id));
    const del = await t.request('DELETE', `/mcpServer/${c.body.id}`, { bearer: alice });
    assert.equal(del.status, 200);
    assert.equal(del.body.message, 'MCP server deleted');
    expectErrorBody(await t.request('GET', `/mcpServer/${c.body.id}`, { bearer: alice }), 404);
    expectErrorBody(await t.request('GET', `/organization/${orgId}/mcpServer`), 401);
  });
});
