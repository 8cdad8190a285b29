// Owns: turning a schedule's wall-clock firing minutes into real firing instants in a time zone:
// nextOccurrence and occurrencesBetween.

import { compileSchedule, DAY_MS, MAX_DAY, MIN_DAY, MINUTE_MS, WallMinutes } from './calendar.ts';
import type { CompiledSchedule } from './calendar.ts';
import type { CronSchedule } from './parse.ts';
import { getZone } from './zone.ts';
import type { Zone } from './zone.ts';

/** Firings are computed for years 1-9999; instants outside are clamped to just beyond that span. */
const EARLIEST_INSTANT = (MIN_DAY - 2) * DAY_MS;
const LATEST_INSTANT = (MAX_DAY + 2) * DAY_MS;

export function instantOf(date: Date, name: string): number {
  const ms = date instanceof Date ? date.getTime() : NaN;
  if (!Number.isFinite(ms)) {
    throw new RangeError(`${name} must be a valid Date`);
  }
  return Math.min(Math.max(ms, EARLIEST_INSTANT), LATEST_INSTANT);
}

/**
 * Distinct firing instants strictly after a starting instant, ascending. Wall-clock firings map
 * to instants monotonically (Zone.wallToInstant), so walking wall minutes in order and dropping
 * instants that are not later than the last one yields each real firing exactly once: a
 * repeated (fall-back) wall time fires at its first instance only, and several wall times in a
 * spring-forward gap all map to the transition instant and fire there once.
 */
class InstantCursor {
  private readonly zone: Zone;
  private readonly walls: WallMinutes;
  private last: number;

  constructor(c: CompiledSchedule, zone: Zone, afterMs: number) {
    this.zone = zone;
    const wallAfter = afterMs + zone.offsetAt(afterMs);
    // Any wall time <= wallAfter happens at or before afterMs (its first instance is no later).
    this.walls = new WallMinutes(c, Math.floor(wallAfter / MINUTE_MS) + 1);
    this.last = afterMs;
  }

  next(): number | null {
    for (;;) {
      const minute = this.walls.next();
      if (minute === null) {
        return null;
      }
      const instant = this.zone.wallToInstant(minute * MINUTE_MS);
      if (instant > this.last) {
        this.last = instant;
        return instant;
      }
    }
  }
}

/**
 * Next firing instant strictly after `after`, evaluated in `timeZone`; null if the schedule never
 * fires (e.g. 30 February) or not before the end of year 9999. Throws RangeError for an unknown
 * zone or an invalid Date.
 */
export function nextOccurrence(schedule: CronSchedule, timeZone: string, after: Date): Date | null {
  const c = compileSchedule(schedule);
  const zone = getZone(timeZone);
  const next = new InstantCursor(c, zone, instantOf(after, 'after')).next();
  return next === null ? null : new Date(next);
}

/** Default cap on the number of results of occurrencesBetween. */
const DEFAULT_OCCURRENCE_LIMIT = 1000;

/** Firing instants in (from, to], ascending, at most `limit` (default 1000; Infinity allowed). */
export function occurrencesBetween(
  schedule: CronSchedule,
  timeZone: string,
  from: Date,
  to: Date,
  limit: number = DEFAULT_OCCURRENCE_LIMIT,
): Date[] {
  const c = compileSchedule(schedule);
  const zone = getZone(timeZone);
  const start = instantOf(from, 'from');
  const end = instantOf(to, 'to');
  if (!(limit === Infinity || (Number.isInteger(limit) && limit >= 0))) {
    throw new RangeError('limit must be a non-negative integer or Infinity');
  }
  const out: Date[] = [];
  if (end <= start) {
    return out;
  }
  const cursor = new InstantCursor(c, zone, start);
  while (out.length < limit) {
    const next = cursor.next();
    if (next === null || next > end) {
      break;
    }
    out.push(new Date(next));
  }
  return out;
}
