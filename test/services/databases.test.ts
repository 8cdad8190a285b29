// Databases: the seed's create body, types, modes and the version table, instance_type for
// MANAGED only, generated master credentials for ADMINs only, never echoed elsewhere.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { serviceExamples } from '../../src/http/examples/services.ts';

describe('databases', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(async () => t.close());

  const create = (body: unknown, token = org.token) => t.request('POST', `/environment/${env.id}/database`, { token, body });

  test('the reference\'s example as a MANAGED PostgreSQL; credentials only through masterCredentials, for ADMINs', async () => {
    const example = serviceExamples.createDatabase;
    const r = await create({ ...example, mode: 'MANAGED' });
    assert.equal(r.status, 201, r.raw);
    const d = r.body;
    assert.equal(d.service_type, 'DATABASE');
    assert.deepEqual([d.type, d.version, d.mode, d.accessibility, d.cpu, d.memory, d.storage, d.instance_type],
      [example.type, example.version, 'MANAGED', example.accessibility, example.cpu, example.memory, example.storage, null]);
    assert.equal(d.port, 5432);
    assert.match(d.host, /^postgresql-[0-9a-f]{8}$/);
    assert.equal(d.maximum_cpu, 4000);
    const creds = await t.request('GET', `/database/${d.id}/masterCredentials`, { token: await org.tokenFor('ADMIN') });
    assert.equal(creds.status, 200);
    assert.equal(creds.body.host, d.host);
    assert.equal(creds.body.port, 5432);
    assert.match(creds.body.login, /^berth_[0-9a-f]{8}$/);
    assert.ok(creds.body.password.length >= 24);
    const again = await t.request('GET', `/database/${d.id}/masterCredentials`, { token: org.token });
    assert.equal(again.body.password, creds.body.password, 'generated once');
    expectErrorBody(await t.request('GET', `/database/${d.id}/masterCredentials`, { token: await org.tokenFor('DEVOPS') }), 403);
    expectErrorBody(await t.request('GET', `/database/${d.id}/masterCredentials`, { token: await org.tokenFor('VIEWER') }), 403);
    const edit = serviceExamples.editDatabase;
    const edited = await t.request('PUT', `/database/${d.id}`, { token: org.token, body: edit });
    assert.equal(edited.status, 200, edited.raw);
    assert.deepEqual([edited.body.cpu, edited.body.memory, edited.body.storage], [edit.cpu, edit.memory, edit.storage]);
    // the password is never echoed anywhere else, nor stored in clear
    const texts = [
      r.raw, edited.raw, (await t.request('GET', `/database/${d.id}`, { token: org.token })).raw,
      (await t.request('GET', `/environment/${env.id}/database`, { token: org.token })).raw,
      (await t.request('GET', `/environment/${env.id}/services`, { token: org.token })).raw,
    ];
    for (const text of texts) {
      assert.ok(!text.includes(creds.body.password), 'password leaked');
      assert.ok(!text.includes('"secrets"'));
    }
    const stored = await t.ctx.db.query<{ secrets: Record<string, string>; spec: unknown }>('select secrets, spec from services where id = $1', [d.id]);
    assert.ok(!JSON.stringify(stored[0]).includes(creds.body.password), 'stored sealed');
  });

  test('defaults for a CONTAINER database per type; redis login', async () => {
    const pg = await create({ ...serviceExamples.createDatabase, name: 'pg-container' });
    assert.equal(pg.status, 201, pg.raw);
    assert.deepEqual([pg.body.mode, pg.body.port], ['CONTAINER', 5432]);
    const my = await create({ name: 'mysql', type: 'MYSQL', version: '8.0', mode: 'CONTAINER' });
    assert.equal(my.status, 201, my.raw);
    assert.deepEqual([my.body.cpu, my.body.memory, my.body.storage, my.body.port], [250, 512, 10, 3306]);
    const mongo = await create({ name: 'mongo', type: 'MONGODB', version: '7', mode: 'CONTAINER', accessibility: 'PUBLIC' });
    assert.deepEqual([mongo.body.memory, mongo.body.accessibility], [256, 'PUBLIC']);
    const redis = await create({ name: 'redis', type: 'REDIS', version: '7', mode: 'CONTAINER' });
    const creds = await t.request('GET', `/database/${redis.body.id}/masterCredentials`, { token: org.token });
    assert.equal(creds.body.login, 'default');
  });

  test('versions per type and mode, instance_type, enums, capacity: 400', async () => {
    const msg = async (body: Record<string, unknown>) => expectErrorBody(await create({ name: 'bad-db', ...body }), 400).message;
    assert.match(await msg({ type: 'POSTGRESQL', version: '10', mode: 'MANAGED' }), /not supported for POSTGRESQL in MANAGED mode \(supported major versions: 11, .*17\)/);
    assert.match(await msg({ type: 'MONGODB', version: '6', mode: 'MANAGED' }), /supported major versions: 4, 5/);
    assert.match(await msg({ type: 'REDIS', version: 'latest', mode: 'CONTAINER' }), /not a version number/);
    assert.match(await msg({ type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', instance_type: 'db.t3.medium' }), /instance_type is only for MANAGED databases/);
    assert.match(await msg({ type: 'ORACLE', version: '19', mode: 'CONTAINER' }), /^type /);
    assert.match(await msg({ type: 'REDIS', version: '7', mode: 'SERVERLESS' }), /^mode /);
    assert.match(await msg({ type: 'REDIS', version: '7', mode: 'CONTAINER', accessibility: 'OPEN' }), /^accessibility /);
    assert.match(await msg({ type: 'REDIS', version: '7', mode: 'CONTAINER', memory: 9000 }), /maximum of 8192 MB/);
    assert.match(await msg({ type: 'REDIS', mode: 'CONTAINER' }), /version is required/);
    const managed = await create({ name: 'managed-it', type: 'POSTGRESQL', version: '15', mode: 'MANAGED', instance_type: 'db.t3.medium' });
    assert.equal(managed.body.instance_type, 'db.t3.medium');
  });

  test('edit: version checked against the stored type and mode; type cannot change; round-trip and delete', async () => {
    const d = await create({ name: 'edit-db', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER' });
    assert.match(expectErrorBody(await t.request('PUT', `/database/${d.body.id}`, { token: org.token, body: { version: '9' } }), 400).message, /not supported/);
    const e = await t.request('PUT', `/database/${d.body.id}`, { token: org.token, body: { version: '17', type: 'MYSQL', name: 'Edited-DB' } });
    assert.equal(e.status, 200, e.raw);
    assert.deepEqual([e.body.version, e.body.type, e.body.name, e.body.storage], ['17', 'POSTGRESQL', 'Edited-DB', 10]);
    const list = await t.request('GET', `/environment/${env.id}/database`, { token: await org.tokenFor('VIEWER') });
    assert.ok(list.body.results.some((x: { id: string }) => x.id === d.body.id));
    const status = await t.request('GET', `/database/${d.body.id}/status`, { token: org.token });
    assert.equal(status.body.service_deployment_status, 'NEVER_DEPLOYED');
    expectErrorBody(await t.request('DELETE', `/database/${d.body.id}`, { token: await org.tokenFor('VIEWER') }), 403);
    assert.equal((await t.request('DELETE', `/database/${d.body.id}`, { token: org.token })).status, 204);
    expectErrorBody(await t.request('GET', `/database/${d.body.id}/masterCredentials`, { token: org.token }), 404);
  });
});
