// What is kept of finished cron runs, pure: the newest successes and failures within their
// history limits, nothing past its time to live; and the exit code in a container's status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { beyondHistory, exitCodeOfStatus } from './jobs.ts';

const run = (id: string, created: number, exitCode: number, finishedAt: number | null = null) => ({ id, created, exitCode, finishedAt });

test('the newest runs within each history limit are kept, successes and failures counted apart', () => {
  const runs = [run('s1', 1, 0), run('f1', 2, 1), run('s2', 3, 0), run('f2', 4, 137), run('s3', 5, 0)];
  assert.deepEqual(beyondHistory(runs, { success: 1, failed: 1, ttlSeconds: null }, 0).sort(), ['f1', 's1', 's2']);
  assert.deepEqual(beyondHistory(runs, { success: 3, failed: 0, ttlSeconds: null }, 0).sort(), ['f1', 'f2']);
  assert.deepEqual(beyondHistory(runs, { success: 0, failed: 0, ttlSeconds: null }, 0).sort(), ['f1', 'f2', 's1', 's2', 's3']);
  assert.deepEqual(beyondHistory([], { success: 1, failed: 1, ttlSeconds: null }, 0), []);
});

test('with a time to live, a kept run goes once it finished that long ago', () => {
  const now = 100_000;
  const runs = [run('old', 1, 0, now - 60_000), run('new', 2, 1, now - 5_000)];
  assert.deepEqual(beyondHistory(runs, { success: 5, failed: 5, ttlSeconds: 30 }, now), ['old']);
  assert.deepEqual(beyondHistory(runs, { success: 5, failed: 5, ttlSeconds: 5 }, now).sort(), ['new', 'old']);
});

test('the exit code of a finished container, from its status', () => {
  assert.equal(exitCodeOfStatus('Exited (0) 3 seconds ago'), 0);
  assert.equal(exitCodeOfStatus('Exited (137) About a minute ago'), 137);
  assert.equal(exitCodeOfStatus('Up 2 seconds'), null);
  assert.equal(exitCodeOfStatus('Created'), null);
});
