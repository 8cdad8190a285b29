// Owns: the smallest real-time gap between consecutive firings of a schedule in a time zone
// (minimumGapMs) and the workflow rule built on it (checkMinimumInterval).
//
// How the gap is found (exactly, without enumerating firings one by one):
// - Every matching day fires at the same set of wall-clock times T (hours x minutes). Between two
//   firings on one day the gap is a difference of neighbours in T; between days it is
//   (dayGap * 24h) - (last(T) - first(T)) for consecutive matching days. So on the wall clock the
//   answer is min(smallest step inside T, 24h * smallest gap between consecutive matching days
//   - span of T).
// - Zones with no offset change in the horizon (UTC, Asia/Kolkata, ...): real gaps equal wall gaps,
//   and the day gaps are measured over one full 400-year Gregorian cycle (146097 days, a multiple
//   of 7), which covers every month/leap-year/weekday combination there is. Exact for all time.
// - Zones with offset changes: DST can only change a gap between firings on either side of a
//   transition, so we walk the matching days of the next 28 years (one full weekday/leap-year
//   cycle for 1901-2099, so every calendar alignment of the zone's current rules is seen). Days
//   with no transition between their first and last firing are handled as a block (real instants
//   of the first and last firing, plus the wall step inside T); only the day(s) containing a
//   transition are mapped firing by firing. Gaps across a spring-forward shrink by the shift (or
//   more when a firing in the gap is moved to the transition instant), gaps across a fall-back
//   grow, and these are measured, not estimated. Exact over the horizon.

import { compileSchedule, CYCLE_DAYS, civilFromDays, DAY_MS, DayCursor, MINUTE_MS, seekMatchingDay } from './calendar.ts';
import type { CompiledSchedule } from './calendar.ts';
import { instantOf } from './occurrences.ts';
import type { CronSchedule } from './parse.ts';
import { getZone } from './zone.ts';
import type { Transition, Zone } from './zone.ts';

/** 28 years: the span in which DST effects are examined. */
const DST_HORIZON_DAYS = 10_227;

export interface MinimumGapOptions {
  /** Where the DST horizon (and the example firings) start; default now. */
  readonly from?: Date;
}

/** The minimal gap and one pair of consecutive firings (ms instants) that has it. */
export interface GapWitness {
  readonly gapMs: number;
  readonly first: number;
  readonly second: number;
}

function fixedOffsetGap(c: CompiledSchedule, offset: number, startDay: number): GapWitness {
  const times = c.times;
  const span = (times[times.length - 1]! - times[0]!) * MINUTE_MS;
  const cursor = new DayCursor(startDay);
  seekMatchingDay(c, cursor, startDay + CYCLE_DAYS);
  const firstDay = cursor.day;
  let best: GapWitness = { gapMs: Infinity, first: 0, second: 0 };
  if (Number.isFinite(c.intraDayGapMs)) {
    const first = firstDay * DAY_MS + times[c.intraDayGapIndex]! * MINUTE_MS - offset;
    best = { gapMs: c.intraDayGapMs, first, second: first + c.intraDayGapMs };
  }
  // Smallest distance between consecutive matching days over one whole cycle; the day one cycle
  // after firstDay matches again, which closes the wrap-around pair.
  let minDayGap = Infinity;
  let gapStartDay = firstDay;
  let previous = firstDay;
  cursor.nextDay();
  while (minDayGap > 1 && seekMatchingDay(c, cursor, firstDay + CYCLE_DAYS)) {
    const dayGap = cursor.day - previous;
    if (dayGap < minDayGap) {
      minDayGap = dayGap;
      gapStartDay = previous;
    }
    previous = cursor.day;
    cursor.nextDay();
  }
  const crossDay = minDayGap * DAY_MS - span;
  if (crossDay < best.gapMs) {
    const first = gapStartDay * DAY_MS + times[times.length - 1]! * MINUTE_MS - offset;
    best = { gapMs: crossDay, first, second: first + crossDay };
  }
  return best;
}

function countAtOrBetween(sorted: readonly Transition[], lo: number, hi: number): number {
  let count = 0;
  for (const t of sorted) {
    if (t.at > hi) {
      break;
    }
    if (t.at >= lo) {
      count++;
    }
  }
  return count;
}

function firstIndexAtOrAfter(sorted: readonly Transition[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.at < value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

function zonedGap(c: CompiledSchedule, zone: Zone, transitions: readonly Transition[], startDay: number): GapWitness | null {
  const times = c.times;
  const n = times.length;
  const firstTime = times[0]! * MINUTE_MS;
  const lastTime = times[n - 1]! * MINUTE_MS;
  const endDay = startDay + DST_HORIZON_DAYS - 1;
  let gapMs = Infinity;
  let witnessFirst = 0;
  let witnessSecond = 0;
  let last = NaN;
  // Feed firing instants in ascending order; an instant equal to the previous one is the same
  // firing (several wall times collapsed onto one transition) and adds no gap.
  const visit = (instant: number): void => {
    if (Number.isNaN(last)) {
      last = instant;
      return;
    }
    if (instant <= last) {
      return;
    }
    if (instant - last < gapMs) {
      gapMs = instant - last;
      witnessFirst = last;
      witnessSecond = instant;
    }
    last = instant;
  };
  const cursor = new DayCursor(startDay);
  while (seekMatchingDay(c, cursor, endDay)) {
    const base = cursor.day * DAY_MS;
    const first = zone.wallToInstant(base + firstTime);
    const lastOfDay = n > 1 ? zone.wallToInstant(base + lastTime) : first;
    const near = firstIndexAtOrAfter(transitions, first);
    const clean = near >= transitions.length || transitions[near]!.at > lastOfDay;
    if (clean) {
      // No offset change between this day's first and last firing: a pure shift of the wall times.
      visit(first);
      if (c.intraDayGapMs < gapMs) {
        gapMs = c.intraDayGapMs;
        witnessFirst = first + (times[c.intraDayGapIndex]! - times[0]!) * MINUTE_MS;
        witnessSecond = witnessFirst + gapMs;
      }
      last = lastOfDay;
    } else if (countAtOrBetween(transitions, first - DAY_MS, lastOfDay + DAY_MS) === 1) {
      // Exactly one transition nearby: map each firing in closed form with the same rules as
      // Zone.wallToInstant (first instance of repeated times, gap times at the transition).
      const t = transitions[near]!;
      const cut = t.at + t.before;
      for (let i = 0; i < n; i++) {
        const wall = base + times[i]! * MINUTE_MS;
        visit(wall < cut ? wall - t.before : Math.max(t.at, wall - t.after));
      }
    } else {
      for (let i = 0; i < n; i++) {
        visit(zone.wallToInstant(base + times[i]! * MINUTE_MS));
      }
    }
    if (gapMs <= MINUTE_MS) {
      break; // firings are whole minutes and offsets whole minutes: nothing can be closer
    }
    cursor.nextDay();
  }
  return Number.isFinite(gapMs) ? { gapMs, first: witnessFirst, second: witnessSecond } : null;
}

// The answer depends only on the expression, the zone and the local day the analysis starts
// from, and DST zones take milliseconds to walk: repeated checks (every create or edit of a
// workflow with the usual handful of expressions) are served from this small memo.
const MEMO_LIMIT = 512;
const memo = new Map<string, GapWitness | null>();

/** minimumGapMs with an example pair of firings; null when the schedule never fires. */
export function findMinimumGap(schedule: CronSchedule, timeZone: string, options: MinimumGapOptions = {}): GapWitness | null {
  const zone = getZone(timeZone);
  const fromMs = options.from === undefined ? Date.now() : instantOf(options.from, 'from');
  const offset = zone.offsetAt(fromMs);
  const startDay = Math.floor((fromMs + offset) / DAY_MS);
  const key = `${schedule.expression}\u0000${timeZone}\u0000${startDay}`;
  if (memo.has(key)) return memo.get(key)!;
  const result = computeMinimumGap(schedule, zone, offset, startDay);
  if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value!);
  memo.set(key, result);
  return result;
}

function computeMinimumGap(schedule: CronSchedule, zone: ReturnType<typeof getZone>, offset: number, startDay: number): GapWitness | null {
  const c = compileSchedule(schedule);
  if (!c.firesEver) {
    return null;
  }
  const transitions = zone.transitionsBetween((startDay - 2) * DAY_MS, (startDay + DST_HORIZON_DAYS + 2) * DAY_MS);
  if (transitions.length === 0) {
    return fixedOffsetGap(c, offset, startDay);
  }
  return zonedGap(c, zone, transitions, startDay) ?? fixedOffsetGap(c, offset, startDay);
}

/**
 * Smallest gap in ms between two consecutive real firing instants in `timeZone`, over the whole
 * calendar (see the header for how DST is covered); null when the schedule never fires. Never
 * Infinity: a schedule that fires at all fires at least every 8 years.
 */
export function minimumGapMs(schedule: CronSchedule, timeZone: string, options?: MinimumGapOptions): number | null {
  return findMinimumGap(schedule, timeZone, options)?.gapMs ?? null;
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** "4 minutes", "1 hour 1 minute", "30 seconds". */
function formatDuration(ms: number): string {
  const totalSeconds = Math.round(ms / 1000);
  const days = Math.floor(totalSeconds / 86_400);
  const hours = Math.floor((totalSeconds % 86_400) / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  const parts: string[] = [];
  if (days > 0) parts.push(plural(days, 'day'));
  if (hours > 0) parts.push(plural(hours, 'hour'));
  if (minutes > 0) parts.push(plural(minutes, 'minute'));
  if (seconds > 0 || parts.length === 0) parts.push(plural(seconds, 'second'));
  return parts.join(' ');
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** "2025-03-09 01:59 (UTC-05:00)": local wall time of an instant, with its offset. */
function formatLocal(zone: Zone, instant: number): string {
  const offset = zone.offsetAt(instant);
  const wall = instant + offset;
  const day = Math.floor(wall / DAY_MS);
  const date = civilFromDays(day);
  const minuteOfDay = Math.floor((wall - day * DAY_MS) / MINUTE_MS);
  const offsetMinutes = Math.abs(offset) / MINUTE_MS;
  const sign = offset < 0 ? '-' : '+';
  return `${pad(date.year, 4)}-${pad(date.month)}-${pad(date.day)} ${pad(Math.floor(minuteOfDay / 60))}:${pad(minuteOfDay % 60)}` +
    ` (UTC${sign}${pad(Math.floor(offsetMinutes / 60))}:${pad(offsetMinutes % 60)})`;
}

/**
 * The seed's rule: a workflow schedule is rejected if it fires more than once every `minMinutes`
 * minutes (default 5) in its time zone: a gap below the limit is a violation, a gap of exactly
 * the limit is fine. Returns null when OK, else a message naming two example firing times
 * (the first such pair at or after `options.from`, default now, within the examined span).
 */
export function checkMinimumInterval(
  schedule: CronSchedule,
  timeZone: string,
  minMinutes: number = 5,
  options?: MinimumGapOptions,
): string | null {
  if (typeof minMinutes !== 'number' || !Number.isFinite(minMinutes) || minMinutes < 0) {
    throw new RangeError('minMinutes must be a finite number >= 0');
  }
  const witness = findMinimumGap(schedule, timeZone, options);
  if (witness === null || witness.gapMs >= minMinutes * MINUTE_MS) {
    return null;
  }
  const zone = getZone(timeZone);
  return `schedule '${schedule.expression}' fires ${formatDuration(witness.gapMs)} apart in ${timeZone}` +
    ` (e.g. at ${formatLocal(zone, witness.first)} and ${formatLocal(zone, witness.second)});` +
    ` a workflow schedule may fire at most once every ${formatDuration(minMinutes * MINUTE_MS)}`;
}
