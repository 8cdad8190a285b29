// One prune of runtime lines (decision 0408): lines past the age limit first, then each service
// over its count down to it, one bounded delete statement at a time, each its own transaction
// (a live stream holds back lines written while one runs: the batch bounds that wait). Stops
// when nothing more is due, at the deadline or when asked to; what is left waits for the next
// prune. The worker (src/workers/log-retention.ts) runs it on one process at a time.
import type { Db } from '../../db/db.ts';
import * as repo from './log-retention.repo.ts';
import { ageCutoff, excessLines, nextBatchSize, shouldVacuum, workBudgetMs, type RetentionSettings } from './log-retention.rules.ts';

export interface PruneResult {
  /** lines deleted for their age */
  byAge: number;
  /** lines deleted to bring services down to their count */
  byCount: number;
  /** delete statements run (each removed at most one batch) */
  statements: number;
  /** the longest of them, in ms: how long a live stream held back new lines at most (decision 0500) */
  slowestMs: number;
  /** false when the deadline or a stop came first: more lines are due */
  complete: boolean;
}

export interface PruneOptions {
  now?: Date;
  /** stop starting statements after this many ms (default: half the interval) */
  budgetMs?: number;
  signal?: AbortSignal;
}

export async function pruneRuntimeLogs(db: Db, s: RetentionSettings, options: PruneOptions = {}): Promise<PruneResult> {
  const deadline = Date.now() + (options.budgetMs ?? workBudgetMs(s.intervalSeconds));
  const result: PruneResult = { byAge: 0, byCount: 0, statements: 0, slowestMs: 0, complete: true };
  const timed = async (statement: () => Promise<number>) => {
    const started = performance.now();
    const n = await statement();
    result.statements++;
    result.slowestMs = Math.max(result.slowestMs, Math.round(performance.now() - started));
    return n;
  };
  const mayGoOn = () => {
    if (Date.now() < deadline && !options.signal?.aborted) return true;
    result.complete = false;
    return false;
  };
  const cutoff = ageCutoff(options.now ?? new Date(), s.maxAgeDays);
  if (cutoff) {
    while (mayGoOn()) {
      const n = await timed(() => repo.deleteOlderThan(db, cutoff, s.batch));
      result.byAge += n;
      if (n < s.batch) break;
    }
  }
  if (!result.complete || s.linesPerService === 0) return result;
  for (const { serviceId, excess } of excessLines(await repo.servicesOver(db, s.linesPerService), s.linesPerService)) {
    let left = excess;
    while (left > 0) {
      if (!mayGoOn()) return result;
      const size = nextBatchSize(left, s.batch);
      const n = await timed(() => repo.deleteOldestOfService(db, serviceId, size));
      result.byCount += n;
      left -= n;
      // fewer than asked: the rest are lines at their replica's last instant, kept
      if (n < size) break;
    }
  }
  return result;
}

/** PGlite only (no autovacuum there): VACUUM the table when enough was deleted since the last; true when it ran */
export async function vacuumIfDue(db: Db, deletedSinceVacuum: number, batch: number): Promise<boolean> {
  if (!shouldVacuum(db.kind, deletedSinceVacuum, db.kind === 'pglite' ? await repo.estimatedRows(db) : 0, batch)) return false;
  await repo.vacuum(db);
  return true;
}
