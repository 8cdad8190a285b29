// One periodic loop of a worker process, as the git poller, the log pruner, the autoscaler and the
// engine and swarm observers each run one. This file owns what they do alike, so each of theirs
// keeps only what a round does and what it logs:
// - the lease row (engine_leases): every round first renews it, so one process at a time runs
//   rounds; a round in a process that does not hold it does nothing (`notHeld` is told, the tick
//   answers null), and one whose renewal fails counts as not held too (then the round fails);
// - the timer (unref'd: it never keeps a process alive), and a first round at start when asked;
// - one round at a time in the process: a tick while one runs answers the running one, and the
//   timer skips its turn while one runs;
// - the log line (a warning) when a round the timer started fails; a tick's caller gets the error;
// - stop(): aborts the signal rounds are given, clears the timer, waits for the running round, lets
//   the loop drain what outlives a round, then releases the lease (another process takes over at
//   once instead of when it expires). Calling it twice is harmless.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { holdLease, releaseLease } from '../modules/deployments/runtime-state.ts';

export interface PeriodicOptions<T> {
  /** the lease row's name: one process at a time runs rounds */
  lease: string;
  /** between two rounds of the timer */
  everySeconds: number;
  /** how long a round's renewal holds the lease; by default twice the interval and 30 s more */
  leaseSeconds?: number;
  /** what one round does, in the process holding the lease; `signal` is aborted by stop() */
  round: (signal: AbortSignal) => Promise<T>;
  /** the message of the warning a failed round of the timer logs (with `err`) */
  failure: string;
  /** a round found the lease held by another process (or could not renew it) */
  notHeld?: () => void;
  /** a first round at start instead of after the first interval */
  immediately?: boolean;
  /** in stop(), once the running round settled and before the lease is released: what outlives a round */
  drain?: () => unknown;
  db: AppContext['db'];
  logger: AppContext['logger'];
}

export interface Periodic<T> {
  /** one round now, if this process holds the lease (null when another does) */
  tick(): Promise<T | null>;
  stop(): Promise<void>;
  /** aborted by stop(): for work a round starts that outlives it */
  readonly signal: AbortSignal;
}

/** the lease a loop renews every round: long enough that a slow round or a late timer does not lose it */
const defaultLeaseSeconds = (everySeconds: number): number => everySeconds * 2 + 30;

export function startPeriodic<T>(options: PeriodicOptions<T>): Periodic<T> {
  const { db, lease } = options;
  const holder = randomUUID();
  const ttl = Math.ceil(options.leaseSeconds ?? defaultLeaseSeconds(options.everySeconds));
  const stopping = new AbortController();
  let running: Promise<T | null> | null = null;

  async function round(): Promise<T | null> {
    let held: boolean;
    try {
      held = await holdLease(db, lease, holder, ttl);
    } catch (err) {
      options.notHeld?.();
      throw err;
    }
    if (!held) {
      options.notHeld?.();
      return null;
    }
    return options.round(stopping.signal);
  }

  function tick(): Promise<T | null> {
    if (running) return running;
    const p = round().finally(() => { running = null; });
    running = p;
    return p;
  }

  const failed = (err: unknown) => options.logger.warn({ err }, options.failure);
  const timer = setInterval(() => {
    if (!stopping.signal.aborted && !running) tick().catch(failed);
  }, options.everySeconds * 1000);
  timer.unref();
  if (options.immediately) tick().catch(failed);

  return {
    tick,
    signal: stopping.signal,
    async stop() {
      stopping.abort();
      clearInterval(timer);
      await running?.catch(() => {});
      try {
        await options.drain?.();
      } finally {
        await releaseLease(db, lease, holder).catch(() => {});
      }
    },
  };
}
