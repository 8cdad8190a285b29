// The periodic loop every lease-held worker loop runs on (periodic.ts), against the test database's
// lease table: one round at a time (a tick while one runs answers the running one); a second
// holder of the lease gets null and is told; stop() aborts the round's signal, waits for it,
// drains, then releases the lease so another holder takes it at once; a failed round of the timer
// is logged and the next one still runs; a first round at start when asked.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Db } from '../db/db.ts';
import { testDatabase } from '../../test/support/db.ts';
import { startPeriodic, type PeriodicOptions } from './periodic.ts';

function capture() {
  const lines: Array<Record<string, any>> = [];
  const logger = pino({ level: 'info' }, new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } }));
  return { lines, logger };
}

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => { resolve = r; });
  return { promise, resolve };
}

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('periodic loop', () => {
  let db: Db;
  const lease = () => `test-periodic-${randomUUID()}`;
  const options = <T>(over: Partial<PeriodicOptions<T>> & Pick<PeriodicOptions<T>, 'lease' | 'round'>): PeriodicOptions<T> =>
    ({ everySeconds: 3600, leaseSeconds: 60, failure: 'test loop failed', db, logger: capture().logger, ...over });

  before(async () => { ({ db } = await testDatabase()); });

  test('one round at a time: a tick while one runs answers the running one', async () => {
    const gate = deferred();
    let rounds = 0;
    const loop = startPeriodic(options({ lease: lease(), round: async () => { rounds++; await gate.promise; return rounds; } }));
    try {
      const first = loop.tick();
      assert.equal(loop.tick(), first, 'the same promise');
      gate.resolve();
      assert.equal(await first, 1);
      assert.equal(await loop.tick(), 2, 'the next tick runs a new round');
    } finally {
      await loop.stop();
    }
  });

  test('a second holder of the lease gets null (and is told) until the first stops', async () => {
    const name = lease();
    let told = 0;
    const first = startPeriodic(options({ lease: name, round: async () => 'first' }));
    const second = startPeriodic(options({ lease: name, round: async () => 'second', notHeld: () => { told++; } }));
    try {
      assert.equal(await first.tick(), 'first');
      assert.equal(await second.tick(), null);
      assert.equal(told, 1);
      await first.stop();
      assert.equal(await second.tick(), 'second', 'released: taken at once');
    } finally {
      await first.stop();
      await second.stop();
    }
  });

  test('stop() aborts the signal, waits for the running round, drains, then releases the lease', async () => {
    const name = lease();
    const gate = deferred();
    const order: string[] = [];
    let signal: AbortSignal | undefined;
    const loop = startPeriodic(options({
      lease: name,
      round: async (s) => { signal = s; await gate.promise; order.push('round ended'); return 1; },
      drain: async () => { order.push('drained'); },
    }));
    const other = startPeriodic(options({ lease: name, round: async () => 'other' }));
    try {
      const running = loop.tick();
      await until(() => signal !== undefined);
      let stopped = false;
      const stopping = loop.stop().then(() => { stopped = true; });
      assert.equal(signal!.aborted, true);
      assert.equal(loop.signal.aborted, true);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(stopped, false, 'waits for the round');
      assert.equal(await other.tick(), null, 'the lease is still held while the round runs');
      gate.resolve();
      await stopping;
      assert.equal(await running, 1);
      assert.deepEqual(order, ['round ended', 'drained']);
      assert.equal(await other.tick(), 'other', 'released');
    } finally {
      gate.resolve();
      await loop.stop();
      await other.stop();
    }
  });

  test('a failed round of the timer is logged and the next one still runs', async () => {
    const { lines, logger } = capture();
    let rounds = 0;
    const loop = startPeriodic(options({
      lease: lease(), everySeconds: 0.05, logger,
      round: async () => {
        rounds++;
        if (rounds === 1) throw new Error('round one broke');
        return rounds;
      },
    }));
    try {
      await until(() => rounds >= 3);
      const failed = lines.filter((l) => l.msg === 'test loop failed');
      assert.equal(failed.length, 1);
      assert.equal(failed[0]!.level, 40, 'a warning');
      assert.match(failed[0]!.err.message, /round one broke/);
    } finally {
      await loop.stop();
    }
    const after = rounds;
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(rounds, after, 'no round after stop()');
  });

  test('a first round at start when asked, not only after the first interval', async () => {
    let rounds = 0;
    const loop = startPeriodic(options({ lease: lease(), immediately: true, round: async () => ++rounds }));
    try {
      await until(() => rounds === 1);
    } finally {
      await loop.stop();
    }
  });
});
