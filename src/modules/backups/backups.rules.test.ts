// Unit tests of the backup rules: grandfather-father-son retention, schedules (valid, at most
// hourly, due, overdue after 1.5 × the widest gap), refusals and names.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { automaticName, backupRefusal, downloadName, objectKey, overdueAfterMs, restoredName, retentionVictims, scheduleProblem, slotDue } from './backups.rules.ts';

const at = (iso: string, id = iso) => ({ id, created_at: new Date(iso) });

describe('retention (grandfather-father-son)', () => {
  // one backup a day at 03:00 for 100 days, from 2026-01-01 (a Thursday)
  const daily = Array.from({ length: 100 }, (_, i) => at(new Date(Date.UTC(2026, 0, 1 + i, 3)).toISOString()));
  const kept = (victims: string[]) => daily.filter((b) => !victims.includes(b.id)).map((b) => b.id.slice(0, 10)).sort();

  test('keeps the newest of each of the last N days, ISO weeks and months', () => {
    const victims = retentionVictims(daily, { keep_daily: 7, keep_weekly: 4, keep_monthly: 3 });
    assert.deepEqual(kept(victims), [
      // months: the newest of April (the 10th, the newest of all), March (31st) and February (28th)
      '2026-02-28', '2026-03-31',
      // weeks (ISO, ending on Sundays): the newest of 04-10's week and of the weeks ending 04-05, 03-29, 03-22
      '2026-03-22', '2026-03-29', '2026-04-05',
      // days: the last seven
      '2026-04-04', '2026-04-06', '2026-04-07', '2026-04-08', '2026-04-09', '2026-04-10',
    ].sort());
  });

  test('a backup kept by any rule stays; several on one day keep only the newest of the day', () => {
    const sameDay = [at('2026-05-01T01:00:00Z', 'a'), at('2026-05-01T13:00:00Z', 'b'), at('2026-05-01T23:00:00Z', 'c')];
    assert.deepEqual(retentionVictims(sameDay, { keep_daily: 1, keep_weekly: 0, keep_monthly: 0 }).sort(), ['a', 'b']);
  });

  test('zeros everywhere still keep the newest backup; none to judge, none deleted', () => {
    assert.deepEqual(retentionVictims(daily.slice(0, 3), { keep_daily: 0, keep_weekly: 0, keep_monthly: 0 }).sort(), [daily[0]!.id, daily[1]!.id].sort());
    assert.deepEqual(retentionVictims([], { keep_daily: 7, keep_weekly: 4, keep_monthly: 6 }), []);
  });

  test('the order of the input does not matter', () => {
    const shuffled = [...daily].reverse();
    const policy = { keep_daily: 3, keep_weekly: 2, keep_monthly: 2 };
    assert.deepEqual(retentionVictims(shuffled, policy).sort(), retentionVictims(daily, policy).sort());
  });
});

describe('schedules', () => {
  test('a valid cron at most hourly is accepted; the problem names the field', () => {
    assert.equal(scheduleProblem('0 3 * * *', 'schedule'), null);
    assert.equal(scheduleProblem('17 * * * *', 'schedule'), null);
    assert.match(scheduleProblem('*/5 * * * *', 'schedule') ?? '', /^schedule: .*60 minutes|^schedule: /);
    assert.match(scheduleProblem('not cron', 'drill_schedule') ?? '', /^drill_schedule: /);
  });

  test('a slot is due once it passed since the last run', () => {
    const since = new Date('2026-03-01T02:00:00Z');
    assert.equal(slotDue('0 3 * * *', since, new Date('2026-03-01T02:59:00Z')), false);
    assert.equal(slotDue('0 3 * * *', since, new Date('2026-03-01T03:00:00Z')), true);
  });

  test('overdue after 1.5 × the widest gap between slots', () => {
    assert.equal(overdueAfterMs('0 3 * * *'), 1.5 * 86_400_000);
    assert.equal(overdueAfterMs('0 * * * *'), 1.5 * 3_600_000);
    // weekdays only: the weekend gap (Friday 03:00 → Monday 03:00) is the one that counts
    assert.equal(overdueAfterMs('0 3 * * 1-5'), 1.5 * 3 * 86_400_000);
    assert.equal(overdueAfterMs('nonsense'), null);
  });
});

describe('refusals and names', () => {
  test('only CONTAINER databases are backed up by berth', () => {
    assert.equal(backupRefusal({ mode: 'CONTAINER', type: 'POSTGRESQL' }), null);
    assert.match(backupRefusal({ mode: 'MANAGED', type: 'POSTGRESQL' }) ?? '', /MANAGED database is backed up by its provider/);
  });

  test('a download\'s file name is safe for a header whatever the database is called', () => {
    const at = new Date('2026-03-01T03:04:05Z');
    assert.equal(downloadName('orders', 'POSTGRESQL', at), 'orders-20260301-030405.pgdump');
    assert.equal(downloadName('café "main"\r\nx: y', 'MYSQL', at), 'cafe_main_x_y-20260301-030405.sql');
    assert.equal(downloadName('数据库', 'REDIS', at), 'database-20260301-030405.rdb');
  });

  test('object keys, automatic names and restored names', () => {
    assert.equal(objectKey('o', 'd', 'b'), 'o/d/b.dump.gz.enc');
    assert.equal(automaticName('SCHEDULED', new Date('2026-03-01T03:00:00Z')), 'scheduled 2026-03-01 03:00');
    assert.equal(automaticName('SAFETY', new Date('2026-03-01T03:00:00Z')), 'before restore 2026-03-01 03:00');
    assert.equal(restoredName('orders', new Date('2026-03-01T03:04:05Z')), 'orders-restored-20260301-030405');
    const long = restoredName('x'.repeat(63), new Date('2026-03-01T03:04:05Z'));
    assert.equal(long.length, 63);
    assert.ok(long.endsWith('-restored-20260301-030405'));
  });
});
