// Rate limiting: a fixed one-hour window per token (per user for JWTs). Counters live in process
// memory, or in Redis with REDIS_URL so several API processes share one budget. If Redis is
// unreachable the limiter falls back to per-process counting and logs a warning (once per outage).
import type { Logger } from 'pino';

export const WINDOW_SECONDS = 3600;

export interface RateDecision { limit: number; remaining: number; reset: number; allowed: boolean; retryAfter: number }

export interface RateLimiter {
  hit(key: string): Promise<RateDecision>;
  /** the same decision at once when counting in this process (no REDIS_URL), else undefined:
   * the request path then needs no promise (issue 15) */
  hitNow(key: string): RateDecision | undefined;
  close(): Promise<void>;
}

interface CounterStore { incr(key: string, ttlSeconds: number): Promise<number>; close(): Promise<void> }

/** per-process counting: one entry per caller holding the count of its current window, found by
 * the caller's own key (no per-request key string to build and hash: issue 15) */
function memoryCounters(): { count(key: string, window: number): number } {
  const counters = new Map<string, { window: number; count: number }>();
  return {
    count(key, window) {
      let entry = counters.get(key);
      if (entry === undefined) {
        if (counters.size > 50_000) for (const [k, v] of counters) if (v.window < window) counters.delete(k);
        entry = { window, count: 0 };
        counters.set(key, entry);
      } else if (entry.window !== window) {
        entry.window = window;
        entry.count = 0;
      }
      entry.count += 1;
      return entry.count;
    },
  };
}

async function redisStore(url: string): Promise<CounterStore> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  redis.on('error', () => { /* surfaced through failed commands; the limiter falls back */ });
  await redis.connect().catch(() => { /* keeps retrying in the background */ });
  return {
    async incr(key, ttl) {
      const res = await redis.multi().incr(key).expire(key, ttl, 'NX').exec();
      const [err, count] = res?.[0] ?? [new Error('no reply'), 0];
      if (err) throw err;
      return Number(count);
    },
    async close() {
      redis.disconnect();
    },
  };
}

export async function createRateLimiter(options: { limit: number; redisUrl?: string; logger?: Logger; now?: () => number }): Promise<RateLimiter> {
  const local = memoryCounters();
  const shared = options.redisUrl ? await redisStore(options.redisUrl) : null;
  const now = options.now ?? Date.now;
  let degraded = false;
  /** the window a hit counts in: its start, in epoch seconds */
  function windowAt(seconds: number): number {
    return seconds - (seconds % WINDOW_SECONDS);
  }
  function decide(count: number, seconds: number, window: number): RateDecision {
    const reset = window + WINDOW_SECONDS;
    return { limit: options.limit, remaining: Math.max(0, options.limit - count), reset, allowed: count <= options.limit, retryAfter: Math.max(1, reset - seconds) };
  }
  return {
    hitNow(key) {
      if (shared) return undefined;
      const seconds = Math.floor(now() / 1000);
      const window = windowAt(seconds);
      return decide(local.count(key, window), seconds, window);
    },
    async hit(key) {
      const seconds = Math.floor(now() / 1000);
      const window = windowAt(seconds);
      let count: number;
      if (shared) {
        try {
          count = await shared.incr(`berth:rl:${key}:${window}`, WINDOW_SECONDS + 60);
          if (degraded) {
            degraded = false;
            options.logger?.warn('rate limiter: Redis reachable again, counting in Redis');
          }
        } catch {
          if (!degraded) {
            degraded = true;
            options.logger?.warn('rate limiter: Redis unreachable, counting per process until it returns');
          }
          count = local.count(key, window);
        }
      } else {
        count = local.count(key, window);
      }
      return decide(count, seconds, window);
    },
    async close() {
      await shared?.close();
    },
  };
}
