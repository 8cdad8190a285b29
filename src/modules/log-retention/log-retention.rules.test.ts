// Unit tests of what retention keeps and how a prune is paced (log-retention.rules.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../config/config.ts';
import {
  ageCutoff, excessLines, expectedKept, leaseSeconds, nextBatchSize, retentionDisabled, retentionSettings, shouldVacuum, workBudgetMs,
  type RuntimeLine,
} from './log-retention.rules.ts';

const NOW = new Date('2026-11-26T12:00:00Z');
const daysAgo = (d: number, ms = 0) => new Date(NOW.getTime() - d * 86_400_000 + ms);
const line = (id: number, containerId: string | null, createdAt: Date): RuntimeLine => ({ id, containerId, createdAt });
const sorted = (s: Set<number>) => [...s].sort((a, b) => a - b);

test('settings: the defaults, the names, and 0 turning a limit off', () => {
  const s = retentionSettings(loadConfig({}));
  assert.deepEqual(s, { maxAgeDays: 14, linesPerService: 100_000, batch: 5000, intervalSeconds: 60 });
  const set = retentionSettings(loadConfig({ LOG_RETENTION_DAYS: '3', LOG_RETENTION_LINES_PER_SERVICE: '50000', LOG_PRUNE_BATCH: '200', LOG_PRUNE_INTERVAL_SECONDS: '10' }));
  assert.deepEqual(set, { maxAgeDays: 3, linesPerService: 50_000, batch: 200, intervalSeconds: 10 });
  assert.equal(retentionDisabled(s), false);
  assert.equal(retentionDisabled({ ...s, maxAgeDays: 0 }), false);
  assert.equal(retentionDisabled({ ...s, maxAgeDays: 0, linesPerService: 0 }), true);
  assert.throws(() => loadConfig({ LOG_PRUNE_BATCH: '0' }), /LOG_PRUNE_BATCH must be between 1 and 100000/);
  assert.throws(() => loadConfig({ LOG_RETENTION_DAYS: '-1' }), /LOG_RETENTION_DAYS must be an integer/);
  assert.throws(() => loadConfig({ LOG_PRUNE_INTERVAL_SECONDS: '0' }), /LOG_PRUNE_INTERVAL_SECONDS must be between 1 and 86400/);
});

test('the age cutoff; none without an age limit', () => {
  assert.deepEqual(ageCutoff(NOW, 14), new Date('2026-11-12T12:00:00Z'));
  assert.equal(ageCutoff(NOW, 0), null);
});

test('services over their count, largest excess first; none without a count limit', () => {
  const counts = [{ serviceId: 'a', lines: 100 }, { serviceId: 'b', lines: 250 }, { serviceId: 'c', lines: 101 }, { serviceId: 'd', lines: 250 }];
  assert.deepEqual(excessLines(counts, 100), [{ serviceId: 'b', excess: 150 }, { serviceId: 'd', excess: 150 }, { serviceId: 'c', excess: 1 }]);
  assert.deepEqual(excessLines(counts, 0), []);
  assert.deepEqual(excessLines(counts, 1000), []);
});

test('batches: never more than one batch a statement, never negative', () => {
  assert.equal(nextBatchSize(12_000, 5000), 5000);
  assert.equal(nextBatchSize(1234, 5000), 1234);
  assert.equal(nextBatchSize(0, 5000), 0);
  assert.equal(nextBatchSize(-3, 5000), 0);
});

test('pace: half the interval to work, at most 5 minutes; the lease outlives a missed interval', () => {
  assert.equal(workBudgetMs(60), 30_000);
  assert.equal(workBudgetMs(86_400), 300_000);
  assert.equal(leaseSeconds(60), 150);
  assert.ok(leaseSeconds(10) * 1000 > 10_000 + workBudgetMs(10));
});

test('vacuum: on PGlite only, after a fifth of the table and at least a batch', () => {
  assert.equal(shouldVacuum('postgres', 1_000_000, 100, 5000), false);
  assert.equal(shouldVacuum('pglite', 4999, 0, 5000), false);
  assert.equal(shouldVacuum('pglite', 5000, 0, 5000), true);
  assert.equal(shouldVacuum('pglite', 19_999, 100_000, 5000), false);
  assert.equal(shouldVacuum('pglite', 20_000, 100_000, 5000), true);
});

test('kept by age: older lines go, except each replica\'s last instant and the last instant of lines without one', () => {
  const lines = [
    line(1, 'a', daysAgo(20)), line(2, 'a', daysAgo(15)), line(3, 'a', daysAgo(1)),
    // b stopped writing 30 days ago: its last instant (two lines share it) stays
    line(4, 'b', daysAgo(31)), line(5, 'b', daysAgo(30)), line(6, 'b', daysAgo(30)),
    // lines recorded before they named their replica
    line(7, null, daysAgo(40)), line(8, null, daysAgo(39)),
  ];
  assert.deepEqual(sorted(expectedKept(lines, { maxAgeDays: 14, linesPerService: 0 }, NOW)), [3, 5, 6, 8]);
  assert.deepEqual(sorted(expectedKept(lines, { maxAgeDays: 0, linesPerService: 0 }, NOW)), [1, 2, 3, 4, 5, 6, 7, 8]);
  // a line exactly at the cutoff is not older than it
  assert.deepEqual(sorted(expectedKept([line(1, 'a', daysAgo(14)), line(2, 'a', daysAgo(1))], { maxAgeDays: 14, linesPerService: 0 }, NOW)), [1, 2]);
});

test('kept by count: the newest N, kept last instants counting among them', () => {
  const lines = Array.from({ length: 10 }, (_, i) => line(i + 1, 'a', daysAgo(1, i * 1000)));
  assert.deepEqual(sorted(expectedKept(lines, { maxAgeDays: 0, linesPerService: 4 }, NOW)), [7, 8, 9, 10]);
  // a quiet replica's only line is its last: it stays, and takes one of the four places
  const withQuiet = [line(11, 'q', daysAgo(2)), ...lines];
  assert.deepEqual(sorted(expectedKept(withQuiet, { maxAgeDays: 0, linesPerService: 4 }, NOW)), [8, 9, 10, 11]);
  // under the count: nothing goes
  assert.equal(expectedKept(lines, { maxAgeDays: 0, linesPerService: 10 }, NOW).size, 10);
  // both limits: age first, then the count of what is left
  const mixed = [line(1, 'a', daysAgo(20)), line(2, 'a', daysAgo(3)), line(3, 'a', daysAgo(2)), line(4, 'a', daysAgo(1))];
  assert.deepEqual(sorted(expectedKept(mixed, { maxAgeDays: 14, linesPerService: 2 }, NOW)), [3, 4]);
});
