// Owns: IANA time-zone validation and UTC-offset lookup through the built-in Intl API, a lazily
// filled per-zone cache of offset transitions, and the wall-clock -> instant mapping with berth's
// DST rules (see wallToInstant).

import { DAY_MS } from './calendar.ts';

const PROBE_MS = 7 * DAY_MS;
const PROBES_PER_BUCKET = 8;
const BUCKET_MS = PROBES_PER_BUCKET * PROBE_MS;

/**
 * True for IANA zone names the runtime knows, e.g. "Etc/UTC", "UTC", "Europe/Paris".
 * Rejects the empty string, garbage, offset strings such as "+05:30" (Intl accepts those but
 * IANA/Kubernetes do not), and wrong-case spellings of a zone's own name ("europe/paris", "utc"),
 * which Intl tolerates but a case-sensitive zoneinfo lookup (Go, Kubernetes) would not.
 */
const validity = new Map<string, boolean>();

export function isValidTimeZone(timeZone: string): boolean {
  if (typeof timeZone !== 'string') return false;
  let known = validity.get(timeZone);
  if (known === undefined) {
    known = checkTimeZone(timeZone);
    if (validity.size < 2048) validity.set(timeZone, known);
  }
  return known;
}

function checkTimeZone(timeZone: string): boolean {
  if (typeof timeZone !== 'string' || timeZone.length === 0 || timeZone.length > 100) {
    return false;
  }
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(timeZone)) {
    return false;
  }
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  return resolved === timeZone || resolved.toLowerCase() !== timeZone.toLowerCase();
}

export interface Transition {
  /** Instant (ms) at which the new offset starts. */
  readonly at: number;
  /** Offset (ms, local minus UTC) just before `at`. */
  readonly before: number;
  /** Offset from `at` on. */
  readonly after: number;
}

interface Bucket {
  readonly startOffset: number;
  readonly at: readonly number[];
  readonly offsets: readonly number[];
}

const OFFSET_PATTERN = /GMT(?:([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?)?$/;

/**
 * Offsets for one zone. Transitions are found by probing the Intl offset once a week and
 * bisecting to the second where it changes, one 8-week bucket at a time, on demand. A change
 * that is undone within the same week would be missed; no current tz rule does that.
 */
export class Zone {
  readonly id: string;
  private readonly format: Intl.DateTimeFormat;
  private readonly buckets = new Map<number, Bucket>();

  constructor(id: string) {
    this.id = id;
    this.format = new Intl.DateTimeFormat('en-US', { timeZone: id, timeZoneName: 'longOffset' });
  }

  private intlOffset(ms: number): number {
    const match = OFFSET_PATTERN.exec(this.format.format(ms));
    if (!match || match[1] === undefined) {
      return 0;
    }
    const sign = match[1] === '-' ? -1 : 1;
    const seconds = Number(match[2]) * 3600 + Number(match[3] ?? 0) * 60 + Number(match[4] ?? 0);
    return sign * seconds * 1000;
  }

  private bucket(index: number): Bucket {
    const cached = this.buckets.get(index);
    if (cached) {
      return cached;
    }
    const start = index * BUCKET_MS;
    const end = start + BUCKET_MS;
    const at: number[] = [];
    const offsets: number[] = [];
    const startOffset = this.intlOffset(start);
    let prevProbe = start;
    let prevOffset = startOffset;
    for (let k = 1; k <= PROBES_PER_BUCKET; k++) {
      const probe = start + k * PROBE_MS;
      const probeOffset = this.intlOffset(probe);
      let lo = prevProbe;
      let loOffset = prevOffset;
      while (probeOffset !== loOffset) {
        // Bisect (in whole seconds) for the first instant in (lo, probe] whose offset differs.
        let a = lo / 1000;
        let z = probe / 1000;
        while (z - a > 1) {
          const mid = Math.floor((a + z) / 2);
          if (this.intlOffset(mid * 1000) === loOffset) {
            a = mid;
          } else {
            z = mid;
          }
        }
        const transition = z * 1000;
        const newOffset = this.intlOffset(transition);
        if (transition < end) {
          at.push(transition);
          offsets.push(newOffset);
        }
        lo = transition;
        loOffset = newOffset;
      }
      prevProbe = probe;
      prevOffset = probeOffset;
    }
    const bucket: Bucket = { startOffset, at, offsets };
    this.buckets.set(index, bucket);
    return bucket;
  }

  /** UTC offset in ms (local minus UTC) in effect at instant `ms`. */
  offsetAt(ms: number): number {
    const b = this.bucket(Math.floor(ms / BUCKET_MS));
    for (let i = b.at.length - 1; i >= 0; i--) {
      if (b.at[i]! <= ms) {
        return b.offsets[i]!;
      }
    }
    return b.startOffset;
  }

  /** Offset transitions with from <= at <= to, ascending. */
  transitionsBetween(from: number, to: number): Transition[] {
    const out: Transition[] = [];
    for (let index = Math.floor(from / BUCKET_MS); index <= Math.floor(to / BUCKET_MS); index++) {
      const b = this.bucket(index);
      for (let i = 0; i < b.at.length; i++) {
        const at = b.at[i]!;
        if (at >= from && at <= to) {
          out.push({ at, before: i === 0 ? b.startOffset : b.offsets[i - 1]!, after: b.offsets[i]! });
        }
      }
    }
    return out;
  }

  /**
   * The instant at which wall-clock time `wall` (ms, local time counted as if UTC) happens.
   * berth's DST rules:
   * - wall time repeated by a backward shift (fall back): the FIRST instance, so it fires once;
   * - wall time skipped by a forward shift (spring forward): the first instant after the gap,
   *   i.e. the transition itself (02:30 on a 02:00->03:00 night fires at 03:00 new time).
   */
  wallToInstant(wall: number): number {
    const before = this.offsetAt(wall - DAY_MS);
    const after = this.offsetAt(wall + DAY_MS);
    const early = wall - before;
    if (before === after && this.offsetAt(early) === before) {
      return early;
    }
    const late = wall - after;
    const earlyOk = this.offsetAt(early) === before;
    const lateOk = this.offsetAt(late) === after;
    if (earlyOk && lateOk) {
      return Math.min(early, late);
    }
    if (earlyOk) {
      return early;
    }
    if (lateOk) {
      return late;
    }
    // In a gap: fire at the transition that opened it.
    const lo = Math.min(early, late);
    const hi = Math.max(early, late);
    const found = this.transitionsBetween(lo + 1, hi);
    return found.length > 0 ? found[0]!.at : hi;
  }
}

const zones = new Map<string, Zone>();

/** The cached Zone for an IANA name; throws RangeError for names isValidTimeZone rejects. */
export function getZone(timeZone: string): Zone {
  const cached = zones.get(timeZone);
  if (cached) {
    return cached;
  }
  if (!isValidTimeZone(timeZone)) {
    throw new RangeError(`unknown time zone '${String(timeZone)}'; expected an IANA name such as 'Etc/UTC' or 'Europe/Paris'`);
  }
  const zone = new Zone(timeZone);
  zones.set(timeZone, zone);
  return zone;
}
