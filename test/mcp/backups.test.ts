// berth's database-backup tools through the official MCP SDK's client over real HTTP (loopback),
// on the simulated engine with the backup workers running: a VIEWER is offered the list only, a
// DEVOPS token take and restore too (restore marked destructive); take is the API's backup
// (audited) and the list shows it SUCCEEDED with "last verified restorable"; a DEVOPS token
// restores into a new database but is refused IN_PLACE with a 403 tool error that says which role
// may; an admin restores in place; a service that is not a database and an unknown backup are
// berth's error bodies.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { subscribeTasks } from '../../src/workers/handlers.ts';
import { seedEnvironment, seedService, type SeededEnvironment } from '../support/factories.ts';
import { eventually, listenOnLoopback, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

type ToolAnswer = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };
const TOOL_NAMES = ['list_database_backups', 'take_database_backup', 'restore_database_backup'];

describe('database backups through MCP tools', () => {
  let t: TestApp;
  let base: string;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let dbId: string;
  let backupId = '';
  const clients: Client[] = [];

  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: 'berth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Token ${token}` } } }));
    clients.push(client);
    return client;
  }
  const call = async (c: Client, name: string, args: Record<string, unknown> = {}) => (await c.callTool({ name, arguments: args })) as ToolAnswer;
  const rest = async (method: string, url: string, body?: unknown) => {
    const r = await t.request(method, url, { token: org.token, ...(body !== undefined ? { body } : {}) });
    assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${r.raw}`);
    return r.body;
  };
  const restoreSettled = (restoreId: string) => eventually(async () => {
    const r = (await rest('GET', `/database/${dbId}/backup/${backupId}/restore`)).results.find((x: { id: string }) => x.id === restoreId);
    return r && (r.status === 'SUCCEEDED' || r.status === 'FAILED') ? r : null;
  }, 30_000);

  before(async () => {
    t = await startTestApp();
    await subscribeTasks(t.ctx, ['deployments.run', 'deployments.sweep', 'backups.take', 'backups.restore', 'backups.drill']);
    base = await listenOnLoopback(t);
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    dbId = (await rest('POST', `/environment/${env.id}/database`, { name: 'orders', type: 'POSTGRESQL', version: '15', mode: 'CONTAINER' })).id;
    await rest('POST', `/database/${dbId}/deploy`);
    await eventually(async () => (await rest('GET', `/database/${dbId}/status`)).state === 'RUNNING', 20_000);
    await seedService(t, env, 'APPLICATION', {}, 'storefront');
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await t?.close();
  });

  test('a VIEWER is offered the list only; a DEVOPS token take and restore too, restore marked destructive', async () => {
    const viewer = (await (await connect(await org.tokenFor('VIEWER'))).listTools()).tools.map((x) => x.name);
    assert.deepEqual(TOOL_NAMES.filter((n) => viewer.includes(n)), ['list_database_backups']);
    const tools = (await (await connect(await org.tokenFor('DEVOPS'))).listTools()).tools;
    const byName = new Map(tools.map((x) => [x.name, x]));
    for (const n of TOOL_NAMES) assert.ok(byName.has(n), n);
    assert.equal(byName.get('restore_database_backup')!.annotations?.destructiveHint, true);
    assert.equal(byName.get('take_database_backup')!.annotations?.destructiveHint, false);
    assert.equal(byName.get('list_database_backups')!.annotations?.readOnlyHint, true);
    assert.deepEqual(byName.get('take_database_backup')!.inputSchema.required, ['service', 'name']);
    assert.deepEqual(byName.get('restore_database_backup')!.inputSchema.required, ['service', 'backup_id']);
  });

  test('take is the API\'s backup, audited; the list shows it SUCCEEDED, then verified by a drill', async () => {
    const c = await connect(await org.tokenFor('DEVOPS'));
    const taken = await call(c, 'take_database_backup', { service: 'orders', environment: env.name, name: 'before-migration', message: 'v2' });
    assert.equal(taken.isError, undefined, JSON.stringify(taken));
    const b = taken.structuredContent.backup;
    backupId = b.id;
    assert.deepEqual(taken.structuredContent.database, { id: dbId, name: 'orders', environment: env.name });
    assert.deepEqual([b.name, b.message, b.status, b.trigger], ['before-migration', 'v2', 'QUEUED', 'MANUAL']);
    const viewer = await connect(await org.tokenFor('VIEWER'));
    const listed = await eventually(async () => {
      const r = await call(viewer, 'list_database_backups', { service: dbId });
      return r.structuredContent.backups[0]?.status === 'SUCCEEDED' ? r : null;
    }, 20_000);
    assert.equal(listed.structuredContent.backups[0].id, backupId);
    assert.match(listed.structuredContent.backups[0].checksum, /^[0-9a-f]{64}$/);
    assert.equal(listed.structuredContent.last_verified_restorable_at, null);
    await rest('POST', `/database/${dbId}/backup/${backupId}/drill`);
    const verified = await eventually(async () => (await call(viewer, 'list_database_backups', { service: 'orders' })).structuredContent.last_verified_restorable_at, 20_000);
    assert.equal(verified, (await rest('GET', `/database/${dbId}/backup/${backupId}`)).verified_at);
    const events = await eventually(async () => {
      const r = await t.request('GET', `/organization/${org.id}/events?targetId=${dbId}`, { token: org.token });
      return r.body.events?.some((e: { event_type: string; change?: string }) => e.event_type === 'CREATE' && JSON.stringify(e).includes('before-migration')) ? r : null;
    });
    assert.ok(events);
  });

  test('DEVOPS restores into a new database; IN_PLACE is a 403 tool error saying which role may', async () => {
    const c = await connect(await org.tokenFor('DEVOPS'));
    const copy = await call(c, 'restore_database_backup', { service: 'orders', backup_id: backupId, name: 'orders-copy' });
    assert.equal(copy.isError, undefined, JSON.stringify(copy));
    const r = copy.structuredContent.restore;
    assert.equal(r.mode, 'NEW_DATABASE');
    assert.equal((await restoreSettled(r.id)).status, 'SUCCEEDED');
    assert.equal((await rest('GET', `/database/${r.target_database_id}`)).name, 'orders-copy');

    const refused = await call(c, 'restore_database_backup', { service: 'orders', backup_id: backupId, mode: 'IN_PLACE' });
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent.status, 403);
    assert.equal(refused.structuredContent.code, 'forbidden');
    assert.match(refused.structuredContent.message, /^Restoring in place needs the ADMIN or OWNER role; your role may restore into a new database instead \(mode NEW_DATABASE\)\. \(.+\)$/);
    assert.equal(JSON.parse(refused.content[0]!.text!).status, 403);
  });

  test('an admin restores in place, after a SAFETY backup', async () => {
    const c = await connect(await org.tokenFor('ADMIN'));
    const done = await call(c, 'restore_database_backup', { service: 'orders', backup_id: backupId, mode: 'IN_PLACE' });
    assert.equal(done.isError, undefined, JSON.stringify(done));
    assert.equal(done.structuredContent.restore.target_database_id, dbId);
    const settled = await restoreSettled(done.structuredContent.restore.id);
    assert.equal(settled.status, 'SUCCEEDED', settled.error);
    assert.equal((await rest('GET', `/database/${dbId}/backup/${settled.safety_backup_id}`)).trigger, 'SAFETY');
  });

  test('refusals: not a database (400), an unknown backup (404), a VIEWER\'s take', async () => {
    const c = await connect(await org.tokenFor('DEVOPS'));
    const app = await call(c, 'list_database_backups', { service: 'storefront' });
    assert.deepEqual([app.isError, app.structuredContent.status, app.structuredContent.message],
      [true, 400, 'storefront is a APPLICATION: only databases have backups']);
    const unknown = await call(c, 'restore_database_backup', { service: 'orders', backup_id: '00000000-0000-4000-8000-00000000dead' });
    assert.equal(unknown.structuredContent.status, 404);
    const viewer = await connect(await org.tokenFor('VIEWER'));
    const take = await call(viewer, 'take_database_backup', { service: 'orders', name: 'x' });
    assert.equal(take.isError, true);
    assert.equal(take.structuredContent.status, 403);
  });
});
