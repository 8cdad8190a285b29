// Sharded monotonic counters: concurrent bumps all count, the sum is read back per label set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { testDatabase } from '../../test/support/db.ts';
import { bumpCounter, readCounters } from './counters.ts';

test('200 concurrent bumps over several rows read back as one exact sum per label set', async () => {
  const { db } = await testDatabase();
  const name = `test_counter_${randomUUID().slice(0, 8)}`;
  await Promise.all(Array.from({ length: 200 }, (_, i) => db.transaction((tx) => bumpCounter(tx, name, { outcome: i % 4 === 0 ? 'failed' : 'ok', b: 'x' }))));
  assert.deepEqual(await readCounters(db, name), [
    { labels: { b: 'x', outcome: 'failed' }, value: 50 },
    { labels: { b: 'x', outcome: 'ok' }, value: 150 },
  ]);
  const rows = await db.query<{ n: number }>('select count(*)::int as n from metric_counters where name = $1', [name]);
  assert.ok(rows[0]!.n > 2, 'the bumps were spread over several rows');
});
