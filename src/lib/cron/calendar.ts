// Owns: proleptic-Gregorian civil-date arithmetic (pure integers, no Date, no time zones) and
// the compiled wall-clock view of a CronSchedule: which days match and which wall-clock
// minutes fire. Everything here is "wall time": minutes or days counted as if the zone were UTC.

import type { CronSchedule } from './parse.ts';

export const MINUTE_MS = 60_000;
const DAY_MINUTES = 1440;
export const DAY_MS = 86_400_000;
/** Days in one 400-year Gregorian cycle; a multiple of 7, so weekdays repeat with it too. */
export const CYCLE_DAYS = 146_097;
/** Last day we search up to: 9999-12-31. */
export const MAX_DAY = 2_932_896;
/** First day we accept: 0001-01-01. */
export const MIN_DAY = -719_162;

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const MONTH_DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month]!;
}

/** Days since 1970-01-01 of a civil date (month 1-12). Valid for any year. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * CYCLE_DAYS + dayOfEra - 719_468;
}

export interface CivilDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** Inverse of daysFromCivil. */
export function civilFromDays(days: number): CivilDate {
  const z = days + 719_468;
  const era = Math.floor(z / CYCLE_DAYS);
  const dayOfEra = z - era * CYCLE_DAYS;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** 0 = Sunday. 1970-01-01 was a Thursday. */
function weekdayOfDay(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

/** A mutable position on the calendar that walks forward day by day or month by month. */
export class DayCursor {
  day = 0;
  year = 0;
  month = 0;
  dom = 0;
  dow = 0;
  monthLength = 0;

  constructor(day: number) {
    this.set(day);
  }

  set(day: number): void {
    const civil = civilFromDays(day);
    this.day = day;
    this.year = civil.year;
    this.month = civil.month;
    this.dom = civil.day;
    this.dow = weekdayOfDay(day);
    this.monthLength = daysInMonth(civil.year, civil.month);
  }

  /** Move forward `count` days (count >= 0) within the month, or to the next month's first day. */
  advance(count: number): void {
    if (this.dom + count <= this.monthLength) {
      this.day += count;
      this.dom += count;
      this.dow = (this.dow + count) % 7;
    } else {
      this.nextMonth();
    }
  }

  nextDay(): void {
    this.advance(1);
  }

  /** Move to the first day of the following month. */
  nextMonth(): void {
    const remaining = this.monthLength - this.dom + 1;
    this.day += remaining;
    this.dow = (this.dow + remaining) % 7;
    this.dom = 1;
    if (this.month === 12) {
      this.month = 1;
      this.year += 1;
    } else {
      this.month += 1;
    }
    this.monthLength = daysInMonth(this.year, this.month);
  }
}

/** A schedule prepared for fast evaluation. */
export interface CompiledSchedule {
  /** Firing minutes of the day (hour * 60 + minute), ascending. */
  readonly times: Int16Array;
  /** nextTime[t] = index in `times` of the first entry >= t (t in 0..1440), or times.length. */
  readonly nextTime: Int16Array;
  readonly monthOk: Uint8Array;
  readonly domOk: Uint8Array;
  readonly dowOk: Uint8Array;
  /** nextDom[d] = smallest day-of-month >= d in the set, or 32. */
  readonly nextDom: Int8Array;
  /** dowDelta[w] = days from weekday w to the next weekday in the set (0 if w is in it). */
  readonly dowDelta: Int8Array;
  /** true: a day must match both day fields (robfig star bit); false: either. */
  readonly both: boolean;
  /** Whether any day at all matches (false for e.g. 30 February). */
  readonly firesEver: boolean;
  /** Smallest gap in ms between two firings on the same day, or Infinity with one time a day. */
  readonly intraDayGapMs: number;
  /** Index i in `times` with times[i + 1] - times[i] minimal (meaningful when intraDayGapMs is finite). */
  readonly intraDayGapIndex: number;
}

const compiledCache = new WeakMap<CronSchedule, CompiledSchedule>();

function checkList(name: string, list: unknown, min: number, max: number): readonly number[] {
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError(`invalid CronSchedule: ${name} must be a non-empty array (use parseCron)`);
  }
  for (const v of list) {
    if (!Number.isInteger(v) || v < min || v > max) {
      throw new TypeError(`invalid CronSchedule: ${name} contains ${String(v)}, outside ${min}-${max} (use parseCron)`);
    }
  }
  return list as readonly number[];
}

function mask(list: readonly number[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (const v of list) {
    out[v] = 1;
  }
  return out;
}

function dayMatches(c: CompiledSchedule, month: number, dom: number, dow: number): boolean {
  if (c.monthOk[month] === 0) {
    return false;
  }
  const domOk = c.domOk[dom] === 1;
  const dowOk = c.dowOk[dow] === 1;
  return c.both ? domOk && dowOk : domOk || dowOk;
}

/**
 * Move the cursor forward (staying put if it already matches) to the first matching day
 * not after lastDay. Returns false, with the cursor past lastDay, when there is none.
 * Jumps straight to candidate days, so the cost follows the number of matching days.
 */
export function seekMatchingDay(c: CompiledSchedule, cursor: DayCursor, lastDay: number): boolean {
  while (cursor.day <= lastDay) {
    if (c.monthOk[cursor.month] === 0) {
      cursor.nextMonth();
      continue;
    }
    const domJump = c.nextDom[cursor.dom]! - cursor.dom;
    const dowJump = c.dowDelta[cursor.dow]!;
    if (c.both) {
      if (domJump === 0 && dowJump === 0) {
        return true;
      }
      cursor.advance(Math.max(domJump, dowJump));
    } else {
      if (domJump === 0 || dowJump === 0) {
        return true;
      }
      cursor.advance(Math.min(domJump, dowJump));
    }
  }
  return false;
}

function computeFiresEver(c: Omit<CompiledSchedule, 'firesEver'>): boolean {
  // 28 consecutive years from 2001 hold every (date, weekday) pairing, Feb 29 included.
  const probe = { ...c, firesEver: true };
  const cursor = new DayCursor(daysFromCivil(2001, 1, 1));
  return seekMatchingDay(probe, cursor, daysFromCivil(2029, 1, 1) - 1);
}

/** Compile (and cache) a schedule. Throws TypeError for objects that parseCron would never produce. */
export function compileSchedule(schedule: CronSchedule): CompiledSchedule {
  const cached = compiledCache.get(schedule);
  if (cached) {
    return cached;
  }
  if (schedule === null || typeof schedule !== 'object') {
    throw new TypeError('invalid CronSchedule: expected the schedule object returned by parseCron');
  }
  const minutes = checkList('minutes', schedule.minutes, 0, 59);
  const hours = checkList('hours', schedule.hours, 0, 23);
  const doms = checkList('daysOfMonth', schedule.daysOfMonth, 1, 31);
  const months = checkList('months', schedule.months, 1, 12);
  const dows = checkList('daysOfWeek', schedule.daysOfWeek, 0, 7).map((d) => (d === 7 ? 0 : d));

  const timeSet = new Set<number>();
  for (const h of hours) {
    for (const m of minutes) {
      timeSet.add(h * 60 + m);
    }
  }
  const times = Int16Array.from([...timeSet].sort((a, b) => a - b));
  const nextTime = new Int16Array(DAY_MINUTES + 1);
  let index = times.length;
  for (let t = DAY_MINUTES; t >= 0; t--) {
    if (index > 0 && times[index - 1] === t) {
      index -= 1;
    }
    nextTime[t] = index;
  }
  let intraDayGapMs = Infinity;
  let intraDayGapIndex = 0;
  for (let i = 0; i + 1 < times.length; i++) {
    const gap = (times[i + 1]! - times[i]!) * MINUTE_MS;
    if (gap < intraDayGapMs) {
      intraDayGapMs = gap;
      intraDayGapIndex = i;
    }
  }
  const domOk = mask(doms, 33);
  const nextDom = new Int8Array(33);
  nextDom[32] = 32;
  for (let d = 31; d >= 0; d--) {
    nextDom[d] = domOk[d] === 1 ? d : nextDom[d + 1]!;
  }
  const dowOk = mask(dows, 7);
  const dowDelta = new Int8Array(7);
  for (let w = 0; w < 7; w++) {
    let k = 0;
    while (k < 7 && dowOk[(w + k) % 7] === 0) {
      k++;
    }
    dowDelta[w] = k;
  }
  const partial = {
    times,
    nextTime,
    monthOk: mask(months, 13),
    domOk,
    dowOk,
    nextDom,
    dowDelta,
    both: schedule.dayOfMonthWildcard === true || schedule.dayOfWeekWildcard === true,
    intraDayGapMs,
    intraDayGapIndex,
  };
  const compiled: CompiledSchedule = Object.freeze({ ...partial, firesEver: computeFiresEver(partial) });
  compiledCache.set(schedule, compiled);
  return compiled;
}

/**
 * Iterates the firing wall-clock minutes (minutes since 1970-01-01 wall time) in ascending
 * order, starting at the first one >= startMinute, and stopping after 9999-12-31.
 */
export class WallMinutes {
  private readonly c: CompiledSchedule;
  private readonly cursor: DayCursor;
  private index: number;
  private done: boolean;

  constructor(c: CompiledSchedule, startMinute: number) {
    this.c = c;
    const first = Math.max(startMinute, MIN_DAY * DAY_MINUTES);
    const day = Math.floor(first / DAY_MINUTES);
    const cursor = new DayCursor(day);
    this.cursor = cursor;
    this.done = !c.firesEver || day > MAX_DAY;
    // On a matching start day, continue from the first time >= the start; otherwise next() moves on.
    this.index = dayMatches(c, cursor.month, cursor.dom, cursor.dow)
      ? c.nextTime[first - day * DAY_MINUTES]!
      : c.times.length;
  }

  /** The next firing minute, or null when there is none (never fires, or past year 9999). */
  next(): number | null {
    if (this.done) {
      return null;
    }
    const times = this.c.times;
    if (this.index >= times.length) {
      this.cursor.nextDay();
      if (!seekMatchingDay(this.c, this.cursor, MAX_DAY)) {
        this.done = true;
        return null;
      }
      this.index = 0;
    }
    return this.cursor.day * DAY_MINUTES + times[this.index++]!;
  }
}
