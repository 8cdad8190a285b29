// The per-process rate limiter: a fixed window per caller, the decision's numbers, and a fresh
// budget when the next hour's window starts (the clock is injected).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRateLimiter, WINDOW_SECONDS } from '../../src/http/rate-limit.ts';

describe('rate limiter (per process)', () => {
  test('counts per caller within the window, refuses past the limit, starts again in the next window', async () => {
    const start = 1_800_000_000 - (1_800_000_000 % WINDOW_SECONDS); // a window's first second
    let seconds = start + 100;
    const limiter = await createRateLimiter({ limit: 2, now: () => seconds * 1000 });
    const first = limiter.hitNow('t:a')!;
    assert.deepEqual(first, { limit: 2, remaining: 1, reset: start + WINDOW_SECONDS, allowed: true, retryAfter: WINDOW_SECONDS - 100 });
    assert.equal((await limiter.hit('t:a')).remaining, 0, 'hit and hitNow share the count');
    const refused = limiter.hitNow('t:a')!;
    assert.equal(refused.allowed, false);
    assert.equal(refused.remaining, 0);
    assert.equal(limiter.hitNow('t:b')!.remaining, 1, 'another caller has its own budget');

    seconds = start + WINDOW_SECONDS - 1;
    assert.equal(limiter.hitNow('t:a')!.retryAfter, 1, 'still the same window one second before its end');
    seconds = start + WINDOW_SECONDS;
    const next = limiter.hitNow('t:a')!;
    assert.equal(next.allowed, true);
    assert.equal(next.remaining, 1);
    assert.equal(next.reset, start + 2 * WINDOW_SECONDS);
    await limiter.close();
  });
});
