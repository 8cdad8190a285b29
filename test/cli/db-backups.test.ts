// `berth db backup|backups|restore <database>` and the backup lines of `berth status` (issue 39):
// the real binary against a berth on the simulated engine (its dumps are labelled simulated
// documents) with the backup workers running. backup --wait ends SUCCEEDED with size, checksum and
// storage; backups lists them in a table (and --json); restore goes into a new database by default
// (named, by a prefix of the id or by the backup's name) and in place only with --yes, which a
// DEVOPS token is refused (exit 4, the API's words); a service that is not a database, an unknown
// backup and a missing argument are one line with their exit codes; status shows a line per
// database whose latest backup failed, whose last drill failed or whose policy is overdue.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { subscribeTasks } from '../../src/workers/handlers.ts';
import { eventually } from '../support/harness.ts';
import { berth, seedShop, startCliServer, type CliServer } from './support.ts';

describe('berth db backups', () => {
  let s: CliServer;
  let dir: string;
  let dbId = '';
  let envId = '';
  let projectId = '';
  const run = (args: string[], env: Record<string, string> = {}) => berth(dir, args, { ...(Object.keys(env).length ? { env } : {}), timeoutMs: 60_000 });

  before(async () => {
    s = await startCliServer();
    await subscribeTasks(s.t.ctx, ['backups.take', 'backups.restore', 'backups.drill']);
    dir = s.newConfigDir();
    const shop = await seedShop(s, { project: `db-${Date.now()}`, environment: 'production' }, ['web']);
    envId = shop.environmentId;
    projectId = shop.projectId;
    dbId = (await s.api('POST', `/environment/${envId}/database`, { name: 'orders', type: 'POSTGRESQL', version: '15', mode: 'CONTAINER' })).id;
    await s.api('POST', `/database/${dbId}/deploy`);
    await eventually(async () => (await s.api('GET', `/database/${dbId}/status`)).state === 'RUNNING', 20_000);
    assert.equal((await berth(dir, ['login', s.url], { input: s.org.token })).code, 0);
    assert.equal((await berth(dir, ['context', 'set', '--project', shop.projectId, '--environment', envId])).code, 0);
  });
  after(async () => { await s.close(); });

  test('backup --wait: SUCCEEDED with its size, checksum and storage; backups lists it', async () => {
    const r = await run(['db', 'backup', 'orders', '--name', 'before-migration', '--message', 'v2 schema', '--wait']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^orders: backing up as before-migration \([0-9a-f-]{36}\)\n✔ SUCCEEDED: \d+(\.\d)? (B|KiB), sha256 [0-9a-f]{64}, kept at LOCAL\n$/);
    const listed = await run(['db', 'backups', 'orders']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^\s*ID\s+NAME\s+STATUS\s+TRIGGER\s+CREATED\s+SIZE\s+CHECKSUM\s+STORAGE\s+VERIFIED\s+ERROR\n/);
    assert.match(listed.stdout, /^\s*[0-9a-f]{8}\s+before-migration\s+SUCCEEDED\s+manual\s+\d+s ago\s+\d+(\.\d)? (B|KiB)\s+[0-9a-f]{12}\s+LOCAL\s+no$/m);
    const json = JSON.parse((await run(['db', 'backups', 'orders', '--json'])).stdout);
    assert.deepEqual(json.map((b: { name: string; status: string; message: string }) => [b.name, b.status, b.message]), [['before-migration', 'SUCCEEDED', 'v2 schema']]);
  });

  test('backup without --wait: queued, with a default name', async () => {
    const r = await run(['db', 'backup', 'orders', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const made = JSON.parse(r.stdout);
    assert.match(made.name, /^manual-\d{8}-\d{6}$/);
    assert.equal(made.status, 'QUEUED');
    await eventually(async () => (await s.api('GET', `/database/${dbId}/backup/${made.id}`)).status === 'SUCCEEDED', 20_000);
    await s.api('DELETE', `/database/${dbId}/backup/${made.id}`);
  });

  test('restore into a new database by a prefix of the id, and by the backup\'s name', async () => {
    const b = (await s.api('GET', `/database/${dbId}/backup`)).results[0];
    const r = await run(['db', 'restore', 'orders', b.id.slice(0, 8), '--name', 'orders-copy', '--wait']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^orders: restoring before-migration into the new database orders-copy \([0-9a-f-]{36}\)\n✔ SUCCEEDED: orders-copy holds before-migration\n$/);
    const byName = await run(['db', 'restore', 'orders', 'before-migration', '--json']);
    assert.equal(byName.code, 0, byName.stderr);
    const queued = JSON.parse(byName.stdout);
    assert.equal(queued.mode, 'NEW_DATABASE');
    assert.notEqual(queued.target_database_id, dbId);
    // settled before the next test: the API refuses an in-place restore while any restore of the database is under way
    await eventually(async () => {
      const rs = (await s.api('GET', `/database/${dbId}/backup/${b.id}/restore`)).results;
      return rs.every((x: { status: string }) => x.status === 'SUCCEEDED' || x.status === 'FAILED');
    }, 30_000);
  });

  test('in place: asks for --yes, refused to a DEVOPS token with the API\'s words, done for the owner after a safety backup', async () => {
    const noYes = await run(['db', 'restore', 'orders', 'before-migration', '--in-place']);
    assert.equal(noYes.code, 2);
    assert.equal(noYes.stderr, 'berth: --in-place replaces what orders holds now (after a safety backup of it): add --yes to go ahead\n');
    // BERTH_URL sessions keep no context: the place is given
    const devops = await run(['db', 'restore', 'orders', 'before-migration', '--in-place', '--yes', '-p', projectId, '-e', envId], { BERTH_URL: s.url, BERTH_TOKEN: await s.org.tokenFor('DEVOPS') });
    assert.equal(devops.code, 4, devops.stderr);
    assert.match(devops.stderr, /^berth: 403 Forbidden: .+\(request [^)]+\)\n$/);
    const r = await run(['db', 'restore', 'orders', 'before-migration', '--in-place', '--yes', '--wait']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /restoring before-migration in place \(a safety backup first\)[\s\S]*✔ SUCCEEDED: orders holds before-migration\n$/);
    const all = (await s.api('GET', `/database/${dbId}/backup`)).results;
    assert.ok(all.some((b: { trigger: string }) => b.trigger === 'SAFETY'), 'a SAFETY backup was taken');
  });

  test('refusals are one line with their exit codes', async () => {
    const app = await run(['db', 'backup', 'web']);
    assert.equal(app.code, 2);
    assert.equal(app.stderr, 'berth: web is an application: only databases have backups\n');
    const unknown = await run(['db', 'restore', 'orders', 'nope-nope']);
    assert.equal(unknown.code, 4);
    assert.equal(unknown.stderr, 'berth: no backup "nope-nope" among the newest backups of orders (see berth db backups orders)\n');
    const missing = await run(['db', 'restore', 'orders']);
    assert.equal(missing.code, 2);
    const help = await run(['db', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /backup \[options\] <database>/);
    assert.match(help.stdout, /berth db restore orders 3f2a6c1e --in-place --yes --wait/);
  });

  test('status: a line per database whose latest backup failed, whose last drill failed or whose policy is overdue', async () => {
    const quiet = await run(['status']);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.ok(!quiet.stdout.includes('backups '), quiet.stdout);
    await s.t.ctx.db.query(
      `insert into database_backups (organization_id, database_id, name, trigger, status, storage, location, object_key, error, finished_at)
       values ($1, $2, 'nightly', 'SCHEDULED', 'FAILED', 'LOCAL', 'LOCAL', 'x', 'pg_dump: connection refused', now())`, [s.org.id, dbId]);
    await s.t.ctx.db.query(`update database_backups set drill_error = 'the table orders is missing', drill_counts = '{}'::jsonb where database_id = $1 and name = 'before-migration'`, [dbId]);
    await s.api('PUT', `/database/${dbId}/backupPolicy`, { schedule: '0 3 * * *' });
    await s.t.ctx.db.query(`update backup_policies set overdue_since = now() - interval '2 days' where database_id = $1`, [dbId]);
    const r = await run(['status']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^backups orders: latest backup nightly FAILED: pg_dump: connection refused \(\d+s ago\)$/m);
    assert.match(r.stdout, /^backups orders: last restore drill \(of before-migration\) failed: the table orders is missing \(\d+s ago\)$/m);
    assert.match(r.stdout, /^backups orders: no backup succeeded within 1\.5 × the schedule \(0 3 \* \* \*\) \(2d ago\)$/m);
    const json = JSON.parse((await run(['status', '--json'])).stdout);
    assert.deepEqual(json.backup_alerts.map((a: { database: string; kind: string }) => [a.database, a.kind]),
      [['orders', 'BACKUP_FAILED'], ['orders', 'BACKUP_DRILL_FAILED'], ['orders', 'BACKUP_OVERDUE']]);
  });
});
