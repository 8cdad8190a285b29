// The pure rules of database backups (issue 39, decision 0735): which databases can be backed
// up, a policy's schedule checked, grandfather-father-son retention (which successful backups to
// keep), when a schedule is due or overdue (1.5 × its interval without a success), and the names
// berth gives what it makes. No I/O.
import { checkMinimumInterval, minimumGapMs, nextOccurrence, parseCron } from '../../lib/cron.ts';

/** backups are dumps taken inside the database's own container: MANAGED databases are the cloud's */
export function backupRefusal(db: { mode: string | null | undefined; type: string }): string | null {
  if (db.mode && db.mode !== 'CONTAINER') return `Backups are taken of CONTAINER databases; a ${db.mode} database is backed up by its provider`;
  return null;
}

/** a policy's cron schedule (UTC): valid, and at most once an hour (a dump is no cheap thing) */
export function scheduleProblem(expression: string, field: string): string | null {
  const parsed = parseCron(expression);
  if (!parsed.ok) return `${field}: ${parsed.reason}`;
  const tooOften = checkMinimumInterval(parsed.schedule, 'UTC', 60);
  return tooOften ? `${field}: ${tooOften}` : null;
}

/** the next slot of `expression` strictly after `after` (UTC) */
export function nextSlot(expression: string, after: Date): Date | null {
  const parsed = parseCron(expression);
  return parsed.ok ? nextOccurrence(parsed.schedule, 'UTC', after) : null;
}

/** whether a slot of the schedule fell in (since, now] */
export function slotDue(expression: string, since: Date, now: Date): boolean {
  const next = nextSlot(expression, since);
  return next !== null && next.getTime() <= now.getTime();
}

/** the longest a healthy schedule goes without a success: 1.5 × its widest gap between slots */
export function overdueAfterMs(expression: string): number | null {
  const parsed = parseCron(expression);
  if (!parsed.ok) return null;
  // the widest gap is what matters (a weekday-only schedule waits over the weekend): measured over a year's slots
  const slots: number[] = [];
  let at = new Date(Date.UTC(2030, 0, 1));
  for (let i = 0; i < 800; i++) {
    const next = nextOccurrence(parsed.schedule, 'UTC', at);
    if (!next) break;
    slots.push(next.getTime());
    at = next;
  }
  let widest = minimumGapMs(parsed.schedule, 'UTC') ?? 0;
  for (let i = 1; i < slots.length; i++) widest = Math.max(widest, slots[i]! - slots[i - 1]!);
  return widest > 0 ? Math.round(widest * 1.5) : null;
}

export interface RetentionPolicy { keep_daily: number; keep_weekly: number; keep_monthly: number }
interface Dated { id: string; created_at: Date }

/** the UTC day, ISO week and month a backup falls in */
function day(d: Date): string { return d.toISOString().slice(0, 10); }
function month(d: Date): string { return d.toISOString().slice(0, 7); }
function isoWeek(d: Date): string {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const weekday = t.getUTCDay() || 7;
  t.setUTCDate(t.getUTCDate() + 4 - weekday);
  const yearStart = Date.UTC(t.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((t.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${t.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

/**
 * Grandfather-father-son: of the successful scheduled backups, keep the newest of each of the
 * last `keep_daily` days that have one, of the last `keep_weekly` ISO weeks and of the last
 * `keep_monthly` months; a backup kept by any rule stays. Returns the ids to delete. The newest
 * backup always stays (a policy of zeros never leaves a database with none).
 */
export function retentionVictims(backups: readonly Dated[], policy: RetentionPolicy): string[] {
  const newestFirst = [...backups].sort((a, b) => b.created_at.getTime() - a.created_at.getTime());
  const keep = new Set<string>();
  if (newestFirst[0]) keep.add(newestFirst[0].id);
  const rule = (bucket: (d: Date) => string, count: number) => {
    const seen = new Set<string>();
    for (const b of newestFirst) {
      const key = bucket(b.created_at);
      if (seen.has(key)) continue;
      if (seen.size >= count) break;
      seen.add(key);
      keep.add(b.id);
    }
  };
  rule(day, policy.keep_daily);
  rule(isoWeek, policy.keep_weekly);
  rule(month, policy.keep_monthly);
  return newestFirst.filter((b) => !keep.has(b.id)).map((b) => b.id);
}

/** where a backup's object lives in its store */
export function objectKey(organizationId: string, databaseId: string, backupId: string): string {
  return `${organizationId}/${databaseId}/${backupId}.dump.gz.enc`;
}

/** the name a backup berth takes by itself gets */
export function automaticName(trigger: 'SCHEDULED' | 'SAFETY', at: Date): string {
  const stamp = at.toISOString().slice(0, 16).replace('T', ' ');
  return trigger === 'SCHEDULED' ? `scheduled ${stamp}` : `before restore ${stamp}`;
}

/** YYYYMMDD-HHMMSS (UTC): the time in the names berth gives files and databases */
function compactStamp(at: Date): string {
  return at.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
}

/** the file name a download is offered under: the database's name made safe for a header (any character a name may hold) */
export function downloadName(database: string, type: string, createdAt: Date): string {
  const ext = ({ POSTGRESQL: 'pgdump', MYSQL: 'sql', MONGODB: 'archive', REDIS: 'rdb' } as Record<string, string>)[type] ?? 'dump';
  const safe = database.normalize('NFKD').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+|_+$/g, '').slice(0, 100) || 'database';
  return `${safe}-${compactStamp(createdAt)}.${ext}`;
}

/** the name of the database a restore creates beside the original, to the second (service names: 1–63 characters) */
export function restoredName(original: string, at: Date): string {
  const suffix = `-restored-${compactStamp(at)}`;
  return original.slice(0, 63 - suffix.length) + suffix;
}

/** a worker that has not beaten for this long is gone: its backup is FAILED */
export const STALE_HEARTBEAT_MS = 120_000;
