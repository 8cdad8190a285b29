// Owns: parsing cron schedule text into CronSchedule values. The syntax follows the
// Kubernetes CronJob schedule (robfig/cron v3 "standard" parser), with stricter
// rejections, and every rejection says why in words a person can act on.

/**
 * A parsed five-field schedule. The fields are the expanded value sets.
 * Create these with parseCron; the other functions check any object they are given.
 */
export interface CronSchedule {
  /** The expression exactly as passed to parseCron (descriptors stay as written, e.g. "@daily"). */
  readonly expression: string;
  /** Minutes 0-59, ascending, no duplicates. */
  readonly minutes: readonly number[];
  /** Hours 0-23, ascending. */
  readonly hours: readonly number[];
  /** Days of month 1-31, ascending. */
  readonly daysOfMonth: readonly number[];
  /** Months 1-12, ascending. */
  readonly months: readonly number[];
  /** Days of week 0-6 with Sunday = 0 (an input 7 becomes 0), ascending. */
  readonly daysOfWeek: readonly number[];
  /**
   * robfig's "star bit" for the day-of-month field: true when some list element is `*` or `?`
   * with no step or step 1. When either day field has it, a day must match BOTH day fields;
   * otherwise a day matches when EITHER field matches.
   */
  readonly dayOfMonthWildcard: boolean;
  /** The same flag for the day-of-week field. */
  readonly dayOfWeekWildcard: boolean;
}

export type CronParseResult = { ok: true; schedule: CronSchedule } | { ok: false; reason: string };

interface FieldDef {
  readonly label: string;
  readonly min: number;
  /** Largest literal value accepted. */
  readonly max: number;
  /** End of `*` and of the open-ended `a/n` form. */
  readonly openMax: number;
  readonly names?: ReadonlyMap<string, number>;
  readonly nameKind?: string;
}

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const FIELDS: readonly FieldDef[] = [
  { label: 'minute', min: 0, max: 59, openMax: 59 },
  { label: 'hour', min: 0, max: 23, openMax: 23 },
  { label: 'day-of-month', min: 1, max: 31, openMax: 31 },
  {
    label: 'month', min: 1, max: 12, openMax: 12,
    names: new Map(MONTH_NAMES.map((n, i) => [n, i + 1])), nameKind: 'a month name (JAN-DEC)',
  },
  {
    // 7 is accepted as a second spelling of Sunday (robfig itself stops at 6); `*` and `a/n` end at 6.
    label: 'day-of-week', min: 0, max: 7, openMax: 6,
    names: new Map(DAY_NAMES.map((n, i) => [n, i])), nameKind: 'a day name (SUN-SAT)',
  },
];

/** The descriptors robfig's standard parser accepts (except `@every`), case-sensitive like robfig. */
const DESCRIPTORS: ReadonlyMap<string, string> = new Map([
  ['@yearly', '0 0 1 1 *'],
  ['@annually', '0 0 1 1 *'],
  ['@monthly', '0 0 1 * *'],
  ['@weekly', '0 0 * * 0'],
  ['@daily', '0 0 * * *'],
  ['@midnight', '0 0 * * *'],
  ['@hourly', '0 * * * *'],
]);
const DESCRIPTOR_LIST = [...DESCRIPTORS.keys()].join(', ');

const FIELD_SHAPE = 'minute hour day-of-month month day-of-week';

interface ParsedField {
  readonly values: number[];
  readonly wildcard: boolean;
}

class FieldError extends Error {}

function parseValue(text: string, def: FieldDef, element: string): number {
  if (text === '') {
    throw new FieldError(`'${element}' is missing a number`);
  }
  if (/^[0-9]+$/.test(text)) {
    const value = Number(text);
    if (value < def.min || value > def.max) {
      throw new FieldError(`${text.length > 6 ? text.slice(0, 6) + '...' : value} is out of range ${def.min}-${def.max}`);
    }
    return value;
  }
  const named = def.names?.get(text.toLowerCase());
  if (named !== undefined) {
    return named;
  }
  if (text === '*' || text === '?') {
    throw new FieldError(`'${element}' is not valid: '${text}' cannot be part of a range`);
  }
  throw new FieldError(`'${text}' is not a number${def.nameKind ? ` or ${def.nameKind}` : ''}`);
}

function parseElement(element: string, def: FieldDef, into: Set<number>): boolean {
  if (element === '') {
    throw new FieldError('empty list element (check for doubled, leading or trailing commas)');
  }
  const slash = element.split('/');
  if (slash.length > 2) {
    throw new FieldError(`'${element}' has more than one '/'`);
  }
  const base = slash[0]!;
  let step = 1;
  const hasStep = slash.length === 2;
  if (hasStep) {
    const stepText = slash[1]!;
    if (stepText === '') {
      throw new FieldError(`'${element}' is missing the step after '/'`);
    }
    if (!/^[0-9]+$/.test(stepText)) {
      throw new FieldError(`step '${stepText}' in '${element}' is not a whole number`);
    }
    step = Number(stepText);
    if (step === 0) {
      throw new FieldError(`step 0 in '${element}' is not allowed; a step must be at least 1`);
    }
  }
  let start: number;
  let end: number;
  let wildcard = false;
  if (base === '*' || base === '?') {
    start = def.min;
    end = def.openMax;
    wildcard = step === 1;
  } else {
    const dash = base.split('-');
    if (dash.length > 2) {
      throw new FieldError(`'${element}' is not a valid range (too many '-')`);
    }
    start = parseValue(dash[0]!, def, element);
    if (dash.length === 2) {
      end = parseValue(dash[1]!, def, element);
      if (start > end) {
        const hint = def.label === 'day-of-week' && end === 0 ? '; write Sunday as 7 to end a range on it' : '';
        throw new FieldError(`range '${base}' is reversed (${start} comes after ${end})${hint}`);
      }
    } else {
      // "a/n" means a through the end of the field, as in robfig; a lone value is just itself.
      end = hasStep ? Math.max(start, def.openMax) : start;
    }
  }
  for (let v = start; v <= end; v += step) {
    into.add(v);
  }
  return wildcard;
}

function parseField(text: string, def: FieldDef): ParsedField {
  const set = new Set<number>();
  let wildcard = false;
  for (const element of text.split(',')) {
    if (parseElement(element, def, set)) {
      wildcard = true;
    }
  }
  if (def.label === 'day-of-week' && set.delete(7)) {
    set.add(0);
  }
  return { values: [...set].sort((a, b) => a - b), wildcard };
}

function reject(reason: string): CronParseResult {
  return { ok: false, reason };
}

function parseFields(expression: string, fields: readonly string[]): CronParseResult {
  const parsed: ParsedField[] = [];
  for (let i = 0; i < FIELDS.length; i++) {
    const def = FIELDS[i]!;
    try {
      parsed.push(parseField(fields[i]!, def));
    } catch (error) {
      if (error instanceof FieldError) {
        return reject(`${def.label} field: ${error.message}`);
      }
      throw error;
    }
  }
  const [minute, hour, dom, month, dow] = parsed as [ParsedField, ParsedField, ParsedField, ParsedField, ParsedField];
  const schedule: CronSchedule = Object.freeze({
    expression,
    minutes: Object.freeze(minute.values),
    hours: Object.freeze(hour.values),
    daysOfMonth: Object.freeze(dom.values),
    months: Object.freeze(month.values),
    daysOfWeek: Object.freeze(dow.values),
    dayOfMonthWildcard: dom.wildcard,
    dayOfWeekWildcard: dow.wildcard,
  });
  return { ok: true, schedule };
}

/**
 * Parse a Kubernetes-CronJob-style schedule: five whitespace-separated fields
 * (minute hour day-of-month month day-of-week) or one of the descriptors
 * @yearly @annually @monthly @weekly @daily @midnight @hourly.
 *
 * Accepted beyond robfig: 7 as Sunday. Rejected although robfig accepts them: `TZ=`/`CRON_TZ=`
 * prefixes (Kubernetes rejects those too), `@every`, empty list elements (`1,,2`), and `*-5`
 * (robfig silently reads that as `*`). Surrounding whitespace is ignored.
 */
export function parseCron(expression: string): CronParseResult {
  if (typeof expression !== 'string') {
    return reject('the schedule must be a string');
  }
  const text = expression.trim();
  if (text === '') {
    return reject('the schedule is empty; expected five fields (' + FIELD_SHAPE + ') or a descriptor such as @daily');
  }
  if (/^(CRON_)?TZ=/i.test(text)) {
    return reject('a TZ= or CRON_TZ= prefix is not allowed in the schedule; set the time zone separately');
  }
  if (text.startsWith('@')) {
    const equivalent = DESCRIPTORS.get(text);
    if (equivalent !== undefined) {
      return parseFields(expression, equivalent.split(' '));
    }
    if (/^@every(\s|$)/i.test(text)) {
      return reject(`'@every' intervals are not supported; use a five-field schedule or one of ${DESCRIPTOR_LIST}`);
    }
    if (DESCRIPTORS.has(text.toLowerCase())) {
      return reject(`descriptors are lowercase: write '${text.toLowerCase()}' instead of '${text}'`);
    }
    return reject(`unknown descriptor '${text}'; supported descriptors are ${DESCRIPTOR_LIST}`);
  }
  const fields = text.split(/\s+/);
  if (fields.length !== FIELDS.length) {
    const extra = fields.length === 6 ? '; a seconds or year field is not supported' : '';
    return reject(`expected 5 fields (${FIELD_SHAPE}) but found ${fields.length}${extra}`);
  }
  return parseFields(expression, fields);
}
