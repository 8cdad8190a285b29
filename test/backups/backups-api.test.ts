// Database backups as a user drives them (issue 39), on the simulated engine (its dumps are
// labelled simulated documents; the real dumps are test/engine/database-backups*.test.ts): the
// official SDK's BackupsApi unchanged (add, list, remove), the stored object encrypted under
// BACKUP_DIR with the recorded SHA-256, download for admins only, restores into a new database
// (the original untouched) and in place after a SAFETY backup, a corrupted object caught by the
// read-back of a drill and by a restore, the policy, and every refusal with the seed's error body.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, writeFile, access } from 'node:fs/promises';
import { join } from 'node:path';
import { BackupsApi, Configuration } from 'qovery-typescript-axios';
import { subscribeTasks } from '../../src/workers/handlers.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { eventually, expectErrorBody, listenOnLoopback, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

const UNKNOWN = '00000000-0000-4000-8000-00000000dead';
const QOVERY_SHAPE = ['id', 'created_at', 'updated_at', 'name', 'message', 'status'];

describe('database backups (API, simulated engine)', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let dbId: string;
  let sdk: BackupsApi;

  const api = (method: string, url: string, body?: unknown, token = org.token) => t.request(method, url, { token, ...(body !== undefined ? { body } : {}) });
  const backup = (id: string, backupId: string) => api('GET', `/database/${id}/backup/${backupId}`);
  const settled = async (id: string, backupId: string) => eventually(async () => {
    const b = (await backup(id, backupId)).body;
    return b.status === 'SUCCEEDED' || b.status === 'FAILED' ? b : null;
  }, 20_000);
  const restoreDone = async (id: string, backupId: string, restoreId: string) => eventually(async () => {
    const r = (await api('GET', `/database/${id}/backup/${backupId}/restore`)).body.results.find((x: { id: string }) => x.id === restoreId);
    return r && (r.status === 'SUCCEEDED' || r.status === 'FAILED') ? r : null;
  }, 30_000);
  const createDatabase = async (name: string, mode = 'CONTAINER') => {
    const r = await api('POST', `/environment/${env.id}/database`, { name, type: 'POSTGRESQL', version: '15', mode });
    assert.equal(r.status, 201, r.raw);
    return r.body.id as string;
  };
  const deployed = async (id: string) => {
    assert.equal((await api('POST', `/database/${id}/deploy`)).status, 202);
    await eventually(async () => (await api('GET', `/database/${id}/status`)).body.state === 'RUNNING', 20_000);
  };

  before(async () => {
    t = await startTestApp();
    await subscribeTasks(t.ctx, ['deployments.run', 'deployments.sweep', 'backups.take', 'backups.restore', 'backups.drill']);
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    dbId = await createDatabase('orders');
    await deployed(dbId);
    sdk = new BackupsApi(new Configuration({ basePath: await listenOnLoopback(t), apiKey: `Token ${org.token}` }));
  });
  after(async () => { await t?.close(); });

  test('the SDK takes a backup: 201 in Qovery\'s shape, then SUCCEEDED with size and checksum of the encrypted object', async () => {
    const created = await sdk.addBackupDatabase(dbId, { name: 'before-migration', message: 'v2 schema' });
    assert.equal(created.status, 201);
    for (const key of QOVERY_SHAPE) assert.ok(key in created.data, `${key} in the answer`);
    assert.equal(created.data.name, 'before-migration');
    assert.equal(created.data.message, 'v2 schema');
    assert.equal(created.data.status as unknown, 'QUEUED');
    const done = await settled(dbId, created.data.id);
    assert.equal(done.status, 'SUCCEEDED', done.error);
    assert.equal(done.trigger, 'MANUAL');
    assert.equal(done.storage, 'LOCAL');
    assert.match(done.checksum, /^[0-9a-f]{64}$/);

    const file = join(t.config.backupDir, org.id, dbId, `${done.id}.dump.gz.enc`);
    const stored = await readFile(file);
    assert.equal(stored.length, done.size);
    assert.equal(createHash('sha256').update(stored).digest('hex'), done.checksum);
    assert.ok(!stored.toString('latin1').includes('orders'), 'the stored object is encrypted: no plain text of the dump');

    const listed = await sdk.listDatabaseBackup(dbId);
    assert.equal(listed.data.page_size, 20);
    assert.equal(listed.data.results?.[0]?.id, done.id);
  });

  test('download: the native dump for admins (decrypted), 403 for DevOps', async () => {
    const id = (await sdk.addBackupDatabase(dbId, { name: 'for-download', message: '' })).data.id;
    await settled(dbId, id);
    const r = await api('GET', `/database/${dbId}/backup/${id}/download`);
    assert.equal(r.status, 200, r.raw);
    assert.equal(r.headers['content-type'], 'application/octet-stream');
    assert.match(String(r.headers['content-disposition']), /^attachment; filename="orders-\d{8}-\d{6}\.pgdump"$/);
    assert.match(r.raw, /simulated/i);
    expectErrorBody(await api('GET', `/database/${dbId}/backup/${id}/download`, undefined, await org.tokenFor('DEVOPS')), 403);
  });

  test('restore into a new database: 202, the new database holds the backup, the original is untouched', async () => {
    const id = (await sdk.addBackupDatabase(dbId, { name: 'to-copy', message: '' })).data.id;
    await settled(dbId, id);
    const r = await api('POST', `/database/${dbId}/backup/${id}/restore`, {}, await org.tokenFor('DEVOPS'));
    assert.equal(r.status, 202, r.raw);
    assert.equal(r.body.mode, 'NEW_DATABASE');
    assert.notEqual(r.body.target_database_id, dbId);
    const done = await restoreDone(dbId, id, r.body.id);
    assert.equal(done.status, 'SUCCEEDED', done.error);
    const copy = await api('GET', `/database/${r.body.target_database_id}`);
    assert.match(copy.body.name, /^orders-restored-\d{8}-\d{6}$/);
    assert.equal(copy.body.type, 'POSTGRESQL');
    assert.equal(copy.body.version, '15');
    assert.equal((await api('GET', `/database/${dbId}/status`)).body.state, 'RUNNING');
  });

  test('restore in place: admins only; a SAFETY backup is taken and succeeds first', async () => {
    const id = (await sdk.addBackupDatabase(dbId, { name: 'known-good', message: '' })).data.id;
    await settled(dbId, id);
    expectErrorBody(await api('POST', `/database/${dbId}/backup/${id}/restore`, { mode: 'IN_PLACE' }, await org.tokenFor('DEVOPS')), 403);
    expectErrorBody(await api('POST', `/database/${dbId}/backup/${id}/restore`, { mode: 'IN_PLACE', name: 'x' }), 400);
    const r = await api('POST', `/database/${dbId}/backup/${id}/restore`, { mode: 'IN_PLACE' });
    assert.equal(r.status, 202, r.raw);
    assert.equal(r.body.target_database_id, dbId);
    const done = await restoreDone(dbId, id, r.body.id);
    assert.equal(done.status, 'SUCCEEDED', done.error);
    const safety = (await backup(dbId, done.safety_backup_id)).body;
    assert.equal(safety.trigger, 'SAFETY');
    assert.equal(safety.status, 'SUCCEEDED');
    assert.match(safety.name, /^before restore /);
  });

  test('a corrupted object: the drill records the failure and a restore fails with the reason, nothing is restored', async () => {
    const id = (await sdk.addBackupDatabase(dbId, { name: 'to-corrupt', message: '' })).data.id;
    await settled(dbId, id);
    const file = join(t.config.backupDir, org.id, dbId, `${id}.dump.gz.enc`);
    const bytes = await readFile(file);
    const at = bytes.length - 40;
    bytes.writeUInt8(bytes.readUInt8(at) ^ 0xff, at);
    await writeFile(file, bytes);
    assert.equal((await api('POST', `/database/${dbId}/backup/${id}/drill`)).status, 202);
    const drilled = await eventually(async () => (await backup(dbId, id)).body.drill, 20_000);
    assert.ok(drilled.error, 'the drill failed');
    assert.equal((await backup(dbId, id)).body.verified_at, null);
    const r = await api('POST', `/database/${dbId}/backup/${id}/restore`, { name: 'from-corrupt' });
    assert.equal(r.status, 202, r.raw);
    const done = await restoreDone(dbId, id, r.body.id);
    assert.equal(done.status, 'FAILED');
    assert.ok(done.error);
  });

  test('a good backup\'s drill records what it holds and when', async () => {
    const id = (await sdk.addBackupDatabase(dbId, { name: 'to-drill', message: '' })).data.id;
    await settled(dbId, id);
    assert.equal((await api('POST', `/database/${dbId}/backup/${id}/drill`)).status, 202);
    const b = await eventually(async () => { const x = (await backup(dbId, id)).body; return x.verified_at ? x : null; }, 20_000);
    assert.deepEqual(b.drill, { counts: {}, error: null });
  });

  test('the SDK removes a backup: 204, its object is gone, then 404', async () => {
    const id = (await sdk.addBackupDatabase(dbId, { name: 'to-remove', message: '' })).data.id;
    await settled(dbId, id);
    const file = join(t.config.backupDir, org.id, dbId, `${id}.dump.gz.enc`);
    await access(file);
    assert.equal((await sdk.removeDatabaseBackup(dbId, id)).status, 204);
    await assert.rejects(access(file));
    expectErrorBody(await backup(dbId, id), 404);
    expectErrorBody(await api('DELETE', `/database/${dbId}/backup/${id}`), 404);
  });

  test('refusals: 400 bad bodies and MANAGED databases, 404 unknown or foreign ids, 409 not deployed or not SUCCEEDED, 403 viewers', async () => {
    expectErrorBody(await api('POST', `/database/${dbId}/backup`, {}), 400);
    expectErrorBody(await api('POST', `/database/${dbId}/backup`, { name: '' }), 400);
    expectErrorBody(await api('POST', `/database/${dbId}/backup`, { name: 'x', nmae: 'typo' }), 400);
    expectErrorBody(await api('POST', `/database/${UNKNOWN}/backup`, { name: 'x' }), 404);
    expectErrorBody(await api('POST', `/database/${dbId}/backup`, { name: 'x' }, await org.tokenFor('VIEWER')), 403);
    assert.equal((await api('GET', `/database/${dbId}/backup`, undefined, await org.tokenFor('VIEWER'))).status, 200);

    const managed = await createDatabase('cloudy', 'MANAGED');
    assert.match(expectErrorBody(await api('POST', `/database/${managed}/backup`, { name: 'x' }), 400).message, /backed up by its provider/);
    const idle = await createDatabase('idle');
    assert.match(expectErrorBody(await api('POST', `/database/${idle}/backup`, { name: 'x' }), 409).message, /deploy it/);

    const first = (await api('GET', `/database/${dbId}/backup`)).body.results[0].id;
    expectErrorBody(await api('GET', `/database/${idle}/backup/${first}`), 404);
    expectErrorBody(await api('POST', `/database/${dbId}/backup/${UNKNOWN}/restore`, {}), 404);
    expectErrorBody(await api('POST', `/database/${dbId}/backup/${first}/restore`, { mode: 'SIDEWAYS' }), 400);

    const other = await seedOrganization(t);
    expectErrorBody(await api('GET', `/database/${dbId}/backup`, undefined, other.token), 403);

    // a restore into this database under way: another in place waits (one from it into a new database does not count)
    const good = (await api('GET', `/database/${dbId}/backup`)).body.results.find((b: { status: string }) => b.status === 'SUCCEEDED').id;
    const [pending] = await t.ctx.db.query<{ id: string }>(`insert into backup_restores (organization_id, backup_id, database_id, mode, target_database_id)
      values ($1, $2, $3, 'IN_PLACE', $3) returning id`, [org.id, good, dbId]);
    assert.match(expectErrorBody(await api('POST', `/database/${dbId}/backup/${good}/restore`, { mode: 'IN_PLACE' }), 409).message, /already under way/);
    await t.ctx.db.query("update backup_restores set status = 'FAILED', target_database_id = $2 where id = $1", [pending!.id, idle]);
    await t.ctx.db.query("update database_backups set status = 'FAILED', error = 'test' where id = $1", [first]);
    assert.match(expectErrorBody(await api('POST', `/database/${dbId}/backup/${first}/restore`, {}), 409).message, /only a SUCCEEDED backup/);
    expectErrorBody(await api('GET', `/database/${dbId}/backup/${first}/download`), 409);
  });

  test('policy: set, read (next slots), refused when invalid or too often, deleted', async () => {
    const none = await api('GET', `/database/${dbId}/backupPolicy`);
    assert.equal(none.status, 200);
    assert.equal(none.raw, 'null', 'no policy: null');
    assert.match(expectErrorBody(await api('PUT', `/database/${dbId}/backupPolicy`, { schedule: 'every night' }), 400).message, /^schedule: /);
    assert.match(expectErrorBody(await api('PUT', `/database/${dbId}/backupPolicy`, { schedule: '*/5 * * * *' }), 400).message, /^schedule: /);
    expectErrorBody(await api('PUT', `/database/${dbId}/backupPolicy`, { schedule: '0 3 * * *', keep_daily: -1 }), 400);
    expectErrorBody(await api('PUT', `/database/${dbId}/backupPolicy`, { schedule: '0 3 * * *' }, await org.tokenFor('VIEWER')), 403);
    const r = await api('PUT', `/database/${dbId}/backupPolicy`, { schedule: '0 3 * * *', keep_daily: 3 }, await org.tokenFor('DEVOPS'));
    assert.equal(r.status, 200, r.raw);
    assert.deepEqual({ ...r.body, next_backup_at: undefined, next_drill_at: undefined, last_backup_at: undefined, last_verified_at: undefined }, {
      database_id: dbId, enabled: true, schedule: '0 3 * * *', keep_daily: 3, keep_weekly: 4, keep_monthly: 6, drill_schedule: '0 4 * * 0',
      next_backup_at: undefined, next_drill_at: undefined, last_backup_at: undefined, last_verified_at: undefined, overdue_since: null,
    });
    assert.match(r.body.next_backup_at, /T03:00:00\.000Z$/);
    assert.match(r.body.next_drill_at, /T04:00:00\.000Z$/);
    assert.ok(r.body.last_backup_at, 'the backups taken above count');
    assert.deepEqual((await api('GET', `/database/${dbId}/backupPolicy`)).body, r.body);
    assert.equal((await api('DELETE', `/database/${dbId}/backupPolicy`)).status, 204);
    expectErrorBody(await api('DELETE', `/database/${dbId}/backupPolicy`), 404);
  });
});
