// How both drivers read a `timestamptz` column. Nearly every row berth reads carries one or two,
// and nearly every one is turned straight back into ISO 8601 text for a response: pg's reader ran
// three regular expressions per value (postgres-date) and `toISOString` then formatted it again,
// 2–3 µs per value, 40 values on a page of 20. PostgreSQL's own text in a UTC session,
// `2026-11-25 19:01:27.123456+00`, is read here by position: the value is a `Date` as before
// (arithmetic and comparisons unchanged) whose ISO text is cut from the database's text once.
// Any other shape (another session time zone, BC, infinity, a five-digit year) goes to the
// driver's general reader.

/** a Date read from the database, whose ISO text (what `toISOString` and JSON give) is kept */
export class DbTimestamp extends Date {
  readonly #iso: string;

  constructor(ms: number, iso: string) {
    super(ms);
    this.#iso = iso;
  }

  // Date#toJSON calls toISOString, so JSON gets the kept text too
  override toISOString(): string {
    return this.#iso;
  }
}

const ZERO = 48;

function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return n;
}

/**
 * `YYYY-MM-DD HH:MI:SS[.f…]+00` → its Date with the ISO text kept, milliseconds truncated as
 * PostgreSQL's readers do; undefined for any other text
 */
export function readUtcTimestamp(text: string): DbTimestamp | undefined {
  const end = text.length - 3;
  if (end < 19 || text.charCodeAt(end) !== 43 /* + */ || text.charCodeAt(end + 1) !== ZERO || text.charCodeAt(end + 2) !== ZERO) return undefined;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined;
  let millis = '000';
  if (end > 19) {
    if (text.charCodeAt(19) !== 46 /* . */ || end === 20) return undefined;
    millis = (text.slice(20, Math.min(end, 23)) + '00').slice(0, 3);
  }
  const year = digits(text, 0, 4);
  const ms = Date.UTC(year, digits(text, 5, 7) - 1, digits(text, 8, 10), digits(text, 11, 13), digits(text, 14, 16), digits(text, 17, 19), digits(millis, 0, 3));
  // NaN: a non-digit somewhere; years below 100 would be read as 19xx by Date.UTC
  if (Number.isNaN(ms) || year < 100 || (end > 23 && Number.isNaN(digits(text, 23, end)))) return undefined;
  return new DbTimestamp(ms, `${text.slice(0, 10)}T${text.slice(11, 19)}.${millis}Z`);
}

/** a timestamptz reader for a driver: the fast path above, else the driver's own reader */
export function timestamptzReader<T>(general: (text: string) => T): (text: string) => Date | T {
  return (text) => readUtcTimestamp(text) ?? general(text);
}
