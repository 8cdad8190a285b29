// What the retention of runtime lines keeps (decision 0408), pure. A service's runtime lines are
// its running app's output (kind RUNTIME, no deployment, no job run). Lines older than the age go;
// each service keeps at most its newest N lines; except that the lines at a replica's last
// recorded instant are never deleted — that is where following the replica resumes after a berth
// restart (decision 0332), and a later line of the same replica releases them. The same holds for
// a service's last line recorded before lines named their replica (migration 0021). Deployment
// logs, agent run transcripts and job run output are not runtime lines: kept with their owner.
// The SQL doing it is log-retention.repo.ts; expectedKept below states the same rules on a
// service's lines in memory, and is what the tests compare the database with.
import type { Config } from '../../config/config.ts';

export interface RetentionSettings {
  /** runtime lines older than this many days go; 0: no age limit */
  readonly maxAgeDays: number;
  /** each service keeps at most its newest this many runtime lines; 0: no count limit */
  readonly linesPerService: number;
  /** the most lines one delete statement removes */
  readonly batch: number;
  /** seconds between two prunes */
  readonly intervalSeconds: number;
}

export function retentionSettings(config: Pick<Config, 'logRetentionDays' | 'logRetentionLinesPerService' | 'logPruneBatch' | 'logPruneIntervalSeconds'>): RetentionSettings {
  return {
    maxAgeDays: config.logRetentionDays,
    linesPerService: config.logRetentionLinesPerService,
    batch: config.logPruneBatch,
    intervalSeconds: config.logPruneIntervalSeconds,
  };
}

/** nothing to enforce: no worker runs */
export function retentionDisabled(s: RetentionSettings): boolean {
  return s.maxAgeDays === 0 && s.linesPerService === 0;
}

const DAY_MS = 86_400_000;

/** lines written before this instant are past the age limit; null: no age limit */
export function ageCutoff(now: Date, maxAgeDays: number): Date | null {
  return maxAgeDays > 0 ? new Date(now.getTime() - maxAgeDays * DAY_MS) : null;
}

export interface ServiceLineCount { serviceId: string; lines: number }

/** the services over their count and by how many lines, the largest excess first */
export function excessLines(counts: readonly ServiceLineCount[], linesPerService: number): Array<{ serviceId: string; excess: number }> {
  if (linesPerService <= 0) return [];
  return counts
    .filter((c) => c.lines > linesPerService)
    .map((c) => ({ serviceId: c.serviceId, excess: c.lines - linesPerService }))
    .sort((a, b) => b.excess - a.excess || (a.serviceId < b.serviceId ? -1 : 1));
}

/** the size of the next delete statement: what is left, at most one batch */
export function nextBatchSize(left: number, batch: number): number {
  return Math.max(0, Math.min(left, batch));
}

/** how long one prune may go on deleting: half the interval, at most 5 minutes (the rest waits for the next) */
export function workBudgetMs(intervalSeconds: number): number {
  return Math.min(intervalSeconds * 500, 300_000);
}

/** how long the pruning lease lasts unrenewed: a process that died is replaced after about two intervals */
export function leaseSeconds(intervalSeconds: number): number {
  return intervalSeconds * 2 + 30;
}

/**
 * PGlite has no autovacuum: the pruner vacuums the table itself once it has deleted a fifth of its
 * rows (autovacuum's own default threshold) and at least one batch since the last time, so the
 * space of deleted lines is reused instead of the file growing until the hourly maintenance.
 * PostgreSQL's autovacuum does this on its own.
 */
export function shouldVacuum(kind: 'pglite' | 'postgres', deletedSinceVacuum: number, tableRows: number, batch: number): boolean {
  return kind === 'pglite' && deletedSinceVacuum >= Math.max(batch, 0.2 * tableRows);
}

export interface RuntimeLine {
  id: number;
  /** the replica that wrote it; null for lines recorded before 0021 */
  containerId: string | null;
  createdAt: Date;
}

/**
 * Which of one service's runtime lines retention keeps (ids). Those at the last instant of their
 * replica (or the last instant of the service's lines without one) always stay; the others go
 * when older than the cutoff, and then the oldest of the rest go until at most
 * `linesPerService` remain (kept ones at a last instant count among them).
 */
export function expectedKept(lines: readonly RuntimeLine[], s: Pick<RetentionSettings, 'maxAgeDays' | 'linesPerService'>, now: Date): Set<number> {
  const lastOf = new Map<string, number>();
  const key = (l: RuntimeLine) => l.containerId ?? '';
  for (const l of lines) lastOf.set(key(l), Math.max(lastOf.get(key(l)) ?? -Infinity, l.createdAt.getTime()));
  const pinned = (l: RuntimeLine) => l.createdAt.getTime() === lastOf.get(key(l));
  const cutoff = ageCutoff(now, s.maxAgeDays);
  const kept = lines.filter((l) => pinned(l) || cutoff === null || l.createdAt >= cutoff);
  if (s.linesPerService > 0 && kept.length > s.linesPerService) {
    let over = kept.length - s.linesPerService;
    const oldestFirst = [...kept].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id);
    const gone = new Set<number>();
    for (const l of oldestFirst) {
      if (over === 0) break;
      if (pinned(l)) continue;
      gone.add(l.id);
      over--;
    }
    return new Set(kept.filter((l) => !gone.has(l.id)).map((l) => l.id));
  }
  return new Set(kept.map((l) => l.id));
}
