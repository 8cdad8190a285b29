// timestamptz as berth reads it (timestamps.ts): the same instant and the same ISO text as the
// general readers gave, for every shape PostgreSQL writes; anything else left to those readers;
// and both drivers (the test database: PGlite, or PostgreSQL with DATABASE_URL) using it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DbTimestamp, readUtcTimestamp, timestamptzReader } from './timestamps.ts';
import { shippedTimestamptzReader } from './postgres.ts';
import { testDatabase } from '../../test/support/db.ts';

/** what pg read before: the reader it ships (postgres-date), formatted by Date#toISOString */
const general = shippedTimestamptzReader;

/** a UTC instant as PostgreSQL writes it, with `fraction` digits of the microseconds */
function pgText(ms: number, micros: number, fraction: number): string {
  const iso = new Date(ms).toISOString(); // YYYY-MM-DDTHH:MI:SS.mmmZ
  const f = String(micros).padStart(6, '0').slice(0, fraction).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${f ? '.' + f : ''}+00`;
}

describe('reading a UTC timestamptz by position', () => {
  test('the shapes PostgreSQL writes give the instant and the ISO text postgres-date and Date gave', () => {
    for (const text of [
      '2026-11-25 19:01:27.123456+00', '2026-11-25 19:01:27.1239+00', '2026-11-25 19:01:27.12+00', '2026-11-25 19:01:27.5+00',
      '2026-11-25 19:01:27+00', '2024-02-29 23:59:59.999999+00', '1970-01-01 00:00:00+00', '0100-01-01 00:00:00+00', '9999-12-31 23:59:59.999999+00',
    ]) {
      const read = readUtcTimestamp(text);
      assert.ok(read instanceof DbTimestamp && read instanceof Date, text);
      assert.equal(read.getTime(), general(text).getTime(), text);
      assert.equal(read.toISOString(), general(text).toISOString(), text);
    }
  });

  test('thousands of random instants agree with the general reader (milliseconds truncated, not rounded)', () => {
    const from = Date.UTC(100, 0, 1);
    const to = Date.UTC(9999, 11, 31);
    for (let i = 0; i < 5000; i++) {
      const ms = Math.floor(from + Math.random() * (to - from));
      const text = pgText(ms - (ms % 1000) + Math.floor(Math.random() * 1000), Math.floor(Math.random() * 1e6), 1 + (i % 6));
      const read = readUtcTimestamp(text)!;
      assert.equal(read.toISOString(), general(text).toISOString(), text);
      assert.equal(read.getTime(), general(text).getTime(), text);
    }
  });

  test('other shapes are left to the general reader', () => {
    for (const text of [
      '2026-11-25 20:01:27.123456+01', '2026-11-25 19:01:27+05:30', '2026-11-25 11:01:27-08', '2026-11-25 19:01:27+00:30',
      'infinity', '-infinity', '2026-11-25 19:01:27+00 BC', '12026-11-25 19:01:27+00', '0099-11-25 19:01:27+00',
      '2026-11-25T19:01:27+00', '2026-1x-25 19:01:27+00', '2026-11-25 19:01:27.+00', '2026-11-25 19:01:27.12a4+00', '2026-11-25',
    ]) assert.equal(readUtcTimestamp(text), undefined, text);
    const reader = timestamptzReader(general);
    assert.equal(reader('2026-11-25 20:01:27.5+01').toISOString(), '2026-11-25T19:01:27.500Z');
  });

  test('a read timestamp is a Date: arithmetic, comparison and JSON as before', () => {
    const t = readUtcTimestamp('2026-11-25 19:01:27.123456+00')!;
    assert.equal(JSON.stringify({ t }), '{"t":"2026-11-25T19:01:27.123Z"}');
    assert.equal(new Date(t).getTime(), t.getTime());
    assert.ok(t < new Date('2026-11-25T19:01:28Z') && +t - Date.UTC(2026, 10, 25) === 68_487_123);
    assert.equal(t.getUTCHours(), 19);
  });
});

describe('the test database reads timestamptz this way', () => {
  // the test database is the process's, shared with other test files: not closed here
  test('a UTC session gives DbTimestamps; another time zone the same instant through the general reader', async () => {
    const { db } = await testDatabase();
    const [row] = await db.query<{ t: Date }>(`select '2026-01-02 03:04:05.123456+00'::timestamptz as t`);
    assert.ok(row!.t instanceof DbTimestamp);
    assert.equal(row!.t.toISOString(), '2026-01-02T03:04:05.123Z');
    const zoned = await db.transaction(async (tx) => {
      await tx.exec(`set local timezone = 'Asia/Kolkata'`);
      return tx.query<{ t: Date }>(`select $1::timestamptz as t`, ['2026-01-02T03:04:05.123Z']);
    });
    assert.ok(!(zoned[0]!.t instanceof DbTimestamp));
    assert.equal(zoned[0]!.t.toISOString(), '2026-01-02T03:04:05.123Z');
  });
});
