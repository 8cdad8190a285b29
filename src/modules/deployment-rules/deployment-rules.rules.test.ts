// Unit tests of the pure deployment-rule rules: wildcards, times, schedule validation, order.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkPriorityOrder, firstMatchingRule, parseWallTime, validateSchedule, wallTimeToDateTime, wildcardMatches } from './deployment-rules.rules.ts';

describe('deployment rules (pure)', () => {
  test('wildcards: * any run, ? one character, brackets literal, case-insensitive, empty matches nothing', () => {
    assert.equal(wildcardMatches('*', 'anything'), true);
    assert.equal(wildcardMatches('feat-*', 'FEAT-login'), true);
    assert.equal(wildcardMatches('feat-*', 'fix-login'), false);
    assert.equal(wildcardMatches('[PR]*', '[PR] add login'), true);
    assert.equal(wildcardMatches('[PR]*', 'P add login'), false);
    assert.equal(wildcardMatches('env-?', 'env-1'), true);
    assert.equal(wildcardMatches('env-?', 'env-12'), false);
    assert.equal(wildcardMatches('a.b', 'axb'), false);
    assert.equal(wildcardMatches('', 'x'), false);
    assert.equal(wildcardMatches('*-staging', 'api\n-staging'), true);
  });

  test('the first matching rule by priority wins', () => {
    const rules = [
      { id: 'b', wildcard: '*', priority_index: 2 },
      { id: 'a', wildcard: 'dev-*', priority_index: 1 },
    ];
    assert.equal(firstMatchingRule(rules, 'dev-x')?.id, 'a');
    assert.equal(firstMatchingRule(rules, 'prod')?.id, 'b');
    assert.equal(firstMatchingRule([rules[1]!], 'prod'), undefined);
  });

  test('wall times: HH:MM, HH:MM:SS, date-time; invalid ones are null', () => {
    assert.equal(parseWallTime('08:00'), '08:00');
    assert.equal(parseWallTime('23:59:30'), '23:59');
    assert.equal(parseWallTime('1970-01-01T19:00:00.000Z'), '19:00');
    assert.equal(parseWallTime('24:00'), null);
    assert.equal(parseWallTime('8:00'), null);
    assert.equal(parseWallTime('12:60'), null);
    assert.equal(parseWallTime('noon'), null);
    assert.equal(wallTimeToDateTime('08:30'), '1970-01-01T08:30:00.000Z');
  });

  test('schedule validation names the field', () => {
    const ok = validateSchedule({ timezone: 'Europe/Paris', start_time: '08:00', stop_time: '1970-01-01T19:00:00.000Z', weekdays: ['FRIDAY', 'MONDAY'] });
    assert.deepEqual(ok, { ok: true, value: { timezone: 'Europe/Paris', start_time: '08:00', stop_time: '19:00', weekdays: ['MONDAY', 'FRIDAY'] } });
    const bad = (over: object) => {
      const r = validateSchedule({ timezone: 'UTC', start_time: '08:00', stop_time: '19:00', weekdays: ['MONDAY'], ...over });
      return r.ok ? '' : r.error;
    };
    assert.match(bad({ timezone: 'Mars/Olympus' }), /^timezone/);
    assert.match(bad({ start_time: '25:00' }), /^start_time/);
    assert.match(bad({ stop_time: 'x' }), /^stop_time/);
    assert.match(bad({ stop_time: '08:00' }), /stop_time must be after start_time/);
    assert.match(bad({ stop_time: '07:00' }), /stop_time must be after start_time/);
    assert.match(bad({ weekdays: [] }), /^weekdays/);
    assert.match(bad({ weekdays: ['FUNDAY'] }), /^weekdays/);
    assert.match(bad({ weekdays: ['MONDAY', 'MONDAY'] }), /^weekdays/);
  });

  test('priority order names every rule exactly once', () => {
    assert.equal(checkPriorityOrder(['a', 'b'], ['b', 'a']), null);
    assert.match(checkPriorityOrder(['a', 'b'], ['a'])!, /every rule/);
    assert.match(checkPriorityOrder(['a', 'b'], ['a', 'a'])!, /repeat/);
    assert.match(checkPriorityOrder(['a', 'b'], ['a', 'c'])!, /not a rule/);
  });
});
