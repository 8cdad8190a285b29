// Unit tests of a workflow's model.settings: defaults, every member, every kind of problem
// (listed together), and which base URL a run calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_LISTED_PROBLEMS, MODEL_SETTINGS_DEFAULTS, boundProblems, effectiveBaseUrl, jsonMember, parseModelSettings, type ModelSettings } from './model-settings.ts';

const problems = (text: string): string[] => {
  const r = parseModelSettings(text);
  assert.equal(r.ok, false, `accepted ${text}`);
  return r.ok ? [] : r.problems;
};
const value = (text: string): ModelSettings => {
  const r = parseModelSettings(text);
  if (!r.ok) assert.fail(`refused ${text}: ${r.problems.join('; ')}`);
  return r.value;
};

test('the defaults: no model or base_url (the harness\'s), 30 turns, 1800 s, no spend cap', () => {
  assert.deepEqual(MODEL_SETTINGS_DEFAULTS, { model: null, base_url: null, max_turns: 30, timeout_seconds: 1800, max_cost_usd: null });
  assert.ok(Object.isFrozen(MODEL_SETTINGS_DEFAULTS));
});

test('empty or white-space text and {} are every default; a fresh object each time', () => {
  for (const text of ['', '   ', '\n\t', '{}']) assert.deepEqual(value(text), MODEL_SETTINGS_DEFAULTS, JSON.stringify(text));
  const a = value('');
  a.max_turns = 99;
  assert.equal(value('').max_turns, 30);
});

test('every member read; null or "" is the default', () => {
  assert.deepEqual(value('{"model": "claude-sonnet-4-5", "base_url": "https://llm.corp.example/anthropic", "max_turns": 500, "timeout_seconds": 10, "max_cost_usd": 0.5}'),
    { model: 'claude-sonnet-4-5', base_url: 'https://llm.corp.example/anthropic', max_turns: 500, timeout_seconds: 10, max_cost_usd: 0.5 });
  assert.deepEqual(value('{"max_turns": 1, "timeout_seconds": 86400}'), { ...MODEL_SETTINGS_DEFAULTS, max_turns: 1, timeout_seconds: 86400 });
  assert.deepEqual(value('{"model": null, "base_url": null, "max_turns": null, "timeout_seconds": null, "max_cost_usd": null}'), MODEL_SETTINGS_DEFAULTS);
  assert.deepEqual(value('{"model": "", "base_url": ""}'), MODEL_SETTINGS_DEFAULTS);
  assert.equal(value('{"max_turns": 30.0}').max_turns, 30);
  // Bedrock model ids and inference profile ARNs are one argument each
  assert.equal(value('{"model": "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-v1:0"}').model?.startsWith('arn:'), true);
});

test('not JSON, or not an object: one problem', () => {
  assert.deepEqual(problems('{"max_turns": 3').length, 1);
  assert.match(problems('{"max_turns": 3')[0]!, /^\$ must be JSON text \(or empty\): /);
  assert.match(problems('temperature=0')[0]!, /^\$ must be JSON text/);
  for (const text of ['[1]', '"x"', '30', 'null', 'true']) {
    const p = problems(text);
    assert.equal(p.length, 1, text);
    assert.match(p[0]!, /^\$ must be a JSON object such as \{"max_turns": 30\}; got /, text);
  }
});

test('unknown members, wrong types and out-of-range values: one problem each, every one listed', () => {
  const p = problems(JSON.stringify({
    temperature: 0, 'odd name': 1, model: 3, base_url: 'ftp://x', max_turns: 0, timeout_seconds: '60', max_cost_usd: 0,
  }));
  assert.deepEqual(p, [
    '$.temperature is not a known member; the members are model, base_url, max_turns, timeout_seconds, max_cost_usd',
    '$["odd name"] is not a known member; the members are model, base_url, max_turns, timeout_seconds, max_cost_usd',
    '$.model must be a string (a model id such as claude-sonnet-4-5) or null; got 3',
    '$.base_url must be an http or https URL; got the scheme "ftp"',
    '$.max_turns must be an integer from 1 to 500; got 0',
    '$.timeout_seconds must be an integer from 10 to 86400; got "60"',
    '$.max_cost_usd must be a number of US dollars above 0 and at most 10000, or null (no spend cap); got 0',
  ]);
});

test('max_cost_usd: any amount above 0 up to 10000 dollars, fractions of a cent included; null or absent: no spend cap', () => {
  for (const ok of [0.0001, 0.5, 2.5, 1, 9999.99, 10000]) assert.equal(value(JSON.stringify({ max_cost_usd: ok })).max_cost_usd, ok, String(ok));
  assert.equal(value('{"max_cost_usd": 1e-7}').max_cost_usd, 1e-7);
  assert.equal(value('{}').max_cost_usd, null);
  assert.equal(value('{"max_cost_usd": null}').max_cost_usd, null);
  for (const [bad, got] of [[0, '0'], [-1, '-1'], [10000.01, '10000.01'], ['0.50', '"0.50"'], [true, 'true'], [[1], '[1]'], [{}, '{}']] as const) {
    assert.deepEqual(problems(JSON.stringify({ max_cost_usd: bad })),
      [`$.max_cost_usd must be a number of US dollars above 0 and at most 10000, or null (no spend cap); got ${got}`], JSON.stringify(bad));
  }
  // a number JSON cannot hold as a finite one is refused, said as what it became
  assert.deepEqual(problems('{"max_cost_usd": 1e400}'), ['$.max_cost_usd must be a number of US dollars above 0 and at most 10000, or null (no spend cap); got Infinity']);
  // "" is not "no cap" for a number member (only the two strings take "")
  assert.match(problems('{"max_cost_usd": ""}')[0]!, /^\$\.max_cost_usd must be a number/);
});

test('each bound and type of the integer members', () => {
  for (const [member, bad] of [['max_turns', 501], ['max_turns', 2.5], ['max_turns', true], ['max_turns', -1], ['timeout_seconds', 9], ['timeout_seconds', 86401], ['timeout_seconds', [60]]] as const) {
    assert.deepEqual(problems(JSON.stringify({ [member]: bad })).length, 1, `${member} ${JSON.stringify(bad)}`);
  }
  assert.match(problems('{"max_turns": 1e400}')[0]!, /max_turns must be an integer from 1 to 500/);
});

test('model ids: one harness argument (no white space or control characters, no leading "-", at most 256 characters)', () => {
  assert.match(problems('{"model": "claude sonnet"}')[0]!, /^\$\.model must not contain white space or control characters/);
  assert.match(problems('{"model": "x\\u0000"}')[0]!, /control characters/);
  assert.match(problems('{"model": "--dangerously-skip-permissions"}')[0]!, /must not start with "-"/);
  assert.match(problems(JSON.stringify({ model: 'm'.repeat(257) }))[0]!, /at most 256 characters; got 257/);
  assert.match(problems('{"model": {"id": "x"}}')[0]!, /^\$\.model must be a string/);
});

test('base_url: the shared base URL rule, under $.base_url', () => {
  assert.match(problems('{"base_url": "https://u:p@x.example"}')[0]!, /^\$\.base_url must not carry a user name or password/);
  assert.match(problems('{"base_url": "https://x.example/?a=1"}')[0]!, /^\$\.base_url must not have a query or fragment/);
  assert.match(problems('{"base_url": 8080}')[0]!, /^\$\.base_url must be a string \(an http or https URL\) or null; got 8080/);
});

test('a flood of problems is bounded, saying how many more there were', () => {
  const many = Object.fromEntries(Array.from({ length: MAX_LISTED_PROBLEMS + 7 }, (_, i) => [`m${i}`, i]));
  const p = problems(JSON.stringify(many));
  assert.equal(p.length, MAX_LISTED_PROBLEMS + 1);
  assert.equal(p.at(-1), '… and 7 more problems');
  assert.deepEqual(boundProblems(['a']), ['a']);
});

test('JSON paths: dotted for plain names, quoted otherwise', () => {
  assert.equal(jsonMember('$', 'max_turns'), '$.max_turns');
  assert.equal(jsonMember('$.mcpServers', 'git-hub'), '$.mcpServers.git-hub');
  assert.equal(jsonMember('$.mcpServers', '1password'), '$.mcpServers["1password"]');
  assert.equal(jsonMember('$', 'a"b'), '$["a\\"b"]');
});

test('effectiveBaseUrl: the workflow\'s own wins, then the provider\'s, else none', () => {
  const own = { ...MODEL_SETTINGS_DEFAULTS, base_url: 'https://own.example' };
  assert.equal(effectiveBaseUrl(own, { base_url: 'https://provider.example' }), 'https://own.example');
  assert.equal(effectiveBaseUrl(own, null), 'https://own.example');
  assert.equal(effectiveBaseUrl(MODEL_SETTINGS_DEFAULTS, { base_url: 'https://provider.example' }), 'https://provider.example');
  assert.equal(effectiveBaseUrl(MODEL_SETTINGS_DEFAULTS, { base_url: '' }), null);
  assert.equal(effectiveBaseUrl(MODEL_SETTINGS_DEFAULTS, null), null);
});
