// How the console words a workflow run (console/src/runs.ts), without a browser: cost to four
// decimals, durations, tokens, the trigger, the one line a list shows, the payload editor's
// checks, and the kind of each transcript line from the prefixes the agent runner writes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

// a computed path: the console is type-checked on its own (tsconfig in console/)
const runs = await import(new URL('../../console/src/runs.ts', import.meta.url).href);

describe('the console\'s words for a run', () => {
  test('figures', () => {
    assert.equal(runs.formatCost(0.0024), '$0.0024');
    assert.equal(runs.formatCost(0), '$0.0000');
    assert.equal(runs.formatCost(1.23456), '$1.2346');
    assert.equal(runs.formatCost(null), '—');
    assert.deepEqual([850, 12_345, 48_213, 245_000, 3_725_000].map(runs.formatDuration), ['850 ms', '12 s', '48 s', '4 min 05 s', '1 h 02 min']);
    assert.equal(runs.formatDuration(4_200), '4.2 s');
    assert.equal(runs.formatDuration(null), '—');
    assert.equal(runs.formatTokens({ input_tokens: 18432, output_tokens: 1206 }), '18,432 / 1,206');
    assert.equal(runs.formatTokens({ input_tokens: null, output_tokens: null }), '—');
    assert.equal(runs.triggerLabel({ trigger: 'MANUAL', triggered_by: 'ada' }), 'manual by ada');
    assert.equal(runs.triggerLabel({ trigger: 'WEBHOOK', triggered_by: null }), 'webhook');
  });

  test('the line a list shows: the result\'s first line, else the failure', () => {
    assert.deepEqual(runs.outcomeLine({ result: '\n  done: 3 issues labelled\nmore', message: null }), { text: 'done: 3 issues labelled', isMessage: false });
    assert.deepEqual(runs.outcomeLine({ result: null, message: 'timed out after 900 s' }), { text: 'timed out after 900 s', isMessage: true });
    assert.equal(runs.firstLine('x'.repeat(200), 10), `${'x'.repeat(9)}…`);
  });

  test('the payload editor: blank sends nothing, JSON is parsed, anything else is refused with the reason', () => {
    assert.deepEqual(runs.parsePayload('  '), { value: undefined });
    assert.deepEqual(runs.parsePayload('{"alert": "disk full"}'), { value: { alert: 'disk full' } });
    assert.deepEqual(runs.parsePayload('null'), { value: null });
    assert.match(runs.parsePayload('{"alert": }').error, /^Payload is not valid JSON: /);
    assert.match(runs.parsePayload(JSON.stringify({ a: 'x'.repeat(70_000) })).error, /64 KiB at most/);
    assert.equal(runs.prettyJson({ a: [1] }), '{\n  "a": [\n    1\n  ]\n}');
  });

  test('transcript lines by kind, a "[simulated] " label aside', () => {
    const kind = (message: string, k = 'RUNTIME') => runs.transcriptClass({ message, kind: k });
    assert.equal(kind('assistant: Looking at the alert'), 'runtime assistant');
    assert.equal(kind('tool call: Read {"file_path":"a.md"}'), 'runtime tool-call');
    assert.equal(kind('tool result (Read): # Runbook'), 'runtime tool-result');
    assert.equal(kind('tool error (WebFetch): 403'), 'runtime agent-error');
    assert.equal(kind('egress refused: evil.example is not in governance.host_allowlist'), 'runtime egress-refused');
    assert.equal(kind('egress allowed: api.anthropic.com'), 'runtime egress');
    assert.equal(kind('Model API error 401 invalid x-api-key: retry 1 of 10 in 1 s'), 'runtime agent-error');
    assert.equal(kind('stderr: boom'), 'runtime agent-error');
    assert.equal(kind('Agent finished (success): 1 turns'), 'runtime outcome');
    assert.equal(kind('[simulated] result: No agent ran'), 'runtime outcome');
    assert.equal(kind('Cloning https://example.com/a.git (branch main) into /workspace/a', 'DEPLOY'), 'deploy');
    assert.equal(kind('assistant said nothing', 'BUILD'), 'build', 'a prefix is a prefix');
  });
});
