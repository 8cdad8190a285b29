// Owns: tests for src/lib/cron.ts: parsing (accept/reject and messages), day-field semantics,
// firing times in several zones across DST changes, minimum-gap checks, and a seeded
// property test comparing minimumGapMs against brute-force enumeration.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkMinimumInterval,
  findMinimumGap,
  isValidTimeZone,
  minimumGapMs,
  nextOccurrence,
  occurrencesBetween,
  parseCron,
} from './cron.ts';
import type { CronSchedule } from './cron.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const FROM = new Date('2025-01-01T00:00:00Z');

function cron(expression: string): CronSchedule {
  const result = parseCron(expression);
  if (!result.ok) {
    throw new Error(`expected '${expression}' to parse: ${result.reason}`);
  }
  return result.schedule;
}

function reason(expression: string): string {
  const result = parseCron(expression);
  assert.equal(result.ok, false, `expected '${expression}' to be rejected`);
  return result.ok ? '' : result.reason;
}

function iso(dates: readonly Date[]): string[] {
  return dates.map((d) => d.toISOString());
}

function next(expression: string, timeZone: string, after: string): string | null {
  return nextOccurrence(cron(expression), timeZone, new Date(after))?.toISOString() ?? null;
}

/** The next `count` firings after `after`, by chaining nextOccurrence. */
function chain(expression: string, timeZone: string, after: string, count: number): string[] {
  const schedule = cron(expression);
  const out: string[] = [];
  let cursor = new Date(after);
  for (let i = 0; i < count; i++) {
    const found = nextOccurrence(schedule, timeZone, cursor);
    assert.ok(found, `expected a firing after ${cursor.toISOString()}`);
    out.push(found.toISOString());
    cursor = found;
  }
  return out;
}

function gapMinutes(expression: string, timeZone: string): number | null {
  const gap = minimumGapMs(cron(expression), timeZone, { from: FROM });
  return gap === null ? null : gap / MINUTE;
}

describe('parseCron accepts', () => {
  it('expands lists, ranges and steps', () => {
    const s = cron('*/15 0 1,15 * 1-5');
    assert.deepEqual(s.minutes, [0, 15, 30, 45]);
    assert.deepEqual(s.hours, [0]);
    assert.deepEqual(s.daysOfMonth, [1, 15]);
    assert.deepEqual(s.months, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert.deepEqual(s.daysOfWeek, [1, 2, 3, 4, 5]);
    assert.equal(s.dayOfMonthWildcard, false);
    assert.equal(s.dayOfWeekWildcard, false);
    assert.equal(s.expression, '*/15 0 1,15 * 1-5');
    assert.ok(Object.isFrozen(s) && Object.isFrozen(s.minutes));
  });

  it('reads a/n as a-max/n, a-b/n from a, and oversized steps as the start only', () => {
    assert.deepEqual(cron('5/15 * * * *').minutes, [5, 20, 35, 50]);
    assert.deepEqual(cron('10-20/5 * * * *').minutes, [10, 15, 20]);
    assert.deepEqual(cron('*/90 * * * *').minutes, [0]);
    assert.deepEqual(cron('0 1/6 * * *').hours, [1, 7, 13, 19]);
    assert.deepEqual(cron('0 0 * * 1/2').daysOfWeek, [1, 3, 5]);
    assert.deepEqual(cron('0 0 3-5,1,4 * *').daysOfMonth, [1, 3, 4, 5]);
    assert.deepEqual(cron('00 07 * * *').hours, [7]);
  });

  it('treats ? like * in any field and ignores extra whitespace', () => {
    const q = cron('? ? ? ? ?');
    const star = cron('* * * * *');
    assert.deepEqual({ ...q, expression: '' }, { ...star, expression: '' });
    assert.equal(q.dayOfMonthWildcard, true);
    assert.equal(q.dayOfWeekWildcard, true);
    assert.deepEqual(cron('  0\t0   *  * *  ').minutes, [0]);
  });

  it('accepts month and weekday names in any case, also in ranges', () => {
    const s = cron('0 0 * jan-MAR mon,Wed,FRI');
    assert.deepEqual(s.months, [1, 2, 3]);
    assert.deepEqual(s.daysOfWeek, [1, 3, 5]);
    assert.deepEqual(cron('0 0 * Dec *').months, [12]);
    assert.deepEqual(cron('0 0 * * sun').daysOfWeek, [0]);
  });

  it('accepts 7 as Sunday, alone, in lists and ending ranges', () => {
    assert.deepEqual(cron('0 0 * * 7').daysOfWeek, [0]);
    assert.deepEqual(cron('0 0 * * 0,7').daysOfWeek, [0]);
    assert.deepEqual(cron('0 0 * * 5-7').daysOfWeek, [0, 5, 6]);
    assert.deepEqual(cron('0 0 * * FRI-7').daysOfWeek, [0, 5, 6]);
    // 2025-01-05 is a Sunday.
    assert.equal(next('0 9 * * 7', 'Etc/UTC', '2025-01-01T00:00:00Z'), '2025-01-05T09:00:00.000Z');
  });

  it('expands descriptors like robfig', () => {
    const cases: Array<[string, string]> = [
      ['@yearly', '0 0 1 1 *'],
      ['@annually', '0 0 1 1 *'],
      ['@monthly', '0 0 1 * *'],
      ['@weekly', '0 0 * * 0'],
      ['@daily', '0 0 * * *'],
      ['@midnight', '0 0 * * *'],
      ['@hourly', '0 * * * *'],
    ];
    for (const [descriptor, fields] of cases) {
      const a = cron(descriptor);
      assert.equal(a.expression, descriptor);
      assert.deepEqual({ ...a, expression: '' }, { ...cron(fields), expression: '' }, descriptor);
    }
    assert.equal(next('@weekly', 'Etc/UTC', '2025-01-01T00:00:00Z'), '2025-01-05T00:00:00.000Z');
    assert.equal(next('@yearly', 'Etc/UTC', '2025-01-01T00:00:00Z'), '2026-01-01T00:00:00.000Z');
    assert.equal(next('@monthly', 'Etc/UTC', '2025-01-31T00:00:00Z'), '2025-02-01T00:00:00.000Z');
  });
});

describe('parseCron rejects, saying why', () => {
  const cases: Array<[string, RegExp]> = [
    ['61 * * * *', /^minute field: 61 is out of range 0-59$/],
    ['* 24 * * *', /^hour field: 24 is out of range 0-23$/],
    ['* * 0 * *', /^day-of-month field: 0 is out of range 1-31$/],
    ['* * 32 * *', /^day-of-month field: 32 is out of range 1-31$/],
    ['* * * 13 *', /^month field: 13 is out of range 1-12$/],
    ['* * * * 8', /^day-of-week field: 8 is out of range 0-7$/],
    ['0-60 * * * *', /^minute field: 60 is out of range 0-59$/],
    ['* * * * * *', /expected 5 fields .* but found 6; a seconds or year field is not supported/],
    ['* * * *', /expected 5 fields .* but found 4/],
    ['', /empty/],
    ['   ', /empty/],
    ['TZ=UTC 0 0 * * *', /TZ= or CRON_TZ= prefix is not allowed/],
    ['CRON_TZ=Europe/Paris 0 0 * * *', /TZ= or CRON_TZ= prefix is not allowed/],
    ['1,,2 * * * *', /^minute field: empty list element/],
    ['1, * * * *', /^minute field: empty list element/],
    ['*/0 * * * *', /^minute field: step 0 in '\*\/0' is not allowed/],
    ['0 5/0 * * *', /^hour field: step 0/],
    ['*/x * * * *', /^minute field: step 'x' in '\*\/x' is not a whole number/],
    ['5/ * * * *', /^minute field: '5\/' is missing the step/],
    ['1/2/3 * * * *', /more than one '\/'/],
    ['5-3 * * * *', /^minute field: range '5-3' is reversed \(5 comes after 3\)/],
    ['0 0 * * FRI-SUN', /^day-of-week field: range 'FRI-SUN' is reversed.*write Sunday as 7/],
    ['0 0 * DEC-JAN *', /^month field: range 'DEC-JAN' is reversed/],
    ['1-2-3 * * * *', /not a valid range/],
    ['*-5 * * * *', /'\*' cannot be part of a range/],
    ['x * * * *', /^minute field: 'x' is not a number$/],
    ['0 0 * FOO *', /^month field: 'FOO' is not a number or a month name \(JAN-DEC\)$/],
    ['0 0 * * MONDAY', /^day-of-week field: 'MONDAY' is not a number or a day name \(SUN-SAT\)$/],
    ['0 0 JAN * *', /^day-of-month field: 'JAN' is not a number$/],
    ['-1 * * * *', /^minute field: '-1' is missing a number$/],
    ['+5 * * * *', /^minute field: '\+5' is not a number$/],
    ['@every 5m', /'@every' intervals are not supported/],
    ['@Daily', /descriptors are lowercase: write '@daily'/],
    ['@reboot', /unknown descriptor '@reboot'; supported descriptors are @yearly/],
    ['@daily 0', /unknown descriptor/],
  ];
  for (const [expression, pattern] of cases) {
    it(JSON.stringify(expression), () => {
      assert.match(reason(expression), pattern);
    });
  }

  it('rejects non-strings without throwing', () => {
    assert.match(reason(42 as unknown as string), /must be a string/);
  });
});

describe('day-of-month / day-of-week combination (robfig star bit)', () => {
  const window = (expression: string): string[] =>
    iso(occurrencesBetween(cron(expression), 'Etc/UTC', new Date('2025-06-01T00:00:00Z'), new Date('2025-07-20T00:00:00Z')))
      .map((s) => s.slice(0, 10));

  it('ORs the fields when both are restricted', () => {
    // Fridays in June/July 2025, plus the 13th of each month (June 13 is itself a Friday).
    assert.deepEqual(window('0 0 13 * 5'), [
      '2025-06-06', '2025-06-13', '2025-06-20', '2025-06-27', '2025-07-04', '2025-07-11', '2025-07-13', '2025-07-18',
    ]);
  });

  it('ANDs them when either field is * or ?', () => {
    assert.deepEqual(window('0 0 * * 5'), ['2025-06-06', '2025-06-13', '2025-06-20', '2025-06-27', '2025-07-04', '2025-07-11', '2025-07-18']);
    assert.deepEqual(window('0 0 13 * ?'), ['2025-06-13', '2025-07-13']);
    // A * anywhere in the list sets the star bit.
    assert.deepEqual(window('0 0 *,5 * 5'), window('0 0 * * 5'));
  });

  it('does not treat */2 as a wildcard (step > 1) but does treat */1 as one', () => {
    // */2 is restricted, so it ORs: odd days OR Fridays.
    const odd = window('0 0 */2 * 5');
    assert.ok(odd.includes('2025-06-03') && odd.includes('2025-06-05') && odd.includes('2025-06-06'));
    assert.ok(!odd.includes('2025-06-02') && !odd.includes('2025-06-04'));
    assert.deepEqual(window('0 0 */1 * 5'), window('0 0 * * 5'));
  });

  it('a full but non-wildcard day-of-month range ORs into every day', () => {
    assert.equal(window('0 0 1-31 * 1').length, 49);
  });
});

describe('nextOccurrence', () => {
  it('works in UTC and is strictly after the given instant', () => {
    assert.equal(next('*/15 * * * *', 'Etc/UTC', '2025-05-05T10:07:30Z'), '2025-05-05T10:15:00.000Z');
    assert.equal(next('*/15 * * * *', 'UTC', '2025-05-05T10:15:00Z'), '2025-05-05T10:30:00.000Z');
    assert.equal(next('*/15 * * * *', 'UTC', '2025-05-05T10:14:59.999Z'), '2025-05-05T10:15:00.000Z');
    assert.equal(next('59 23 31 12 *', 'Etc/UTC', '2025-06-01T00:00:00Z'), '2025-12-31T23:59:00.000Z');
    assert.equal(next('0 0 1 1 *', 'Etc/UTC', '2025-12-31T23:59:00Z'), '2026-01-01T00:00:00.000Z');
  });

  it('finds 29 February: from 2027 it is 2028-02-29', () => {
    assert.equal(next('0 0 29 2 *', 'Etc/UTC', '2027-01-01T00:00:00Z'), '2028-02-29T00:00:00.000Z');
    assert.equal(next('0 0 29 2 *', 'America/New_York', '2027-01-01T00:00:00Z'), '2028-02-29T05:00:00.000Z');
    // 2100 is not a leap year: after 2096 the next is 2104.
    assert.equal(next('0 0 29 2 *', 'Etc/UTC', '2096-03-01T00:00:00Z'), '2104-02-29T00:00:00.000Z');
  });

  it('returns null for a schedule that never fires, which still parses', () => {
    const result = parseCron('0 0 30 2 *');
    assert.equal(result.ok, true);
    assert.equal(next('0 0 30 2 *', 'Etc/UTC', '2025-01-01T00:00:00Z'), null);
    assert.equal(next('0 0 31 4,6,9,11 *', 'Europe/Paris', '2025-01-01T00:00:00Z'), null);
    assert.deepEqual(occurrencesBetween(cron('0 0 30 2 *'), 'UTC', FROM, new Date('2040-01-01T00:00:00Z')), []);
  });

  it('Asia/Kolkata (+05:30)', () => {
    assert.equal(next('30 9 * * *', 'Asia/Kolkata', '2025-01-01T00:00:00Z'), '2025-01-01T04:00:00.000Z');
    assert.equal(next('0 0 * * *', 'Asia/Kolkata', '2025-01-01T00:00:00Z'), '2025-01-01T18:30:00.000Z');
    assert.equal(next('0 0 1 1 *', 'Asia/Kolkata', '2025-06-01T00:00:00Z'), '2025-12-31T18:30:00.000Z');
  });

  it('Europe/Paris spring forward: a time in the gap fires at the transition', () => {
    // 2025-03-30 02:00 CET -> 03:00 CEST at 01:00Z.
    assert.deepEqual(chain('30 2 * * *', 'Europe/Paris', '2025-03-28T12:00:00Z', 3), [
      '2025-03-29T01:30:00.000Z', // 02:30 CET
      '2025-03-30T01:00:00.000Z', // 02:30 does not exist: 03:00 CEST
      '2025-03-31T00:30:00.000Z', // 02:30 CEST
    ]);
    assert.equal(next('0 9 * * *', 'Europe/Paris', '2025-03-29T12:00:00Z'), '2025-03-30T07:00:00.000Z');
  });

  it('Europe/Paris fall back: a repeated time fires once, at its first instance', () => {
    // 2025-10-26 03:00 CEST -> 02:00 CET at 01:00Z; 02:00-02:59 happens twice.
    assert.deepEqual(chain('30 2 * * *', 'Europe/Paris', '2025-10-25T12:00:00Z', 2), [
      '2025-10-26T00:30:00.000Z', // 02:30 CEST, not 02:30 CET (01:30Z)
      '2025-10-27T01:30:00.000Z',
    ]);
  });

  it('America/New_York across both changes', () => {
    // 2025-03-09 02:00 EST -> 03:00 EDT (07:00Z); 2025-11-02 02:00 EDT -> 01:00 EST (06:00Z).
    assert.deepEqual(chain('30 2 * * *', 'America/New_York', '2025-03-08T12:00:00Z', 2), [
      '2025-03-09T07:00:00.000Z',
      '2025-03-10T06:30:00.000Z',
    ]);
    // Two gap times and 03:00 itself collapse into one firing at 03:00 EDT.
    assert.deepEqual(chain('0,30 2,3 * * *', 'America/New_York', '2025-03-09T05:00:00Z', 3), [
      '2025-03-09T07:00:00.000Z',
      '2025-03-09T07:30:00.000Z',
      '2025-03-10T06:00:00.000Z',
    ]);
    assert.deepEqual(chain('30 1 * * *', 'America/New_York', '2025-11-01T12:00:00Z', 2), [
      '2025-11-02T05:30:00.000Z', // 01:30 EDT only
      '2025-11-03T06:30:00.000Z',
    ]);
    // Every minute: the repeated hour does not fire again.
    assert.deepEqual(iso(occurrencesBetween(cron('* * * * *'), 'America/New_York',
      new Date('2025-11-02T05:57:00Z'), new Date('2025-11-02T07:01:00Z'))), [
      '2025-11-02T05:58:00.000Z', '2025-11-02T05:59:00.000Z', '2025-11-02T07:00:00.000Z', '2025-11-02T07:01:00.000Z',
    ]);
    // Starting inside the second pass of the repeated hour.
    assert.equal(next('* * * * *', 'America/New_York', '2025-11-02T06:30:00Z'), '2025-11-02T07:00:00.000Z');
    assert.equal(next('15 1 * * *', 'America/New_York', '2025-11-02T05:20:00Z'), '2025-11-03T06:15:00.000Z');
  });

  it('Australia/Lord_Howe (30-minute DST) across both changes', () => {
    // 2025-10-05 02:00 +10:30 -> 02:30 +11:00 at 2025-10-04T15:30Z.
    assert.deepEqual(chain('15 2 * * *', 'Australia/Lord_Howe', '2025-10-03T12:00:00Z', 3), [
      '2025-10-03T15:45:00.000Z', // 02:15 +10:30
      '2025-10-04T15:30:00.000Z', // 02:15 skipped: fires at 02:30 +11:00
      '2025-10-05T15:15:00.000Z', // 02:15 +11:00
    ]);
    // 2025-04-06 02:00 +11:00 -> 01:30 +10:30 at 2025-04-05T15:00Z; 01:30-01:59 happens twice.
    assert.deepEqual(chain('45 1 * * *', 'Australia/Lord_Howe', '2025-04-05T00:00:00Z', 2), [
      '2025-04-05T14:45:00.000Z', // 01:45 +11:00 (first instance)
      '2025-04-06T15:15:00.000Z',
    ]);
    assert.deepEqual(iso(occurrencesBetween(cron('*/15 * * * *'), 'Australia/Lord_Howe',
      new Date('2025-04-05T14:40:00Z'), new Date('2025-04-05T15:50:00Z'))), [
      '2025-04-05T14:45:00.000Z', '2025-04-05T15:30:00.000Z', '2025-04-05T15:45:00.000Z',
    ]);
  });

  it('throws RangeError for an unknown zone or an invalid date', () => {
    assert.throws(() => nextOccurrence(cron('* * * * *'), 'Mars/Olympus', FROM), RangeError);
    assert.throws(() => nextOccurrence(cron('* * * * *'), '', FROM), /unknown time zone/);
    assert.throws(() => nextOccurrence(cron('* * * * *'), 'UTC', new Date(NaN)), /valid Date/);
  });
});

describe('occurrencesBetween', () => {
  it('returns (from, to], ascending, capped by limit', () => {
    const s = cron('0 * * * *');
    const from = new Date('2025-01-01T00:00:00Z');
    const to = new Date('2025-01-01T03:00:00Z');
    assert.deepEqual(iso(occurrencesBetween(s, 'UTC', from, to)), [
      '2025-01-01T01:00:00.000Z', '2025-01-01T02:00:00.000Z', '2025-01-01T03:00:00.000Z',
    ]);
    assert.equal(occurrencesBetween(s, 'UTC', from, to, 2).length, 2);
    assert.deepEqual(occurrencesBetween(s, 'UTC', from, to, 0), []);
    assert.deepEqual(occurrencesBetween(s, 'UTC', to, from), []);
    assert.equal(occurrencesBetween(cron('* * * * *'), 'UTC', from, new Date('2025-02-01T00:00:00Z')).length, 1000);
    assert.throws(() => occurrencesBetween(s, 'UTC', from, to, -1), RangeError);
  });
});

describe('isValidTimeZone', () => {
  it('accepts IANA names', () => {
    for (const tz of ['Etc/UTC', 'UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Etc/GMT+5']) {
      assert.equal(isValidTimeZone(tz), true, tz);
    }
  });
  it('rejects garbage, empty, offsets and wrong-case names', () => {
    for (const tz of ['', ' ', 'garbage', 'Mars/Olympus', '+05:30', '-03:00', 'UTC ', 'europe/paris', 'utc', '../etc/passwd']) {
      assert.equal(isValidTimeZone(tz), false, JSON.stringify(tz));
    }
    assert.equal(isValidTimeZone(undefined as unknown as string), false);
  });
});

describe('minimumGapMs', () => {
  it('judges real firing times across hour, day, month and year boundaries (UTC)', () => {
    const cases: Array<[string, number | null]> = [
      ['58,1 * * * *', 3],
      ['*/5 * * * *', 5],
      ['*/7 * * * *', 4], // 56 -> next hour's 00
      ['0-4 0 * * *', 1],
      ['0,59 0,23 * * *', 1], // 23:59 -> 00:00
      ['59 23 31 12 *', 365 * 1440],
      ['0 0 1 * *', 28 * 1440],
      ['0,3 * 31 * *', 3],
      ['0,59 0,23 31,1 12,1 *', 1], // only Dec 31 23:59 -> Jan 1 00:00 is that close
      ['0,59 0,23 * * 1,2', 1], // Monday 23:59 -> Tuesday 00:00
      ['0,59 0,23 * * 1,3', 59],
      ['0,59 0,23 1 * 0', 1], // OR: a Sunday on the last day of a month, then the 1st
      ['0,59 0,23 1 * *', 59], // AND: the 1st only
      ['0,59 0,23 29,1 2,3 *', 1], // Feb 29 -> Mar 1, leap years only
      ['0 0 29 2 *', 1461 * 1440],
      ['0 12 * * *', 1440],
      ['* * * * *', 1],
      ['@hourly', 60],
      ['@yearly', 365 * 1440],
      ['0 0 30 2 *', null],
    ];
    for (const [expression, minutes] of cases) {
      assert.equal(gapMinutes(expression, 'Etc/UTC'), minutes, expression);
    }
  });

  it('is the same in a fixed-offset zone', () => {
    assert.equal(gapMinutes('0,59 0,23 * * *', 'Asia/Kolkata'), 1);
    assert.equal(gapMinutes('0 0 29 2 *', 'Asia/Kolkata'), 1461 * 1440);
  });

  it('sees DST compress and stretch gaps', () => {
    // 01:59 EST -> 03:00 EDT is one real minute, 61 on the wall clock.
    assert.equal(gapMinutes('0,59 1,3 * * *', 'America/New_York'), 1);
    assert.equal(gapMinutes('0,59 1,3 * * *', 'Etc/UTC'), 59);
    assert.equal(gapMinutes('0,59 1,3 * * *', 'Europe/Paris'), 1);
    // 02:15 is moved to 02:30 (+11:00), one minute before 02:31.
    assert.equal(gapMinutes('15,31 2 * * *', 'Australia/Lord_Howe'), 1);
    assert.equal(gapMinutes('15,31 2 * * *', 'Etc/UTC'), 16);
    // 02:00 and 02:30 collapse into 03:00 on the spring-forward day; nothing gets closer than 30.
    assert.equal(gapMinutes('0,30 2,3 * * *', 'America/New_York'), 30);
    // Every other hour: 00:00 EST, (02:00 ->) 03:00 EDT, 04:00 EDT.
    assert.equal(gapMinutes('0 */2 * * *', 'America/New_York'), 60);
    assert.equal(gapMinutes('0 0 * * *', 'America/New_York'), 23 * 60);
    assert.equal(gapMinutes('30 2 * * *', 'America/New_York'), 23 * 60 + 30);
    // A Saturday Nov 1 is always followed by the fall-back Sunday: the 24h wall gap is 25h real.
    assert.equal(gapMinutes('0 2 1 11 0', 'Etc/UTC'), 24 * 60);
    assert.equal(gapMinutes('0 2 1 11 0', 'America/New_York'), 25 * 60);
  });

  it('reports an example pair with that gap', () => {
    const w = findMinimumGap(cron('0,59 0,23 31,1 12,1 *'), 'Etc/UTC', { from: FROM });
    assert.ok(w);
    assert.equal(new Date(w.first).toISOString(), '2025-12-31T23:59:00.000Z');
    assert.equal(new Date(w.second).toISOString(), '2026-01-01T00:00:00.000Z');
    const dst = findMinimumGap(cron('0,59 1,3 * * *'), 'America/New_York', { from: FROM });
    assert.ok(dst);
    assert.equal(new Date(dst.first).toISOString(), '2025-03-09T06:59:00.000Z');
    assert.equal(new Date(dst.second).toISOString(), '2025-03-09T07:00:00.000Z');
  });

  it('is fast once a zone is warm', () => {
    const expressions = ['*/5 * * * *', '0 9-17 * * MON-FRI', '0 0 29 2 *', '0,59 0,23 * * 1,2', '17 */3 13 * 5', '0 0 * * 0,2,4'];
    for (const tz of ['Etc/UTC', 'America/New_York']) {
      for (const e of expressions) {
        const s = cron(e);
        minimumGapMs(s, tz, { from: FROM });
        const start = performance.now();
        minimumGapMs(s, tz, { from: FROM });
        const elapsed = performance.now() - start;
        assert.ok(elapsed < 50, `${e} in ${tz} took ${elapsed.toFixed(1)} ms`);
      }
    }
  });
});

describe('checkMinimumInterval', () => {
  const check = (expression: string, timeZone = 'Etc/UTC', min?: number): string | null =>
    checkMinimumInterval(cron(expression), timeZone, min, { from: FROM });
  const TIMES = /at (\d{4}-\d\d-\d\d \d\d:\d\d) \(UTC[+-]\d\d:\d\d\) and (\d{4}-\d\d-\d\d \d\d:\d\d) \(UTC[+-]\d\d:\d\d\)/;

  function rejected(expression: string, timeZone: string, minutes: string, first: string, second: string): void {
    const message = check(expression, timeZone);
    assert.ok(message, `expected '${expression}' to be rejected in ${timeZone}`);
    assert.ok(message.includes(`fires ${minutes} apart`), message);
    assert.ok(message.includes('at most once every 5 minutes'), message);
    const m = TIMES.exec(message);
    assert.ok(m, message);
    assert.deepEqual([m[1], m[2]], [first, second], message);
  }

  it('allows exactly 5 minutes and rejects 4, within an hour', () => {
    assert.equal(check('*/5 * * * *'), null);
    rejected('*/4 * * * *', 'Etc/UTC', '4 minutes', '2025-01-01 00:00', '2025-01-01 00:04');
    assert.equal(check('10,15 8 * * *'), null);
    rejected('10,14 8 * * *', 'Etc/UTC', '4 minutes', '2025-01-01 08:10', '2025-01-01 08:14');
  });

  it('across an hour boundary', () => {
    assert.equal(check('57,2 * * * *'), null);
    rejected('58,2 * * * *', 'Etc/UTC', '4 minutes', '2025-01-01 00:58', '2025-01-01 01:02');
  });

  it('across a day boundary', () => {
    assert.equal(check('1,56 0,23 * * *'), null);
    rejected('1,57 0,23 * * *', 'Etc/UTC', '4 minutes', '2025-01-01 23:57', '2025-01-02 00:01');
  });

  it('across a month boundary', () => {
    assert.equal(check('0,55 0,23 1,31 * *'), null);
    rejected('0,56 0,23 1,31 * *', 'Etc/UTC', '4 minutes', '2025-01-31 23:56', '2025-02-01 00:00');
  });

  it('across a year boundary', () => {
    assert.equal(check('0,55 0,23 31,1 12,1 *'), null);
    rejected('0,56 0,23 31,1 12,1 *', 'Etc/UTC', '4 minutes', '2025-12-31 23:56', '2026-01-01 00:00');
  });

  it('across 29 February', () => {
    assert.equal(check('0,55 0,23 29,1 2,3 *'), null);
    rejected('0,56 0,23 29,1 2,3 *', 'Etc/UTC', '4 minutes', '2028-02-29 23:56', '2028-03-01 00:00');
  });

  it('across a spring-forward change in the schedule\'s zone', () => {
    assert.equal(check('0,55 1,3 * * *', 'America/New_York'), null);
    rejected('0,56 1,3 * * *', 'America/New_York', '4 minutes', '2025-03-09 01:56', '2025-03-09 03:00');
    assert.equal(check('0,56 1,3 * * *', 'Etc/UTC'), null);
  });

  it('honours a custom minimum and accepts schedules that never fire', () => {
    assert.equal(check('0 * * * *', 'Etc/UTC', 60), null);
    assert.match(check('0 * * * *', 'Etc/UTC', 61) ?? '', /fires 1 hour apart .* at most once every 1 hour 1 minute$/);
    assert.equal(check('0 0 30 2 *'), null);
    assert.throws(() => checkMinimumInterval(cron('* * * * *'), 'UTC', -1), RangeError);
  });
});

// ---------------------------------------------------------------------------------------------
// Property test: minimumGapMs against brute-force enumeration with occurrencesBetween.

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

class Gen {
  private readonly random: () => number;
  constructor(seed: number) {
    this.random = mulberry32(seed);
  }
  int(n: number): number {
    return Math.floor(this.random() * n);
  }
  chance(p: number): boolean {
    return this.random() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  list(pool: readonly number[], max: number, random: () => number): string {
    const count = 1 + this.int(max);
    const values = new Set<number>();
    for (let i = 0; i < count; i++) {
      values.add(this.chance(0.8) ? this.pick(pool) : random());
    }
    return [...values].join(',');
  }
  // Biased towards small gaps: minutes near the hour's ends, hours near midnight and the DST
  // hours, days near month ends, few weekdays.
  minutes(): string {
    const r = this.random();
    if (r < 0.6) return this.list([0, 1, 2, 3, 4, 5, 55, 56, 57, 58, 59, 30], 3, () => this.int(60));
    if (r < 0.75) return String(this.int(60));
    if (r < 0.85) return this.pick(['57-59', '0-2', '58-59', '0-1', '28-31']);
    if (r < 0.93) return `*/${this.pick([10, 15, 20, 30])}`;
    return `${this.pick([50, 52, 40])}/${this.pick([3, 4, 5])}`;
  }
  hours(allowStar: boolean): string {
    const r = this.random();
    if (r < 0.55) return this.list([0, 1, 2, 3, 22, 23, 12], 3, () => this.int(24));
    if (r < 0.75) return String(this.pick([0, 1, 2, 3, 23, this.int(24)]));
    if (r < 0.85) return this.pick(['22-23', '0-1', '1-3', '23']);
    if (r < 0.93 || !allowStar) return `*/${this.pick([6, 8, 12])}`;
    return '*';
  }
  dom(): string {
    const r = this.random();
    if (r < 0.45) return '*';
    if (r < 0.5) return '?';
    if (r < 0.85) return this.list([1, 2, 28, 29, 30, 31, 15], 3, () => 1 + this.int(31));
    if (r < 0.95) return this.pick(['28-31', '1-2', '30-31', '29-31']);
    return `*/${this.pick([10, 15])}`;
  }
  month(): string {
    const r = this.random();
    if (r < 0.5) return '*';
    if (r < 0.9) return this.list([1, 2, 3, 11, 12], 2, () => 1 + this.int(12));
    return this.pick(['JAN,DEC', 'feb-mar', 'NOV-DEC', '3,11']);
  }
  dow(): string {
    const r = this.random();
    if (r < 0.5) return '*';
    if (r < 0.85) return this.list([0, 1, 2, 6, 7], 2, () => this.int(8));
    if (r < 0.95) return this.pick(['1-5', 'SAT,SUN', 'sun', 'MON-TUE', '6-7']);
    return '*/3';
  }
}

/** Rough firings per year, to keep the brute force affordable. */
function firingsPerYear(s: CronSchedule): number {
  const perDay = s.minutes.length * s.hours.length;
  const months = s.months.length / 12;
  let days: number;
  if (s.dayOfMonthWildcard || s.dayOfWeekWildcard) {
    days = 365 * (s.daysOfMonth.length / 31) * (s.daysOfWeek.length / 7);
  } else {
    days = 12 * s.daysOfMonth.length + 52 * s.daysOfWeek.length;
  }
  return perDay * days * months;
}

function bruteForceGap(s: CronSchedule, timeZone: string, from: Date, to: Date): number | null {
  const firings = occurrencesBetween(s, timeZone, from, to, Infinity);
  let best = Infinity;
  for (let i = 1; i < firings.length; i++) {
    best = Math.min(best, firings[i]!.getTime() - firings[i - 1]!.getTime());
  }
  return Number.isFinite(best) ? best : null;
}

describe('property: minimumGapMs equals brute force', () => {
  const PROPERTY_FROM = new Date('2024-06-15T12:00:00Z');
  // 28 years: every weekday/leap-year alignment of 2001-2099 occurs in it, and it is the span
  // minimumGapMs examines for DST. Day-of-month wildcards repeat weekly, so 400 days suffice.
  const LONG_DAYS = 10_227;
  const SHORT_DAYS = 400;
  const BUDGET = 40_000;

  for (const [timeZone, seed] of [['Etc/UTC', 0xc0ffee], ['America/New_York', 0xbe27]] as const) {
    it(`${timeZone}: 400 seeded random expressions`, () => {
      const gen = new Gen(seed);
      let checked = 0;
      let attempts = 0;
      let violations = 0;
      let dstChanged = 0;
      while (checked < 400) {
        attempts++;
        assert.ok(attempts < 5000, 'generator keeps producing unaffordable expressions');
        const dom = gen.dom();
        const dense = dom === '*' || dom === '?';
        const expression = `${gen.minutes()} ${gen.hours(dense)} ${dom} ${gen.month()} ${gen.dow()}`;
        const s = cron(expression);
        const days = s.dayOfMonthWildcard ? SHORT_DAYS : LONG_DAYS;
        if (firingsPerYear(s) * (days / 365) > BUDGET) {
          continue;
        }
        const to = new Date(PROPERTY_FROM.getTime() + days * DAY);
        const expected = bruteForceGap(s, timeZone, PROPERTY_FROM, to);
        const actual = minimumGapMs(s, timeZone, { from: PROPERTY_FROM });
        assert.equal(actual, expected, `${expression} in ${timeZone}: minimumGapMs ${actual}, brute force ${expected}`);
        if (actual !== null && actual < 5 * MINUTE) violations++;
        if (actual !== minimumGapMs(s, 'Etc/UTC', { from: PROPERTY_FROM })) dstChanged++;
        checked++;
      }
      // The bias should produce plenty of close firings, or the test proves little.
      assert.ok(violations > 80, `only ${violations} expressions fire within 5 minutes`);
      // In the DST zone, DST must actually change a good number of answers.
      if (timeZone !== 'Etc/UTC') {
        assert.ok(dstChanged > 40, `DST changed only ${dstChanged} answers`);
      }
    });
  }

  it('day matching agrees with a naive day-by-day scan using Date', () => {
    const gen = new Gen(7);
    const from = new Date('2024-01-01T00:00:00Z');
    for (let n = 0; n < 150; n++) {
      const s = cron(`${gen.minutes()} ${gen.hours(false)} ${gen.dom()} ${gen.month()} ${gen.dow()}`);
      const expected: string[] = [];
      for (let day = 0; day < 120; day++) {
        const d = new Date(from.getTime() + day * DAY);
        const domOk = s.daysOfMonth.includes(d.getUTCDate());
        const dowOk = s.daysOfWeek.includes(d.getUTCDay());
        const both = s.dayOfMonthWildcard || s.dayOfWeekWildcard;
        if (!s.months.includes(d.getUTCMonth() + 1) || !(both ? domOk && dowOk : domOk || dowOk)) continue;
        for (const h of s.hours) {
          for (const m of s.minutes) {
            expected.push(new Date(d.getTime() + h * HOUR + m * MINUTE).toISOString());
          }
        }
      }
      expected.sort();
      const actual = iso(occurrencesBetween(s, 'Etc/UTC', new Date(from.getTime() - 1), new Date(from.getTime() + 120 * DAY - 1), Infinity));
      assert.deepEqual(actual, expected, s.expression);
    }
  });
});
