import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DatabasePlan } from '../plan.ts';
import { countsCommand, dumpCommand, parseCounts, readyCommand, redisSwapScript, restoreCommand } from './backup-commands.ts';

const plan = (type: DatabasePlan['type'], port: number): DatabasePlan => ({
  type, version: '1', mode: 'CONTAINER', port, login: 'berth_ab12', password: 's3cr"et pw$', host: 'db', publicAccess: false, publicPort: null,
});
const TYPES = [['POSTGRESQL', 5432], ['MYSQL', 3306], ['MONGODB', 27017], ['REDIS', 6379]] as const;

test('the password reaches the tools through the environment, never their arguments', () => {
  for (const [type, port] of TYPES) {
    const db = plan(type, port);
    for (const c of [dumpCommand(db), restoreCommand(db, '/data'), countsCommand(db), readyCommand(db)]) {
      assert.ok(!c.cmd.join(' ').includes('s3cr'), `${type}: ${c.cmd.join(' ')}`);
      assert.ok(Object.values(c.env).some((v) => v.includes('s3cr')), `${type} passes the password in its environment`);
    }
  }
  assert.equal(dumpCommand(plan('MONGODB', 27017)).env.BERTH_MONGO_URI, 'mongodb://berth_ab12:s3cr%22et%20pw%24@127.0.0.1:27017/?authSource=admin');
});

test('the native tools: pg_dump -Fc, mysqldump --single-transaction with routines, mongodump --archive, BGSAVE', () => {
  assert.deepEqual(dumpCommand(plan('POSTGRESQL', 5432)).cmd, ['pg_dump', '--format=custom', '--no-password']);
  assert.match(dumpCommand(plan('MYSQL', 3306)).cmd[2]!, /mysqldump .*--single-transaction --routines --events --triggers/);
  assert.match(dumpCommand(plan('MONGODB', 27017)).cmd[2]!, /mongodump --config="\$cfg" --archive/);
  assert.match(dumpCommand(plan('REDIS', 6379)).cmd[2]!, /bgsave schedule[\s\S]*exec cat "\$dir\/\$file"$/);
  const pgRestore = restoreCommand(plan('POSTGRESQL', 5432), '/var/lib/postgresql/data').cmd;
  for (const flag of ['--clean', '--if-exists', '--single-transaction', '--exit-on-error']) assert.ok(pgRestore.includes(flag), flag);
  assert.match(restoreCommand(plan('MONGODB', 27017), '/data/db').cmd[2]!, /mongorestore .*--archive --drop/);
  assert.match(restoreCommand(plan('REDIS', 6379), '/data').cmd[2]!, /redis-check-rdb '\/data\/\.berth-restore\.rdb'/);
});

test('a drill\'s Redis has no password; the swap script rolls back and rewrites the append-only file', () => {
  assert.equal(countsCommand(plan('REDIS', 6379), true).env.REDISCLI_AUTH, undefined);
  assert.match(restoreCommand(plan('REDIS', 6379), '/data', true).cmd[2]!, /touch '\/data\/\.berth-ready'/);
  const swap = redisSwapScript('/data');
  assert.match(swap, /trap rollback EXIT/);
  assert.match(swap, /--appendonly no/);
  assert.match(swap, /config set appendonly yes/);
});

test('counts: tab-separated names and numbers; Redis keys summed over its databases', () => {
  assert.deepEqual(parseCounts('POSTGRESQL', 'items\t10000\nsales.orders\t3\n\n'), { items: 10000, 'sales.orders': 3 });
  assert.deepEqual(parseCounts('MYSQL', 'berth.items\t2000\n'), { 'berth.items': 2000 });
  assert.deepEqual(parseCounts('MONGODB', ''), {});
  assert.deepEqual(parseCounts('REDIS', '# Keyspace\r\ndb0:keys=500,expires=0,avg_ttl=0\r\ndb3:keys=2,expires=1,avg_ttl=10\r\n'), { keys: 502 });
  assert.deepEqual(parseCounts('REDIS', '# Keyspace\r\n'), { keys: 0 });
});
