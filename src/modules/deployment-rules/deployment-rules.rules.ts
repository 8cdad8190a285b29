// Pure rules of deployment rules: wildcard matching of environment names, wall-clock times
// (`HH:MM`, or a date-time whose time part is used, as the public clients send), the start/stop
// order, weekdays, and which project rule a new environment takes. No I/O.
import { isValidTimeZone } from '../../lib/cron.ts';

export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const DEFAULT_SCHEDULE = {
  timezone: 'UTC',
  start_time: '08:00',
  stop_time: '19:00',
  weekdays: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'] as Weekday[],
};

/** `*` matches any run of characters, `?` exactly one; everything else (e.g. `[PR]`) is literal;
 * case-insensitive like environment names. An empty wildcard matches no name. */
export function wildcardMatches(wildcard: string, name: string): boolean {
  if (wildcard === '') return false;
  const pattern = wildcard
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`, 'is').test(name);
}

/** the first rule (by priority order) whose wildcard matches the environment name */
export function firstMatchingRule<R extends { wildcard: string; priority_index: number }>(rules: R[], environmentName: string): R | undefined {
  return [...rules].sort((a, b) => a.priority_index - b.priority_index).find((r) => wildcardMatches(r.wildcard, environmentName));
}

/** `HH:MM`, `HH:MM:SS` or an ISO date-time (its UTC time part is used) → `HH:MM`; null when invalid */
export function parseWallTime(value: string): string | null {
  const plain = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/.exec(value);
  if (plain) return `${plain[1]}:${plain[2]}`;
  const dated = /^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):([0-5]\d)(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-]00:?00)?$/i.exec(value);
  if (dated) return `${dated[1]}:${dated[2]}`;
  return null;
}

/** `HH:MM` → the public API's form, a date-time on 1970-01-01 whose time part is the wall time */
export function wallTimeToDateTime(hhmm: string): string {
  return `1970-01-01T${hhmm}:00.000Z`;
}

export interface ScheduleInput { timezone: string; start_time: string; stop_time: string; weekdays: string[] }
export interface Schedule { timezone: string; start_time: string; stop_time: string; weekdays: Weekday[] }

/** validates a schedule; returns it normalised (`HH:MM`, weekdays in week order) or an error naming the field */
export function validateSchedule(input: ScheduleInput): { ok: true; value: Schedule } | { ok: false; error: string } {
  if (!isValidTimeZone(input.timezone)) return { ok: false, error: `timezone '${input.timezone}' is not an IANA time zone (e.g. UTC, Europe/Paris)` };
  const start = parseWallTime(input.start_time);
  if (start === null) return { ok: false, error: 'start_time must be a time HH:MM (or a date-time whose time part is used)' };
  const stop = parseWallTime(input.stop_time);
  if (stop === null) return { ok: false, error: 'stop_time must be a time HH:MM (or a date-time whose time part is used)' };
  if (stop <= start) return { ok: false, error: 'stop_time must be after start_time' };
  if (input.weekdays.length === 0) return { ok: false, error: 'weekdays must name at least one day' };
  for (const d of input.weekdays) {
    if (!(WEEKDAYS as readonly string[]).includes(d)) return { ok: false, error: `weekdays must be among ${WEEKDAYS.join(', ')}` };
  }
  if (new Set(input.weekdays).size !== input.weekdays.length) return { ok: false, error: 'weekdays must not repeat a day' };
  const weekdays = WEEKDAYS.filter((d) => input.weekdays.includes(d));
  return { ok: true, value: { timezone: input.timezone, start_time: start, stop_time: stop, weekdays } };
}

/** a new priority order must name every rule of the project exactly once */
export function checkPriorityOrder(existingIds: string[], orderedIds: string[]): string | null {
  const lower = orderedIds.map((id) => id.toLowerCase());
  if (new Set(lower).size !== lower.length) return 'project_deployment_rule_ids_in_order must not repeat an id';
  const known = new Set(existingIds);
  const unknown = lower.find((id) => !known.has(id));
  if (unknown) return `project_deployment_rule_ids_in_order names ${unknown}, which is not a rule of this project`;
  if (lower.length !== existingIds.length) return 'project_deployment_rule_ids_in_order must name every rule of the project';
  return null;
}
