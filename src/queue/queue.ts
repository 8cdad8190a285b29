// The PostgreSQL task queue (pg-boss underneath) behind a narrow interface. Rules it enforces:
// enqueueing always goes through the caller's transaction handle (so a task exists exactly when
// the state change that asked for it committed); every queue is created at start; handlers are
// plain async functions that must be idempotent (delivery is at least once after a crash).
import { PgBoss, fromPglite } from 'pg-boss';
import type { Db, Queryable } from '../db/db.ts';
import { TASK_KINDS, type TaskKind } from './tasks.ts';

interface EnqueueOptions {
  startAfter?: Date | number;
  /** dedupe: at most one queued (not yet started) task with this key per kind */
  singletonKey?: string;
}

export interface TaskContext {
  readonly id: string;
  /** 0 on the first attempt */
  readonly retryCount: number;
  readonly signal: AbortSignal;
}

export type TaskHandler = (payload: Record<string, unknown>, task: TaskContext) => Promise<void>;

export interface TaskQueue {
  enqueue(tx: Queryable, kind: TaskKind, payload: Record<string, unknown>, options?: EnqueueOptions): Promise<string | null>;
  /** `handler` runs the kind's tasks in this process from now on. The queue holds one handler per
   * kind: the first call subscribes the kind (its workers, `concurrency` slots) and returns true; a
   * later call only puts its handler in place of the one before and returns false (tests build
   * several apps over one queue; each runs the tasks while it is the latest to call) */
  work(kind: TaskKind, handler: TaskHandler, options?: { concurrency?: number }): Promise<boolean>;
  /** recurring task on a cron (one firing per slot across all processes) */
  schedule(kind: TaskKind, cron: string, payload: Record<string, unknown>, options?: { tz?: string; key?: string }): Promise<void>;
  unschedule(kind: TaskKind, key?: string): Promise<void>;
  /** counts by state, for health and metrics */
  stats(kind: TaskKind): Promise<{ queued: number; active: number; deferred: number; total: number }>;
  stop(options?: { timeoutMs?: number }): Promise<void>;
}

export interface QueueOptions {
  /** run workers and cron here (roles all and worker) */
  workers: boolean;
  pollingIntervalSeconds?: number;
}

/** how often a kind's second and later slots look for a task when nothing woke them */
const IDLE_SLOT_POLL_SECONDS = 30;

function txAdapter(tx: Queryable) {
  return {
    async executeSql(text: string, values?: unknown[]) {
      return { rows: await tx.query(text, values ?? []) };
    },
  };
}

export async function startQueue(db: Db, options: QueueOptions): Promise<TaskQueue> {
  const common = {
    schema: 'pgboss',
    schedule: options.workers,
    supervise: options.workers,
    cronMonitorIntervalSeconds: 5,
    cronWorkerIntervalSeconds: 2,
  };
  const boss = db.native.kind === 'pglite'
    ? new PgBoss({ ...common, db: fromPglite(db.native.pglite), backend: 'pglite' })
    : new PgBoss({ ...common, connectionString: db.native.connectionString, max: options.workers ? 4 : 2 });
  boss.on('error', () => { /* transient errors are retried by pg-boss itself; surfaced via stats */ });
  await boss.start();
  // one read for every queue; a queue is written only when missing or its policy changed (a start
  // on an existing database then costs one statement here instead of two per kind)
  const existing = new Map((await boss.getQueues(Object.keys(TASK_KINDS))).map((q) => [q.name, q as unknown as Record<string, unknown>]));
  for (const [name, policy] of Object.entries(TASK_KINDS)) {
    const queue = existing.get(name);
    if (!queue) await boss.createQueue(name, { ...policy, policy: 'standard' });
    else if (Object.entries(policy).some(([key, value]) => queue[key] !== value)) await boss.updateQueue(name, { ...policy });
  }
  // Creating or updating a queue evicts it from pg-boss's queue cache, and a send inside a
  // transaction that misses the cache looks the queue up over pg-boss's own connection — which,
  // on PGlite, the caller's transaction holds: a deadlock. Warm the cache for every kind there
  // (previewRedrive is a cheap read that goes through it); a server has connections to spare.
  if (db.native.kind === 'pglite') for (const name of Object.keys(TASK_KINDS)) await boss.previewRedrive(name);
  const polling = options.pollingIntervalSeconds ?? 0.5;
  // workers of this process, woken as soon as an enqueued task can be seen (the caller's
  // transaction committed) instead of at their next poll; workers of other processes poll
  const localWorkers = new Map<string, string[]>();
  const wake = (kind: string) => {
    for (const id of localWorkers.get(kind) ?? []) boss.notifyWorker(id);
  };
  /** the handler of each kind subscribed here: the one given by the latest work() call */
  const handlers = new Map<TaskKind, TaskHandler>();

  return {
    async enqueue(tx, kind, payload, opts = {}) {
      const id = await boss.send(kind, payload, {
        db: txAdapter(tx),
        ...(opts.startAfter !== undefined ? { startAfter: opts.startAfter instanceof Date ? opts.startAfter : opts.startAfter } : {}),
        ...(opts.singletonKey ? { singletonKey: opts.singletonKey, singletonSeconds: 1 } : {}),
      });
      if (opts.startAfter === undefined) {
        // outside a transaction the send has committed already
        if (tx.afterCommit) tx.afterCommit(() => wake(kind));
        else wake(kind);
      }
      return id;
    },
    async work(kind, handler, opts = {}) {
      if (!options.workers) throw new Error('this process does not run workers (role api)');
      const subscribed = handlers.has(kind);
      handlers.set(kind, handler);
      if (subscribed) return false;
      // One pg-boss worker per slot (not localConcurrency), so each slot knows its own id: a slot
      // that just finished a task asks for the next one at once instead of sleeping out the
      // polling interval (pg-boss waits `interval - duration` after every fetch, so a 200 ms task
      // left its slot idle 300 ms in 500 ms while thousands waited); an empty fetch goes back to
      // polling. It also lets an enqueue wake every slot, not only the first (see `wake`).
      // Only the first slot polls at the polling interval: the others poll rarely and are woken
      // when any slot of the kind gets a task (a backlog then has every slot fetching), so an
      // idle berth asks once per kind, not once per slot (18 polls per interval → 9).
      const ids: string[] = [];
      for (let slot = 0; slot < (opts.concurrency ?? 1); slot++) {
        let slotId = '';
        slotId = await boss.work<Record<string, unknown>>(
          kind,
          { batchSize: 1, pollingIntervalSeconds: slot === 0 ? polling : Math.max(polling, IDLE_SLOT_POLL_SECONDS) },
          async ([job]) => {
            if (!job) return;
            for (const other of ids) if (other !== slotId) boss.notifyWorker(other);
            try {
              await handlers.get(kind)!(job.data ?? {}, {
                id: job.id,
                retryCount: (job as { retryCount?: number }).retryCount ?? 0,
                signal: (job as { signal?: AbortSignal }).signal ?? new AbortController().signal,
              });
            } finally {
              if (slotId) boss.notifyWorker(slotId);
            }
          },
        );
        ids.push(slotId);
      }
      localWorkers.set(kind, [...(localWorkers.get(kind) ?? []), ...ids]);
      return true;
    },
    async schedule(kind, cron, payload, opts = {}) {
      await boss.schedule(kind, cron, payload, { tz: opts.tz ?? 'UTC', ...(opts.key ? { key: opts.key } : {}) });
    },
    async unschedule(kind, key) {
      await boss.unschedule(kind, key);
    },
    async stats(kind) {
      const q = await boss.getQueue(kind);
      const r = q as unknown as { queuedCount?: number; activeCount?: number; deferredCount?: number; totalCount?: number } | null;
      return { queued: r?.queuedCount ?? 0, active: r?.activeCount ?? 0, deferred: r?.deferredCount ?? 0, total: r?.totalCount ?? 0 };
    },
    async stop(opts = {}) {
      await boss.stop({ graceful: true, close: db.native.kind === 'postgres', timeout: opts.timeoutMs ?? 10_000 });
    },
  };
}
