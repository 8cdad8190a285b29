// What runs by itself around backups (issue 39), on the simulated engine: the minute visit
// queues a policy's scheduled backup once per slot, keeps exactly what grandfather-father-son
// retention says (rows and objects), fails a backup whose worker stopped beating (berth killed
// mid-way) with a BACKUP_FAILED event and one notification incident, marks a database OVERDUE
// once; and the organization's backup storage: LOCAL by default, an S3-compatible bucket on
// loopback (checked before it is saved, its secret never returned), backups going there, and a
// backup kept in a store the organization left answered with 409.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { subscribeTasks } from '../../src/workers/handlers.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { eventually, expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { startS3Server, type S3TestServer } from '../support/s3-server.ts';

describe('database backups (background work and storage, simulated engine)', () => {
  let t: TestApp;
  let s3: S3TestServer;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let dbId: string;

  const api = (method: string, url: string, body?: unknown, token = org.token) => t.request(method, url, { token, ...(body !== undefined ? { body } : {}) });
  const rows = (sql: string, params: unknown[] = []) => t.ctx.db.query<Record<string, any>>(sql, params);
  const events = async (kind: string) => (await rows('select body from webhook_events where organization_id = $1 and event_kind = $2', [org.id, kind]))
    .map((r) => JSON.parse(r.body as string));
  const take = async (name: string) => {
    const r = await api('POST', `/database/${dbId}/backup`, { name });
    assert.equal(r.status, 201, r.raw);
    return eventually(async () => { const b = (await api('GET', `/database/${dbId}/backup/${r.body.id}`)).body; return b.status !== 'QUEUED' && b.status !== 'RUNNING' ? b : null; }, 20_000);
  };

  before(async () => {
    s3 = await startS3Server({ bucket: 'berth-backups' });
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    await subscribeTasks(t.ctx, ['deployments.run', 'deployments.sweep', 'backups.take', 'backups.drill']);
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    const created = await api('POST', `/environment/${env.id}/database`, { name: 'ledger', type: 'POSTGRESQL', version: '15', mode: 'CONTAINER' });
    dbId = created.body.id;
    await api('POST', `/database/${dbId}/deploy`);
    await eventually(async () => (await api('GET', `/database/${dbId}/status`)).body.state === 'RUNNING', 20_000);
    // a webhook on every event: the events are recorded as its deliveries
    const hook = await api('POST', `/organization/${org.id}/webhook`, { target_url: 'http://127.0.0.1:9/hook', kind: 'STANDARD', events: ['BACKUP_FAILED', 'BACKUP_SUCCEEDED', 'BACKUP_OVERDUE', 'BACKUP_DRILL_FAILED'] });
    assert.equal(hook.status, 201, hook.raw);
  });
  after(async () => {
    await t?.close();
    await s3?.stop();
  });

  test('a policy\'s due slot queues one SCHEDULED backup, however many visits see it', async () => {
    assert.equal((await api('PUT', `/database/${dbId}/backupPolicy`, { schedule: '0 3 * * *' })).status, 200);
    await rows("update backup_policies set last_run_at = now() - interval '2 days' where database_id = $1", [dbId]);
    await Promise.all([t.ctx.services.backupLifecycle.visit(), t.ctx.services.backupLifecycle.visit()]);
    await t.ctx.services.backupLifecycle.visit();
    const scheduled = await rows("select id from database_backups where database_id = $1 and trigger = 'SCHEDULED'", [dbId]);
    assert.equal(scheduled.length, 1);
    const done = await eventually(async () => (await api('GET', `/database/${dbId}/backup/${scheduled[0]!.id}`)).body.status === 'SUCCEEDED', 20_000);
    assert.ok(done);
    assert.equal((await events('BACKUP_SUCCEEDED')).length >= 1, true);
  });

  test('retention keeps exactly what the policy says, rows and objects; manual backups are not its business', async () => {
    assert.equal((await api('PUT', `/database/${dbId}/backupPolicy`, { schedule: '0 3 * * *', keep_daily: 2, keep_weekly: 1, keep_monthly: 2 })).status, 200);
    await rows("delete from database_backups where database_id = $1 and trigger = 'SCHEDULED'", [dbId]);
    const manual = await take('by-hand');
    await rows("update database_backups set created_at = '2026-01-05T03:00:00Z' where id = $1", [manual.id]);
    // ten scheduled backups, one a day from 2026-02-20 to 2026-03-01, each with its object
    const ids: string[] = [];
    for (let day = 0; day < 10; day++) {
      const at = new Date(Date.UTC(2026, 1, 20 + day, 3)).toISOString();
      const [row] = await rows(`insert into database_backups (organization_id, database_id, name, trigger, status, storage, location, object_key, created_at, finished_at)
        values ($1, $2, $3, 'SCHEDULED', 'SUCCEEDED', 'LOCAL', 'LOCAL', 'x', $4, $4) returning id`, [org.id, dbId, `s${day}`, at]);
      const key = `${org.id}/${dbId}/${row!.id}.dump.gz.enc`;
      await rows('update database_backups set object_key = $2 where id = $1', [row!.id, key]);
      await mkdir(dirname(join(t.config.backupDir, key)), { recursive: true });
      await writeFile(join(t.config.backupDir, key), 'x');
      ids.push(row!.id as string);
    }
    await t.ctx.services.backupLifecycle.visit();
    const left = (await rows("select name from database_backups where database_id = $1 and trigger = 'SCHEDULED' order by created_at", [dbId])).map((r) => r.name);
    // days: 03-01, 02-28; week (ISO, ending Sunday 03-01): 03-01; months: March (03-01), February (02-28)
    assert.deepEqual(left, ['s8', 's9']);
    await access(join(t.config.backupDir, `${org.id}/${dbId}/${ids[9]}.dump.gz.enc`));
    await assert.rejects(access(join(t.config.backupDir, `${org.id}/${dbId}/${ids[0]}.dump.gz.enc`)), 'a deleted backup\'s object is gone');
    assert.equal((await api('GET', `/database/${dbId}/backup/${manual.id}`)).status, 200, 'the manual backup stays');
    await rows("delete from database_backups where database_id = $1 and trigger = 'SCHEDULED'", [dbId]);
  });

  test('berth killed mid-backup: the visit makes it FAILED, one BACKUP_FAILED event and one open incident however often', async () => {
    const [stuck] = await rows(`insert into database_backups (organization_id, database_id, name, trigger, status, storage, location, object_key, heartbeat_at, started_at)
      values ($1, $2, 'killed', 'MANUAL', 'RUNNING', 'LOCAL', 'LOCAL', $3, now() - interval '10 minutes', now() - interval '11 minutes') returning id`,
    [org.id, dbId, `${org.id}/${dbId}/killed.dump.gz.enc`]);
    await t.ctx.services.backupLifecycle.visit();
    const b = (await api('GET', `/database/${dbId}/backup/${stuck!.id}`)).body;
    assert.equal(b.status, 'FAILED');
    assert.match(b.error, /berth stopped while the backup ran/);
    const failed = await events('BACKUP_FAILED');
    assert.equal(failed.length, 1);
    assert.equal(failed[0].data?.backup_id ?? failed[0].payload?.backup_id ?? JSON.stringify(failed[0]).includes(stuck!.id as string), failed[0].data?.backup_id ? stuck!.id : failed[0].payload?.backup_id ? stuck!.id : true);
    await t.ctx.services.backupLifecycle.visit();
    assert.equal((await events('BACKUP_FAILED')).length, 1, 'a FAILED backup is not failed again');
    const open = async () => (await rows("select incident_key from notification_incidents where organization_id = $1 and resolved_at is null and incident_key like 'BACKUP_FAILED:%'", [org.id]))
      .map((r) => r.incident_key);
    assert.deepEqual(await open(), [`BACKUP_FAILED:${dbId}`]);
    // the next success resolves it
    assert.equal((await take('recovered')).status, 'SUCCEEDED');
    assert.deepEqual(await open(), []);
  });

  test('no success within 1.5 × the schedule: OVERDUE once, cleared by the next success', async () => {
    assert.equal((await api('PUT', `/database/${dbId}/backupPolicy`, { schedule: '0 3 * * *' })).status, 200);
    await rows("update database_backups set finished_at = now() - interval '3 days' where database_id = $1", [dbId]);
    await rows("update backup_policies set last_run_at = now(), created_at = now() - interval '10 days' where database_id = $1", [dbId]);
    const before = (await events('BACKUP_OVERDUE')).length;
    await t.ctx.services.backupLifecycle.visit();
    await t.ctx.services.backupLifecycle.visit();
    assert.equal((await events('BACKUP_OVERDUE')).length, before + 1);
    assert.ok((await api('GET', `/database/${dbId}/backupPolicy`)).body.overdue_since);
    assert.equal((await take('catch-up')).status, 'SUCCEEDED');
    await t.ctx.services.backupLifecycle.visit();
    assert.equal((await api('GET', `/database/${dbId}/backupPolicy`)).body.overdue_since, null);
    assert.equal((await api('DELETE', `/database/${dbId}/backupPolicy`)).status, 204);
  });

  test('storage: LOCAL by default; S3 on loopback checked before saving, secret never returned; backups go there; the old store\'s backups answer 409', async () => {
    const local = await api('GET', `/organization/${org.id}/backupStorage`, undefined, await org.tokenFor('VIEWER'));
    assert.deepEqual(local.body, { kind: 'LOCAL', location: 'LOCAL', s3: null, updated_at: null });
    const before = await take('on-local');

    const s3Body = { kind: 'S3', s3: { endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, prefix: 'prod', access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey } };
    expectErrorBody(await api('PUT', `/organization/${org.id}/backupStorage`, s3Body, await org.tokenFor('DEVOPS')), 403);
    const wrong = await api('PUT', `/organization/${org.id}/backupStorage`, { ...s3Body, s3: { ...s3Body.s3, secret_access_key: 'wrong' } });
    assert.match(expectErrorBody(wrong, 400).message, /^The backup storage does not work: .*signature|^The backup storage does not work: /i);
    assert.equal((await api('GET', `/organization/${org.id}/backupStorage`)).body.kind, 'LOCAL', 'a failing setting is not saved');
    expectErrorBody(await api('PUT', `/organization/${org.id}/backupStorage`, { kind: 'S3' }), 400);
    expectErrorBody(await api('PUT', `/organization/${org.id}/backupStorage`, { ...s3Body, s3: { ...s3Body.s3, bucket: 'Not_A_Bucket' } }), 400);

    const saved = await api('PUT', `/organization/${org.id}/backupStorage`, s3Body);
    assert.equal(saved.status, 200, saved.raw);
    assert.equal(saved.body.location, `s3://${s3.bucket}/prod at ${s3.endpoint}`);
    assert.equal(saved.body.s3.has_secret_access_key, true);
    assert.ok(!('secret_access_key' in saved.body.s3), 'the secret is never returned');
    assert.deepEqual((await api('POST', `/organization/${org.id}/backupStorage/check`)).body, { ok: true, message: null });
    // the same key id without a secret keeps the stored secret
    const kept = await api('PUT', `/organization/${org.id}/backupStorage`, { kind: 'S3', s3: { ...s3Body.s3, secret_access_key: undefined } });
    assert.equal(kept.status, 200, kept.raw);

    const there = await take('on-s3');
    assert.equal(there.status, 'SUCCEEDED', there.error);
    assert.equal(there.storage, saved.body.location);
    const download = await api('GET', `/database/${dbId}/backup/${there.id}/download`);
    assert.equal(download.status, 200);
    assert.match(download.raw, /simulated/i);

    // a byte flipped in the bucket: the drill cannot open it and says so
    const object = join(s3.directory, s3.bucket, 'prod', org.id, dbId, `${there.id}.dump.gz.enc._S3rver_object`);
    const bytes = await readFile(object);
    bytes.writeUInt8(bytes.readUInt8(100) ^ 0xff, 100);
    await writeFile(object, bytes);
    assert.equal((await api('POST', `/database/${dbId}/backup/${there.id}/drill`)).status, 202);
    const drilled = await eventually(async () => (await api('GET', `/database/${dbId}/backup/${there.id}`)).body.drill, 20_000);
    assert.ok(drilled.error, 'the drill of a damaged object fails');
    assert.match(expectErrorBody(await api('POST', `/database/${dbId}/backup/${before.id}/restore`, {}), 409).message, /kept in LOCAL/);
    assert.equal((await api('DELETE', `/database/${dbId}/backup/${there.id}`)).status, 204);
    assert.equal(s3.pendingUploads().length, 0);
  });

  test('an S3 endpoint on a private address is refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS allows it', async () => {
    const strict = await startTestApp();
    try {
      const other = await seedOrganization(strict);
      const r = await strict.request('PUT', `/organization/${other.id}/backupStorage`, {
        token: other.token, body: { kind: 'S3', s3: { endpoint: s3.endpoint, bucket: s3.bucket, access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey } },
      });
      assert.match(expectErrorBody(r, 400).message, /^s3\.endpoint: the S3 endpoint .* is a loopback, private, link-local or metadata address/);
    } finally {
      await strict.close();
    }
  });
});
