// berth's MCP server for a person signed in through OIDC (Bearer JWT), with the SDK's client over
// loopback HTTP: the tools offered follow the highest role the user holds in any organization
// (none without a membership, reading ones for a VIEWER, acting ones once an organization makes
// them DEVOPS or more), and the organizations they see are their memberships.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listenOnLoopback, startTestApp, type TestApp } from '../support/harness.ts';
import { startTestOidc, type TestOidc } from '../support/oidc.ts';

describe('berth\'s MCP server for signed-in users', () => {
  let t: TestApp;
  let oidc: TestOidc;
  let base: string;
  const clients: Client[] = [];

  const tools = async (bearer: string) => {
    const client = new Client({ name: 'user-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
    clients.push(client);
    return { client, names: (await client.listTools()).tools.map((x) => x.name) };
  };

  before(async () => {
    oidc = await startTestOidc();
    t = await startTestApp({ config: { oidcIssuer: oidc.issuer, oidcAudience: oidc.audience, oidcJwksUrl: oidc.jwksUrl } });
    base = await listenOnLoopback(t);
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await t.close();
    await oidc.close();
  });

  test('no membership: no tool; a VIEWER: reading tools; an OWNER somewhere: acting ones too', async () => {
    const owner = await oidc.sign({ sub: 'mcp-olga', email: 'olga@example.com', name: 'Olga' });
    const viewer = await oidc.sign({ sub: 'mcp-vic', email: 'vic@example.com', email_verified: true });
    assert.deepEqual((await tools(viewer)).names, [], 'a user of no organization is offered nothing');

    const org = await t.request('POST', '/organization', { bearer: owner, body: { name: `MCP Co ${Date.now()}` } });
    assert.equal(org.status, 201, org.raw);
    const invite = await t.request('POST', `/organization/${org.body.id}/inviteMember`, { bearer: owner, body: { email: 'vic@example.com', role: 'VIEWER' } });
    assert.equal((await t.request('POST', `/organization/${org.body.id}/inviteMember/${invite.body.id}`, { bearer: viewer })).status, 201);

    const asViewer = await tools(viewer);
    assert.ok(asViewer.names.includes('list_services') && !asViewer.names.includes('deploy_service'), asViewer.names.join(', '));
    const seen = await asViewer.client.callTool({ name: 'list_organizations', arguments: {} }) as unknown as { structuredContent: { result: Array<{ id: string }> } };
    assert.deepEqual(seen.structuredContent.result.map((o) => o.id), [org.body.id]);

    const asOwner = await tools(owner);
    assert.ok(asOwner.names.includes('deploy_service') && asOwner.names.includes('get_audit_log'));
    // a VIEWER here who owns an organization of their own is offered the acting tools (the highest
    // role); the services still refuse them in this organization
    const own = await t.request('POST', '/organization', { bearer: viewer, body: { name: `Vic Co ${Date.now()}` } });
    assert.equal(own.status, 201, own.raw);
    assert.ok((await tools(viewer)).names.includes('deploy_service'));
  });
});
