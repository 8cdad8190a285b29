// The address a database is shown at (issue 31, item 2; decision 0333): a PUBLIC database's host
// and port, in every response and in masterCredentials, are the ingress host and the port
// reserved for it in DATABASE_PUBLIC_PORTS; a PRIVATE one's are its name and port on the
// environment's network. A port is held from PUBLIC until PRIVATE or deletion, by one database
// at a time (an environment clone's copies get their own); a full range is a 409 that leaves
// nothing half done. The docker engine side is test/engine/public-databases.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { recordPublishedHost } from '../../src/modules/services/databases/public-access.ts';

const bindable = (port: number) => new Promise<boolean>((resolve) => {
  const s = createServer();
  s.once('error', () => resolve(false));
  s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
});

async function freeRange(size: number): Promise<number> {
  for (;;) {
    const from = 20_000 + Math.floor(Math.random() * 9_000);
    let free = true;
    for (let p = from; p < from + size && free; p++) free = await bindable(p);
    if (free) return from;
  }
}

describe('database addresses: PUBLIC and PRIVATE', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let from: number;
  before(async () => {
    from = await freeRange(4);
    t = await startTestApp({ config: { databasePublicPorts: { from, to: from + 3 }, ingressHost: '127.0.0.1' } });
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(async () => t.close());

  const create = (name: string, accessibility?: string, environmentId = env.id) => t.request('POST', `/environment/${environmentId}/database`, {
    token: org.token, body: { name, type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', ...(accessibility ? { accessibility } : {}) },
  });
  const edit = (id: string, accessibility: string) => t.request('PUT', `/database/${id}`, { token: org.token, body: { accessibility } });
  /** host and port as GET, the environment's list and masterCredentials give them (they must agree) */
  const addressOf = async (id: string, environmentId = env.id) => {
    const one = (await t.request('GET', `/database/${id}`, { token: org.token })).body;
    const listed = (await t.request('GET', `/environment/${environmentId}/database`, { token: org.token })).body.results.find((d: { id: string }) => d.id === id);
    const credentials = (await t.request('GET', `/database/${id}/masterCredentials`, { token: org.token })).body;
    assert.deepEqual([listed.host, listed.port, credentials.host, credentials.port], [one.host, one.port, one.host, one.port]);
    return { host: one.host as string, port: one.port as number };
  };

  test('PUBLIC: the ingress host and a reserved port everywhere; PRIVATE: the network name; clones get ports of their own', async () => {
    const a = await create('a', 'PUBLIC');
    assert.equal(a.status, 201, a.raw);
    assert.deepEqual({ host: a.body.host, port: a.body.port }, { host: '127.0.0.1', port: from });
    assert.deepEqual(await addressOf(a.body.id), { host: '127.0.0.1', port: from });
    const p = await create('p');
    assert.deepEqual(await addressOf(p.body.id), { host: `postgresql-${p.body.id.slice(0, 8)}`, port: 5432 });

    const clone = await t.request('POST', `/environment/${env.id}/clone`, { token: org.token, body: { name: `copy-${Date.now()}` } });
    assert.equal(clone.status, 202, clone.raw);
    const copies = (await t.request('GET', `/environment/${clone.body.id}/database`, { token: org.token })).body.results;
    const copyOf = (name: string) => copies.find((d: { name: string }) => d.name === name);
    assert.deepEqual({ host: copyOf('a').host, port: copyOf('a').port }, { host: '127.0.0.1', port: from + 1 }, 'not the original\'s port');
    assert.equal(copyOf('p').host, `postgresql-${copyOf('p').id.slice(0, 8)}`);
    assert.deepEqual(await addressOf(a.body.id), { host: '127.0.0.1', port: from }, 'the original keeps its own');
  });

  test('a full range is a 409 leaving nothing behind; PRIVATE and deletion free the port', async () => {
    const list = async () => (await t.request('GET', `/environment/${env.id}/database`, { token: org.token })).body.results as Array<{ id: string; name: string; accessibility: string; port: number }>;
    const a = (await list()).find((d) => d.name === 'a')!;
    const b = await create('b', 'PUBLIC');
    const c = await create('c', 'PUBLIC');
    assert.deepEqual([b.body.port, c.body.port], [from + 2, from + 3]);
    const refused = expectErrorBody(await create('d', 'PUBLIC'), 409);
    assert.match(refused.message, new RegExp(`DATABASE_PUBLIC_PORTS \\(${from}-${from + 3}\\)`));
    assert.ok(!(await list()).some((d) => d.name === 'd'), 'no database without its port');

    const closed = await edit(a.id, 'PRIVATE');
    assert.equal(closed.status, 200, closed.raw);
    assert.deepEqual({ host: closed.body.host, port: closed.body.port }, { host: `postgresql-${a.id.slice(0, 8)}`, port: 5432 });
    const d = await create('d', 'PUBLIC');
    assert.equal(d.status, 201, d.raw);
    assert.equal(d.body.port, from, 'a\'s port, freed when a was made PRIVATE');

    expectErrorBody(await edit(a.id, 'PUBLIC'), 409);
    assert.equal((await list()).find((x) => x.id === a.id)?.accessibility, 'PRIVATE', 'the refused edit changed nothing');
    assert.equal((await t.request('DELETE', `/database/${b.body.id}`, { token: org.token })).status, 204);
    const reopened = await edit(a.id, 'PUBLIC');
    assert.equal(reopened.status, 200, reopened.raw);
    assert.equal(reopened.body.port, from + 2, 'b\'s port, freed when b was deleted');
  });
});

describe('database addresses: where the engine published the port', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  before(async () => {
    const from = await freeRange(2);
    t = await startTestApp({ config: { databasePublicPorts: { from, to: from + 1 }, ingressHost: '127.0.0.1' } });
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(async () => t.close());
  const create = (name: string, accessibility: string) => t.request('POST', `/environment/${env.id}/database`, {
    token: org.token, body: { name, type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', accessibility },
  });
  const edit = (id: string, accessibility: string) => t.request('PUT', `/database/${id}`, { token: org.token, body: { accessibility } });
  const addressOf = async (id: string) => {
    const one = (await t.request('GET', `/database/${id}`, { token: org.token })).body;
    const credentials = (await t.request('GET', `/database/${id}/masterCredentials`, { token: org.token })).body;
    assert.deepEqual([credentials.host, credentials.port], [one.host, one.port]);
    return { host: one.host as string, port: one.port as number };
  };

  test('where the engine published the port (a Swarm node) is the host shown; a database made PUBLIC again starts from the ingress host', async () => {
    const d = await create('on-a-node', 'PUBLIC');
    assert.equal(d.status, 201, d.raw);
    const port = d.body.port as number;
    await recordPublishedHost(t.ctx.db, d.body.id, '10.0.9.3');
    assert.deepEqual(await addressOf(d.body.id), { host: '10.0.9.3', port });
    await recordPublishedHost(t.ctx.db, d.body.id, null);
    assert.deepEqual(await addressOf(d.body.id), { host: '127.0.0.1', port });
    await recordPublishedHost(t.ctx.db, d.body.id, '10.0.9.3');
    assert.equal((await edit(d.body.id, 'PRIVATE')).status, 200);
    assert.equal((await edit(d.body.id, 'PUBLIC')).status, 200);
    assert.equal((await addressOf(d.body.id)).host, '127.0.0.1', 'a new reservation knows no node until it is deployed');
    assert.equal((await t.request('DELETE', `/database/${d.body.id}`, { token: org.token })).status, 204);
  });
});
