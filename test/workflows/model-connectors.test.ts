// A workflow's model credential (own api_key or an LLM provider) and attached MCP connectors,
// with two real members: personal providers and connectors are usable by their owner only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { startTestOidc, type TestOidc } from '../support/oidc.ts';

describe('workflow model and MCP connectors', () => {
  let t: TestApp;
  let oidc: TestOidc;
  let alice: string;
  let bob: string;
  let orgId: string;
  let env: SeededEnvironment;
  const create = (bearer: string, body: Record<string, unknown>) =>
    t.request('POST', `/environment/${env.id}/agenticWorkflow`, { bearer, body: { name: `wf-${randomUUID().slice(0, 8)}`, ...body } });
  const provider = async (bearer: string, body: Record<string, unknown>) =>
    (await t.request('POST', `/organization/${orgId}/llmProvider`, { bearer, body: { name: `p-${randomUUID().slice(0, 6)}`, ...body } })).body.id as string;
  const connector = async (bearer: string, name: string, scope = 'ORGANIZATION') => {
    const r = await t.request('POST', `/organization/${orgId}/mcpServer`, { bearer, body: { name, url: 'https://mcp.example.com', scope } });
    assert.equal(r.status, 201, r.raw);
    return r.body.id as string;
  };
  before(async () => {
    oidc = await startTestOidc();
    t = await startTestApp({ config: { oidcIssuer: oidc.issuer, oidcAudience: oidc.audience, oidcJwksUrl: oidc.jwksUrl } });
    alice = await oidc.sign({ sub: 'wf-mc-alice', email: 'mc-alice@example.com', name: 'Alice' });
    bob = await oidc.sign({ sub: 'wf-mc-bob', email: 'mc-bob@example.com', name: 'Bob' });
    orgId = (await t.request('POST', '/organization', { bearer: alice, body: { name: `MC ${Date.now()}` } })).body.id;
    const inv = await t.request('POST', `/organization/${orgId}/inviteMember`, { bearer: alice, body: { email: 'mc-bob@example.com', role: 'DEVOPS' } });
    assert.ok((await t.request('POST', `/organization/${orgId}/inviteMember/${inv.body.id}`, { bearer: bob })).status < 300);
    env = await seedEnvironment(t, { id: orgId } as SeededOrganization);
  });
  after(async () => {
    await t.close();
    await oidc.close();
  });

  test('llm_provider_id: usable provider of the same type; null in the response for an own api_key', async () => {
    const shared = await provider(alice, { type: 'CLAUDE', credential: 'c' });
    const w = await create(bob, { model: { type: 'CLAUDE', llm_provider_id: shared } });
    assert.equal(w.status, 201, w.raw);
    assert.deepEqual(w.body.model, { type: 'CLAUDE', settings: '', llm_provider_id: shared });
    // switching to an own key clears the provider reference
    const own = await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { bearer: bob, body: { name: w.body.name, model: { type: 'CLAUDE', api_key: 'sk-OWN-SECRET' } } });
    assert.equal(own.body.model.llm_provider_id, null);
    assert.doesNotMatch(own.raw, /OWN-SECRET/);
    // and back to the provider drops the stored key
    const back = await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { bearer: bob, body: { name: w.body.name, model: { type: 'CLAUDE', llm_provider_id: shared } } });
    assert.equal(back.body.model.llm_provider_id, shared);
    const secrets = await t.ctx.db.query<{ secrets: Record<string, string> }>('select secrets from services where id = $1', [w.body.id]);
    assert.equal(secrets[0]!.secrets.api_key, undefined);
    // a provider in use cannot be deleted
    expectErrorBody(await t.request('DELETE', `/llmProvider/${shared}`, { bearer: alice }), 409);
  });

  test('400: api_key with llm_provider_id, unknown provider, another organization, another member\'s personal one, wrong type', async () => {
    const shared = await provider(alice, { type: 'CLAUDE' });
    const bedrock = await provider(alice, { type: 'BEDROCK', region: 'eu-west-1' });
    const bobs = await provider(bob, { type: 'CLAUDE', scope: 'USER' });
    assert.match(expectErrorBody(await create(alice, { model: { type: 'CLAUDE', api_key: 'k', llm_provider_id: shared } }), 400).message, /mutually exclusive/);
    assert.match(expectErrorBody(await create(alice, { model: { type: 'CLAUDE', llm_provider_id: randomUUID() } }), 400).message, /does not exist/);
    const otherOrg = await seedOrganization(t);
    const foreign = (await t.request('POST', `/organization/${otherOrg.id}/llmProvider`, { token: otherOrg.token, body: { name: 'f', type: 'CLAUDE' } })).body.id;
    assert.match(expectErrorBody(await create(alice, { model: { type: 'CLAUDE', llm_provider_id: foreign } }), 400).message, /another organization/);
    assert.match(expectErrorBody(await create(alice, { model: { type: 'CLAUDE', llm_provider_id: bobs } }), 400).message, /personal to another member/);
    assert.match(expectErrorBody(await create(alice, { model: { type: 'CLAUDE', llm_provider_id: bedrock } }), 400).message, /BEDROCK, not CLAUDE/);
    assert.equal((await create(bob, { model: { type: 'CLAUDE', llm_provider_id: bobs } })).status, 201);
    assert.equal((await create(alice, { model: { type: 'BEDROCK', llm_provider_id: bedrock } })).status, 201);
    // changing the model type while keeping the provider must still match
    const w = await create(alice, { model: { type: 'CLAUDE', llm_provider_id: shared } });
    assert.match(expectErrorBody(await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { bearer: alice, body: { name: w.body.name, model: { type: 'BEDROCK' } } }), 400).message, /not BEDROCK/);
  });

  test('mcp_servers and the deprecated mcp_server_ids are merged and always returned in agreement', async () => {
    const a = await connector(alice, `a-${randomUUID().slice(0, 6)}`);
    const b = await connector(alice, `b-${randomUUID().slice(0, 6)}`);
    const w = await create(alice, { mcp_servers: [{ id: a, required: true }], mcp_server_ids: [b, a] });
    assert.equal(w.status, 201, w.raw);
    assert.deepEqual(w.body.mcp_servers, [{ id: a, required: true }, { id: b, required: false }]);
    assert.deepEqual(w.body.mcp_server_ids, [a, b]);
    const stored = await t.request('GET', `/agenticWorkflow/${w.body.id}`, { bearer: alice });
    assert.deepEqual(stored.body, w.body, 'the create answer is what is stored (attachments in the order sent)');
    const legacy = await create(alice, { mcp_server_ids: [b] });
    assert.deepEqual(legacy.body.mcp_servers, [{ id: b, required: false }]);
    // a required connector may be removed by a later edit
    const edited = await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { bearer: alice, body: { name: w.body.name, mcp_servers: [{ id: b }] } });
    assert.equal(edited.status, 200);
    assert.deepEqual(edited.body.mcp_server_ids, [b]);
    // omitted lists keep the attachments
    const kept = await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { bearer: alice, body: { name: w.body.name, description: 'x' } });
    assert.deepEqual(kept.body.mcp_server_ids, [b]);
    // deleting a connector detaches it
    await t.request('DELETE', `/mcpServer/${b}`, { bearer: alice });
    assert.deepEqual((await t.request('GET', `/agenticWorkflow/${w.body.id}`, { bearer: alice })).body.mcp_servers, []);
  });

  test('400: unknown connector, a required one missing at creation, another organization\'s, two sharing a name', async () => {
    assert.match(expectErrorBody(await create(alice, { mcp_server_ids: [randomUUID()] }), 400).message, /does not exist/);
    assert.match(expectErrorBody(await create(alice, { mcp_servers: [{ id: randomUUID(), required: true }] }), 400).message, /required MCP server .* does not exist/);
    const other = await seedOrganization(t);
    const foreign = (await t.request('POST', `/organization/${other.id}/mcpServer`, { token: other.token, body: { name: 'f', url: 'https://f.example' } })).body.id;
    assert.match(expectErrorBody(await create(alice, { mcp_servers: [{ id: foreign }] }), 400).message, /does not exist in this organization/);
    const name = `Shared-${randomUUID().slice(0, 6)}`;
    const orgWide = await connector(alice, name);
    const mine = await connector(alice, name.toLowerCase(), 'USER');
    assert.match(expectErrorBody(await create(alice, { mcp_servers: [{ id: orgWide }, { id: mine }] }), 400).message, /share the name/);
  });

  test('a USER connector: only its owner attaches it or keeps it attached when saving', async () => {
    const bobs = await connector(bob, `bob-${randomUUID().slice(0, 6)}`, 'USER');
    const shared = await connector(alice, `org-${randomUUID().slice(0, 6)}`);
    assert.match(expectErrorBody(await create(alice, { mcp_server_ids: [bobs] }), 400).message, /personal to another member/);
    const w = await create(bob, { mcp_servers: [{ id: bobs }, { id: shared }] });
    assert.equal(w.status, 201, w.raw);
    // alice saves without touching the list: it would keep bob's connector attached → 400
    assert.match(expectErrorBody(await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { bearer: alice, body: { name: w.body.name, description: 'x' } }), 400).message, /personal to another member/);
    assert.match(expectErrorBody(await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { bearer: alice, body: { name: w.body.name, mcp_server_ids: [bobs, shared] } }), 400).message, /personal to another member/);
    // bob may save it; alice may save once she removes it
    assert.equal((await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { bearer: bob, body: { name: w.body.name, description: 'bob' } })).status, 200);
    const removed = await t.request('PUT', `/agenticWorkflow/${w.body.id}`, { bearer: alice, body: { name: w.body.name, mcp_servers: [{ id: shared }] } });
    assert.equal(removed.status, 200);
    assert.deepEqual(removed.body.mcp_server_ids, [shared]);
    // an API token owns no personal connector
    const token = (await t.ctx.services.tokens.issue(t.ctx.db, orgId, 'ci', 'ADMIN')).token;
    expectErrorBody(await t.request('POST', `/environment/${env.id}/agenticWorkflow`, { token, body: { name: 'tok', mcp_server_ids: [bobs] } }), 400);
  });
});
