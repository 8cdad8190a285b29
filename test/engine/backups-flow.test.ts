// Backups through berth's API on the docker engine (issue 39): a PostgreSQL database deployed by
// berth, rows written with psql, a backup taken (SUCCEEDED, its object under BACKUP_DIR), the
// table dropped, the backup restored in place (after a SAFETY backup) and the same checksum read
// back; a drill restores it into a throwaway container and counts the rows; a restore into a new
// database leaves the original as it is; download gives a file pg_restore reads.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseImage, NO_DOCKER, testDocker } from '../support/docker.ts';
import { removeEnvironment, startEngineBerth, type EngineBerth } from '../support/engine-berth.ts';
import { eventually } from '../support/harness.ts';

const found = await testDocker();

interface Credentials { host: string; port: number; login: string; password: string }

function psql(c: Credentials, sql: string): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    execFile('psql', ['-h', c.host, '-p', String(c.port), '-U', c.login, '-d', 'postgres', '-w', '-v', 'ON_ERROR_STOP=1', '-tAc', sql], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PGPASSWORD: c.password, PGCONNECT_TIMEOUT: '5' }, timeout: 60_000,
    }, (err, stdout, stderr) => resolve({ ok: !err, out: `${stdout}${stderr}`.trim() }));
  });
}

async function pgRestoreList(dump: Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'berth-dump-'));
  try {
    await writeFile(join(dir, 'orders.pgdump'), dump);
    return await new Promise((resolve, reject) => {
      execFile('pg_restore', ['--list', join(dir, 'orders.pgdump')], { timeout: 30_000, maxBuffer: 8 << 20 },
        (err, stdout, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(stdout)));
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const bindable = (port: number) => new Promise<boolean>((resolve) => {
  const s = createServer();
  s.once('error', () => resolve(false));
  s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
});

describe('docker engine: database backups through the API', { skip: found ? false : NO_DOCKER, timeout: 900_000 }, () => {
  let berth: EngineBerth;
  let envId: string;
  let dbId: string;
  let creds: Credentials;
  const CHECKSUM = "select count(*) || ':' || md5(string_agg(id || '=' || v, ',' order by id)) from orders";

  const settledBackup = (id: string) => eventually(async () => {
    const b = (await berth.api('GET', `/database/${dbId}/backup/${id}`)).body;
    return b.status === 'SUCCEEDED' || b.status === 'FAILED' ? b : null;
  }, 180_000, 500);
  const settledRestore = (backupId: string, restoreId: string) => eventually(async () => {
    const r = (await berth.api('GET', `/database/${dbId}/backup/${backupId}/restore`)).body.results.find((x: { id: string }) => x.id === restoreId);
    return r && (r.status === 'SUCCEEDED' || r.status === 'FAILED') ? r : null;
  }, 300_000, 500);

  before(async () => {
    await databaseImage(found!.docker, 'POSTGRESQL', '15');
    let port = 0;
    while (!port) { const p = 20_000 + Math.floor(Math.random() * 9_000); if (await bindable(p)) port = p; }
    berth = await startEngineBerth(found!.host, { DATABASE_PUBLIC_PORTS: `${port}-${port}` });
    const org = (await berth.api('GET', '/organization')).body.results[0].id;
    const project = (await berth.api('POST', `/organization/${org}/project`, { name: `backups-${Date.now()}` })).body;
    envId = (await berth.api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT' })).body.id;
    const db = await berth.api('POST', `/environment/${envId}/database`, { name: 'orders', type: 'POSTGRESQL', version: '15', mode: 'CONTAINER', accessibility: 'PUBLIC' });
    assert.equal(db.status, 201, JSON.stringify(db.body));
    dbId = db.body.id;
    const deployed = await berth.settle((await berth.api('POST', `/database/${dbId}/deploy`)).body.id);
    assert.equal(deployed.status, 'DEPLOYED', JSON.stringify(deployed));
    creds = (await berth.api('GET', `/database/${dbId}/masterCredentials`)).body;
    await eventually(async () => (await psql(creds, 'select 1')).ok, 60_000, 500);
  }, { timeout: 600_000 });
  after(async () => {
    if (berth) await removeEnvironment(berth, found!.docker, envId);
    await berth?.close();
  });

  test('backup, drop the table, restore in place: the same rows; the drill counts them; download is a pg_restore archive', async () => {
    const made = await psql(creds, `create table orders (id int primary key, v text);
      insert into orders select g, md5(g::text) from generate_series(1, 20000) g;`);
    assert.ok(made.ok, made.out);
    const before = (await psql(creds, CHECKSUM)).out;
    assert.match(before, /^20000:[0-9a-f]{32}$/);

    const taken = await berth.api('POST', `/database/${dbId}/backup`, { name: 'known-good', message: 'before the drop' });
    assert.equal(taken.status, 201, JSON.stringify(taken.body));
    const backup = await settledBackup(taken.body.id);
    assert.equal(backup.status, 'SUCCEEDED', backup.error);
    assert.ok(backup.size > 0);

    assert.ok((await psql(creds, 'drop table orders')).ok);
    const restore = await berth.api('POST', `/database/${dbId}/backup/${backup.id}/restore`, { mode: 'IN_PLACE' });
    assert.equal(restore.status, 202, JSON.stringify(restore.body));
    const done = await settledRestore(backup.id, restore.body.id);
    assert.equal(done.status, 'SUCCEEDED', done.error);
    await eventually(async () => (await psql(creds, 'select 1')).ok, 60_000, 500);
    assert.equal((await psql(creds, CHECKSUM)).out, before);
    const safety = (await berth.api('GET', `/database/${dbId}/backup/${done.safety_backup_id}`)).body;
    assert.equal(safety.status, 'SUCCEEDED');
    assert.equal(safety.trigger, 'SAFETY');

    assert.equal((await berth.api('POST', `/database/${dbId}/backup/${backup.id}/drill`)).status, 202);
    const drilled = await eventually(async () => (await berth.api('GET', `/database/${dbId}/backup/${backup.id}`)).body.drill, 180_000, 500);
    assert.equal(drilled.error, null);
    assert.equal(Object.entries(drilled.counts).find(([table]) => /orders$/.test(table))?.[1], 20000, JSON.stringify(drilled.counts));

    const download = await fetch(`${berth.process.url}/database/${dbId}/backup/${backup.id}/download`, { headers: { authorization: `Token ${berth.token}` } });
    assert.equal(download.status, 200);
    const bytes = Buffer.from(await download.arrayBuffer());
    assert.equal(bytes.subarray(0, 5).toString('latin1'), 'PGDMP', 'a pg_dump custom-format archive');
    const listing = await pgRestoreList(bytes);
    assert.match(listing, /TABLE DATA public orders/);
  });

  test('a restore into a new database leaves the original untouched', async () => {
    const backup = (await berth.api('GET', `/database/${dbId}/backup`)).body.results.find((b: { name: string }) => b.name === 'known-good');
    const before = (await psql(creds, CHECKSUM)).out;
    assert.ok((await psql(creds, 'insert into orders values (999999, \'after the backup\')')).ok);
    const r = await berth.api('POST', `/database/${dbId}/backup/${backup.id}/restore`, { name: 'orders-copy' });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const done = await settledRestore(backup.id, r.body.id);
    assert.equal(done.status, 'SUCCEEDED', done.error);
    const after = (await psql(creds, 'select count(*) from orders')).out;
    assert.equal(after, '20001', 'the original keeps the row written after the backup');
    assert.notEqual(before, '');
    const copy = (await berth.api('GET', `/database/${done.target_database_id}`)).body;
    assert.equal(copy.name, 'orders-copy');
  });
});
