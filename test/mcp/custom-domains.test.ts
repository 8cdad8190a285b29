// berth's custom-domain tools through the official MCP SDK's client over real HTTP (loopback), DNS
// answered by pebble-challtestsrv: a VIEWER is offered list and check, a DEVOPS token add and
// remove too (remove marked destructive); add answers the record to create and is the API's
// domain (audited); check says where a domain points; remove by any spelling of the name or by
// id; refusals are berth's error bodies (400, 404, 409 not naming another organization's service).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freeLoopbackPort } from '../../src/lib/processes.ts';
import { seedEnvironment, seedService, type SeededEnvironment } from '../support/factories.ts';
import { eventually, listenOnLoopback, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { hasPebble, startPebble, type Pebble } from '../support/pebble.ts';

type ToolAnswer = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };
const INGRESS_DOMAIN = 'apps.berth.test';
const TOOL_NAMES = ['list_custom_domains', 'add_custom_domain', 'remove_custom_domain', 'check_custom_domains'];

describe('custom domains through MCP tools', { skip: hasPebble() ? false : 'needs Debian\'s pebble and pebble-challtestsrv' }, () => {
  let t: TestApp;
  let pebble: Pebble;
  let base: string;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let appId: string;
  const zone = `${randomUUID().slice(0, 8)}.example.org`;
  const orgs: string[] = [];
  const clients: Client[] = [];

  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: 'berth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Token ${token}` } } }));
    clients.push(client);
    return client;
  }
  const call = async (c: Client, name: string, args: Record<string, unknown> = {}) => (await c.callTool({ name, arguments: args })) as ToolAnswer;
  const host = (name: string) => `${name}-${env.id.replace(/-/g, '').slice(0, 8)}.${INGRESS_DOMAIN}`;

  before(async () => {
    pebble = await startPebble({ httpPort: await freeLoopbackPort() });
    t = await startTestApp({ env: { DNS_RESOLVERS: pebble.dns, INGRESS_PUBLIC_ADDRESSES: '127.0.0.1', INGRESS_DOMAIN } });
    base = await listenOnLoopback(t);
    org = await seedOrganization(t);
    orgs.push(org.id);
    env = await seedEnvironment(t, org);
    appId = await seedService(t, env, 'APPLICATION', {}, 'storefront');
    await seedService(t, env, 'CONTAINER', { image_name: 'nginx', tag: '1' }, 'edge');
    await seedService(t, env, 'DATABASE', {}, 'cache');
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    if (t) await t.ctx.db.query('delete from custom_domains where organization_id = any($1::uuid[])', [orgs]);
    await t?.close();
    await pebble?.close();
  });

  test('a VIEWER is offered list and check; a DEVOPS token add and remove too, remove marked destructive', async () => {
    const viewer = (await (await connect(await org.tokenFor('VIEWER'))).listTools()).tools.map((x) => x.name);
    assert.deepEqual(TOOL_NAMES.filter((n) => viewer.includes(n)), ['list_custom_domains', 'check_custom_domains']);
    const tools = (await (await connect(await org.tokenFor('DEVOPS'))).listTools()).tools;
    const byName = new Map(tools.map((x) => [x.name, x]));
    for (const n of TOOL_NAMES) assert.ok(byName.has(n), n);
    assert.equal(byName.get('remove_custom_domain')!.annotations?.destructiveHint, true);
    assert.equal(byName.get('add_custom_domain')!.annotations?.destructiveHint, false);
    assert.equal(byName.get('list_custom_domains')!.annotations?.readOnlyHint, true);
    assert.deepEqual(byName.get('add_custom_domain')!.inputSchema.required, ['service', 'domain']);
    assert.match(String((byName.get('add_custom_domain')!.inputSchema.properties as any).domain.description), /punycode/);
  });

  test('add answers the record to create and is the API\'s domain, audited; list and check see it', async () => {
    const c = await connect(await org.tokenFor('DEVOPS'));
    const domain = `shop.${zone}`;
    const added = await call(c, 'add_custom_domain', { service: 'storefront', environment: env.name, domain });
    assert.equal(added.isError, undefined, JSON.stringify(added));
    const a = added.structuredContent;
    assert.deepEqual(a.service, { id: appId, name: 'storefront', type: 'APPLICATION', environment: env.name });
    assert.deepEqual(a.record_to_create, { type: 'CNAME', name: domain, value: host('storefront') });
    assert.equal(a.next, `Create the DNS record CNAME ${domain} → ${host('storefront')} at the domain's DNS provider; berth checks DNS in the background (check_custom_domains asks now).`);
    assert.deepEqual([a.custom_domain.domain, a.custom_domain.status, a.custom_domain.generate_certificate, a.custom_domain.use_cdn], [domain, 'VALIDATION_PENDING', true, false]);
    const rest = await t.request('GET', `/application/${appId}/customDomain/${a.custom_domain.id}`, { token: org.token });
    assert.equal(rest.status, 200, rest.raw);
    assert.equal(rest.body.domain, domain);

    const viewer = await connect(await org.tokenFor('VIEWER'));
    const listed = await call(viewer, 'list_custom_domains', { service: appId });
    assert.deepEqual(listed.structuredContent.domains.map((d: { id: string }) => d.id), [a.custom_domain.id]);
    const checked = await call(viewer, 'check_custom_domains', { service: 'storefront' });
    assert.deepEqual(checked.structuredContent.results, [{ domain_name: domain, status: 'MATCHES_LOAD_BALANCER_HOST', error_details: null }]);

    const events = await eventually(async () => {
      const r = await t.request('GET', `/organization/${org.id}/events?targetId=${appId}`, { token: org.token });
      return r.body.events?.some((e: { event_type: string }) => e.event_type === 'CREATE') ? r : null;
    });
    const created = events.body.events.find((e: { event_type: string }) => e.event_type === 'CREATE');
    assert.equal(created.target_type, 'APPLICATION');
    assert.match(JSON.stringify(created), new RegExp(`custom_domain.*${domain.replace(/\./g, '\\.')}`));
  });

  test('check names where a domain points when it is not berth; a container has domains too', async () => {
    const c = await connect(await org.tokenFor('DEVOPS'));
    const domain = `edge.${zone}`;
    await pebble.setA(domain, ['192.0.2.10']);
    const added = await call(c, 'add_custom_domain', { service: 'edge', domain, use_cdn: false, generate_certificate: false });
    assert.equal(added.isError, undefined, JSON.stringify(added));
    assert.equal(added.structuredContent.custom_domain.generate_certificate, false);
    const checked = await call(c, 'check_custom_domains', { service: 'edge' });
    assert.deepEqual(checked.structuredContent.results, [{
      domain_name: domain, status: 'DOMAIN_LINKED_TO_WRONG_HOST',
      error_details: `${domain} resolves to 192.0.2.10; it must point to ${host('edge')} (127.0.0.1): create a CNAME record ${domain} → ${host('edge')}`,
    }]);
    assert.deepEqual(JSON.parse(checked.content[0]!.text!), checked.structuredContent);
  });

  test('remove by any spelling of the name or by id; an unknown one is a 404 body', async () => {
    const c = await connect(await org.tokenFor('DEVOPS'));
    const idn = await call(c, 'add_custom_domain', { service: 'storefront', domain: `Bücher.${zone}` });
    assert.equal(idn.structuredContent.custom_domain.domain, `xn--bcher-kva.${zone}`);
    const removed = await call(c, 'remove_custom_domain', { service: 'storefront', domain: `BÜCHER.${zone}.` });
    assert.equal(removed.isError, undefined, JSON.stringify(removed));
    assert.deepEqual(removed.structuredContent.removed, { id: idn.structuredContent.custom_domain.id, domain: `xn--bcher-kva.${zone}` });
    const byId = await call(c, 'add_custom_domain', { service: 'storefront', domain: `byid.${zone}` });
    assert.equal((await call(c, 'remove_custom_domain', { service: 'storefront', domain: byId.structuredContent.custom_domain.id })).isError, undefined);
    const gone = await call(c, 'remove_custom_domain', { service: 'storefront', domain: `byid.${zone}` });
    assert.equal(gone.isError, true);
    assert.equal(gone.structuredContent.status, 404);
    assert.match(gone.structuredContent.message, new RegExp(`Custom domain byid\\.${zone.replace(/\./g, '\\.')} of storefront`));
    const left = await t.request('GET', `/application/${appId}/customDomain`, { token: org.token });
    assert.deepEqual(left.body.results.map((d: { domain: string }) => d.domain), [`shop.${zone}`]);
  });

  test('refusals: a database (400), the API\'s validation (400), a VIEWER\'s add, another organization (409 without the holder\'s name)', async () => {
    const c = await connect(await org.tokenFor('DEVOPS'));
    const database = await call(c, 'list_custom_domains', { service: 'cache' });
    assert.deepEqual([database.isError, database.structuredContent.status, database.structuredContent.message],
      [true, 400, 'cache is a DATABASE: only applications and containers have custom domains']);
    const wildcard = await call(c, 'add_custom_domain', { service: 'storefront', domain: `*.${zone}` });
    assert.equal(wildcard.structuredContent.status, 400);
    assert.match(wildcard.structuredContent.message, /no DNS-01 provider is configured/);
    const ip = await call(c, 'add_custom_domain', { service: 'storefront', domain: '192.0.2.10' });
    assert.match(ip.structuredContent.message, /is an IP address/);

    const viewer = await connect(await org.tokenFor('VIEWER'));
    const refused = await call(viewer, 'add_custom_domain', { service: 'storefront', domain: `viewer.${zone}` });
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent.status, 403);

    const stranger = await seedOrganization(t);
    orgs.push(stranger.id);
    const theirEnv = await seedEnvironment(t, stranger);
    await seedService(t, theirEnv, 'APPLICATION', {}, 'theirs');
    const s = await connect(stranger.token);
    const taken = await call(s, 'add_custom_domain', { service: 'theirs', domain: `shop.${zone}` });
    assert.equal(taken.structuredContent.status, 409);
    assert.equal(taken.structuredContent.message, `shop.${zone} is already used by another service; a domain belongs to one service`);
    assert.doesNotMatch(JSON.stringify(taken), /storefront/);
    // nor do their tools reach this organization's service
    assert.equal((await call(s, 'list_custom_domains', { service: appId })).structuredContent.status, 403);
  });
});
