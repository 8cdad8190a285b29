// Docker's log timestamps at the precision berth keeps them (the docker and swarm drivers'
// followed output, and the observers that store it). Docker stamps every line to the
// nanosecond (RFC 3339, `timestamps: true`); the database keeps microseconds (timestamptz), so a
// line's time is its timestamp truncated to the microsecond — the same value when it is stored,
// when a resume point is read back, and when a followed line is compared with that point.

const RFC3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/;

/** microseconds since the epoch of an RFC 3339 time, truncated (never rounded); null when unparsable */
export function microsOf(at: string): bigint | null {
  const m = RFC3339.exec(at);
  if (!m) return null;
  const seconds = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(seconds)) return null;
  return BigInt(seconds) * 1000n + BigInt((m[2] ?? '').slice(0, 6).padEnd(6, '0'));
}

/** an RFC 3339 UTC time with six fraction digits, exactly `micros` (≥ 0; what PostgreSQL stores unchanged) */
export function isoOfMicros(micros: bigint): string {
  const fraction = (micros % 1_000_000n).toString().padStart(6, '0');
  return new Date(Number(micros / 1000n)).toISOString().replace(/\.\d{3}Z$/, `.${fraction}Z`);
}

/** Docker's `since` for logs at or after `micros` ("seconds.nanoseconds"; the daemon keeps lines not before it) */
export function sinceOf(micros: bigint): string {
  if (micros <= 0n) return '0';
  return `${micros / 1_000_000n}.${(micros % 1_000_000n).toString().padStart(6, '0')}000`;
}
