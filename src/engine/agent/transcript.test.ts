// Unit tests of the harness's stream-json output turned into log lines and a run summary, with the
// event shapes Claude Code prints under `-p --output-format stream-json --verbose` (system/init,
// assistant text and tool_use, user tool_result, system/api_retry, result). Secrets never show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dollars, redactor, TEXT_LIMIT, TOOL_INPUT_LIMIT, TOOL_RESULT_LIMIT, Transcript } from './transcript.ts';

const SESSION = '8f0e2c1a-5b7d-4e3f-9a61-0c2d4b6e8f10';
const API_KEY = 'sk-ant-api03-Zx9Qv7LmN4pR2tY8wK5bH1cJ6dF3gS0a';
const HEADER = 'Bearer ghp_0123456789abcdefABCDEF0123456789abcd';

const init = (servers: Array<{ name: string; status: string }>) => JSON.stringify({
  type: 'system', subtype: 'init', cwd: '/workspace', session_id: SESSION,
  tools: ['Task', 'Bash', 'Glob', 'Grep', 'Read', 'Edit', 'Write', 'mcp__everything__echo'],
  mcp_servers: servers, model: 'claude-sonnet-4-5-20250929', permissionMode: 'bypassPermissions',
  slash_commands: ['compact', 'review'], apiKeySource: 'ANTHROPIC_API_KEY', claude_code_version: '2.1.328',
  output_style: 'default', agents: [], skills: [], plugins: [], uuid: 'c4a1d8e2-0000-4000-8000-000000000001',
});

const assistant = (content: unknown[]) => JSON.stringify({
  type: 'assistant',
  message: {
    id: 'msg_01ABCdef', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content,
    stop_reason: null, stop_sequence: null,
    usage: { input_tokens: 1200, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 40, service_tier: 'standard' },
  },
  parent_tool_use_id: null, session_id: SESSION, uuid: 'c4a1d8e2-0000-4000-8000-000000000002',
});

const toolUse = (id: string, name: string, input: unknown) => assistant([{ type: 'tool_use', id, name, input }]);

const toolResult = (id: string, content: unknown, isError = false) => JSON.stringify({
  type: 'user',
  message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content, ...(isError ? { is_error: true } : {}) }] },
  parent_tool_use_id: null, session_id: SESSION, uuid: 'c4a1d8e2-0000-4000-8000-000000000003',
});

const resultEvent = (over: Record<string, unknown> = {}) => JSON.stringify({
  type: 'result', subtype: 'success', is_error: false, duration_ms: 4200, duration_api_ms: 3900, num_turns: 7,
  result: 'db-1: /var was 97% full; removed 12 GB of rotated logs', stop_reason: 'end_turn', session_id: SESSION,
  total_cost_usd: 0.0421,
  usage: {
    input_tokens: 12345, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 678,
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 }, service_tier: 'standard',
  },
  modelUsage: {}, permission_denials: [], uuid: 'c4a1d8e2-0000-4000-8000-000000000004',
  ...over,
});

const apiRetry = (status: number, error: string, attempt = 1) => JSON.stringify({
  type: 'system', subtype: 'api_retry', attempt, max_retries: 3, retry_delay_ms: 1200, error_status: status, error,
  session_id: SESSION, uuid: 'c4a1d8e2-0000-4000-8000-000000000005',
});

const one = (lines: string[]): string => {
  assert.equal(lines.length, 1, `one line expected, got ${JSON.stringify(lines)}`);
  return lines[0]!;
};

test('the init event lists the MCP servers with their status (none when there are none)', () => {
  const t = new Transcript([]);
  const line = one(t.lines(init([{ name: 'everything', status: 'connected' }, { name: 'GitHub', status: 'failed' }])));
  assert.match(line, /^Agent started:/);
  assert.match(line, /model claude-sonnet-4-5-20250929/);
  assert.match(line, /8 tools/);
  assert.match(line, /MCP servers: everything \(connected\), GitHub \(failed\)/);
  assert.match(one(new Transcript([]).lines(init([]))), /MCP servers: none/);
});

test('assistant text becomes an "assistant:" line, bounded; blank text and unknown events give nothing', () => {
  const t = new Transcript([]);
  assert.equal(one(t.lines(assistant([{ type: 'text', text: 'Checking the disk usage of db-1.' }]))), 'assistant: Checking the disk usage of db-1.');
  const long = one(t.lines(assistant([{ type: 'text', text: 'y'.repeat(TEXT_LIMIT + 500) }])));
  assert.ok(long.length < TEXT_LIMIT + 100, `bounded: ${long.length}`);
  assert.match(long, /… \(500 more characters\)$/);
  assert.deepEqual(t.lines(assistant([{ type: 'text', text: '  \n' }])), []);
  assert.deepEqual(t.lines(JSON.stringify({ type: 'stream_event', event: { type: 'message_start' } })), []);
  assert.deepEqual(t.lines(''), []);
  assert.deepEqual(t.lines('   '), []);
});

test('a tool_use is "tool call: NAME {json}", its input bounded', () => {
  const t = new Transcript([]);
  assert.equal(one(t.lines(toolUse('toolu_01A', 'mcp__everything__echo', { message: 'hello' }))),
    'tool call: mcp__everything__echo {"message":"hello"}');
  const big = one(t.lines(toolUse('toolu_01B', 'Write', { file_path: '/workspace/notes/a.txt', content: 'z'.repeat(5000) })));
  assert.match(big, /^tool call: Write \{"file_path":"\/workspace\/notes\/a\.txt","content":"z+… \(\d+ more characters\)$/);
  assert.ok(big.length <= 'tool call: Write '.length + TOOL_INPUT_LIMIT + 40, `bounded: ${big.length}`);
  // text and a tool call in one message: both, in order
  assert.deepEqual(t.lines(assistant([{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', id: 'toolu_01C', name: 'Bash', input: { command: 'df -h' } }])),
    ['assistant: Let me look.', 'tool call: Bash {"command":"df -h"}']);
});

test('a tool_result names its tool, is bounded, and is a "tool error" when is_error', () => {
  const t = new Transcript([]);
  t.lines(toolUse('toolu_01A', 'mcp__everything__echo', { message: 'hello' }));
  t.lines(toolUse('toolu_01B', 'Read', { file_path: '/workspace/notes/disk.txt' }));
  t.lines(toolUse('toolu_01C', 'Bash', { command: 'cat /nope' }));
  // MCP tools answer content blocks; built-in tools a string
  assert.equal(one(t.lines(toolResult('toolu_01A', [{ type: 'text', text: 'Echo: hello' }]))), 'tool result (mcp__everything__echo): Echo: hello');
  const long = one(t.lines(toolResult('toolu_01B', 'r'.repeat(TOOL_RESULT_LIMIT * 3))));
  assert.ok(long.startsWith('tool result (Read): rrr'));
  assert.ok(long.length <= 'tool result (Read): '.length + TOOL_RESULT_LIMIT + 40, `bounded: ${long.length}`);
  assert.match(long, new RegExp(`… \\(${TOOL_RESULT_LIMIT * 2} more characters\\)$`));
  assert.equal(one(t.lines(toolResult('toolu_01C', 'cat: /nope: No such file or directory', true))),
    'tool error (Bash): cat: /nope: No such file or directory');
  // a result for a call this transcript never saw still gets a line
  assert.match(one(t.lines(toolResult('toolu_unknown', 'x'))), /^tool result \(tool\): x$/);
});

test('the result event fills the summary; failureMessage() is null on success', () => {
  const t = new Transcript([]);
  const lines = t.lines(resultEvent());
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /^Agent finished \(success\): 7 turns, 12345 tokens in, 678 out, \$0\.0421$/);
  assert.equal(lines[1], 'result: db-1: /var was 97% full; removed 12 GB of rotated logs');
  assert.deepEqual(t.summary, {
    finished: true, isError: false, subtype: 'success', errors: [], result: 'db-1: /var was 97% full; removed 12 GB of rotated logs', numTurns: 7,
    inputTokens: 12345, outputTokens: 678, costUsd: 0.0421, apiErrorStatus: null, authRefused: null,
  });
  assert.equal(t.failureMessage(), null);
});

test('an error result: failureMessage() says the model API status and the harness\'s words', () => {
  const t = new Transcript([]);
  t.lines(resultEvent({
    is_error: true, num_turns: 1, total_cost_usd: 0, usage: { input_tokens: 0, output_tokens: 0 }, api_error_status: 401,
    result: 'API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
  }));
  assert.equal(t.summary.isError, true);
  assert.equal(t.summary.apiErrorStatus, 401);
  const m = t.failureMessage();
  assert.ok(m);
  assert.match(m, /model API 401/);
  assert.match(m, /invalid x-api-key/);
  // a non-success subtype is an error too, in the harness's words (its `errors`) when it gave no result
  const during = new Transcript([]);
  during.lines(resultEvent({ subtype: 'error_during_execution', is_error: false, result: undefined, errors: ['Tool execution aborted'] }));
  assert.equal(during.summary.isError, true);
  assert.equal(during.failureMessage(), 'The agent failed: Tool execution aborted');
  const bare = new Transcript([]);
  bare.lines(resultEvent({ subtype: 'error_during_execution', is_error: true, result: undefined }));
  assert.equal(bare.failureMessage(), 'The agent failed: no result (error_during_execution)');
});

// the result events Claude Code 2.1.328 printed when a scripted model asked for two tool calls under
// `--max-turns 1`, and under `--max-budget-usd 0.0001` (model usage 100 tokens in, 20 out): no
// `result` text, the cap in `errors`, the subtype saying which cap
const maxTurnsResult = (over: Record<string, unknown> = {}) => resultEvent({
  subtype: 'error_max_turns', is_error: true, result: undefined, num_turns: 2, stop_reason: 'tool_use', terminal_reason: 'max_turns',
  total_cost_usd: 0.0008, usage: { input_tokens: 100, output_tokens: 20 }, errors: ['Reached maximum number of turns (1)'], ...over,
});
const maxBudgetResult = (over: Record<string, unknown> = {}) => resultEvent({
  subtype: 'error_max_budget_usd', is_error: true, result: undefined, num_turns: 1, stop_reason: 'tool_use', terminal_reason: 'budget_exhausted',
  total_cost_usd: 0.0008, usage: { input_tokens: 0, output_tokens: 0 }, errors: ['Reached maximum budget ($0.0001)'], ...over,
});

test('the turn cap hit: the message names the cap, its value and model.settings.max_turns', () => {
  const t = new Transcript([]);
  const lines = t.lines(maxTurnsResult());
  assert.deepEqual(lines, ['Agent finished (error_max_turns, error): 2 turns, 100 tokens in, 20 out, $0.0008']);
  assert.equal(t.summary.subtype, 'error_max_turns');
  assert.deepEqual(t.summary.errors, ['Reached maximum number of turns (1)']);
  assert.equal(t.failureMessage({ maxTurns: 30, maxCostUsd: null }), 'The agent stopped at its turn cap: 30 turns (model.settings.max_turns)');
  assert.equal(t.failureMessage({ maxTurns: 1, maxCostUsd: 0.5 }), 'The agent stopped at its turn cap: 1 turn (model.settings.max_turns)');
  // without the run's caps it still names which one and where it is set
  assert.equal(t.failureMessage(), 'The agent stopped at its turn cap (model.settings.max_turns)');
  // is_error false with the subtype (older harnesses) is the same stop
  const older = new Transcript([]);
  older.lines(maxTurnsResult({ is_error: false, errors: undefined }));
  assert.equal(older.failureMessage({ maxTurns: 12, maxCostUsd: null }), 'The agent stopped at its turn cap: 12 turns (model.settings.max_turns)');
});

test('the spend cap hit: the message names the cap, model.settings.max_cost_usd and what had been spent', () => {
  const t = new Transcript([]);
  assert.deepEqual(t.lines(maxBudgetResult({ total_cost_usd: 0.53 })), ['Agent finished (error_max_budget_usd, error): 1 turns, 0 tokens in, 0 out, $0.5300']);
  assert.equal(t.summary.subtype, 'error_max_budget_usd');
  assert.equal(t.failureMessage({ maxTurns: 30, maxCostUsd: 0.5 }),
    'The agent stopped at its spend cap: $0.50 (model.settings.max_cost_usd); it had spent $0.53');
  const tiny = new Transcript([]);
  tiny.lines(maxBudgetResult());
  assert.equal(tiny.failureMessage({ maxTurns: 30, maxCostUsd: 0.0001 }),
    'The agent stopped at its spend cap: $0.0001 (model.settings.max_cost_usd); it had spent $0.0008');
  // no cost in the event: the cap alone; no cap known: the member alone
  const unknown = new Transcript([]);
  unknown.lines(maxBudgetResult({ total_cost_usd: undefined }));
  assert.equal(unknown.failureMessage({ maxTurns: 30, maxCostUsd: 2.5 }), 'The agent stopped at its spend cap: $2.50 (model.settings.max_cost_usd)');
  assert.equal(unknown.failureMessage(), 'The agent stopped at its spend cap (model.settings.max_cost_usd)');
  // a run that succeeded under its caps has no message, caps or not
  const fine = new Transcript([]);
  fine.lines(resultEvent());
  assert.equal(fine.failureMessage({ maxTurns: 30, maxCostUsd: 0.01 }), null);
});

test('dollars: two decimals at least, up to six, no grouping; a tiny amount as JavaScript writes it', () => {
  assert.equal(dollars(0.5), '$0.50');
  assert.equal(dollars(0.53), '$0.53');
  assert.equal(dollars(2.5), '$2.50');
  assert.equal(dollars(10000), '$10000.00');
  assert.equal(dollars(0.0008), '$0.0008');
  assert.equal(dollars(0.1 + 0.2), '$0.30');
  assert.equal(dollars(0.0006000000000000001), '$0.0006');
  assert.equal(dollars(1e-7), '$1e-7');
  assert.equal(dollars(0), '$0.00');
});

test('an api_retry with 401 or 403 marks the credential refused; failureMessage() returns it when no result came', () => {
  for (const status of [401, 403]) {
    const t = new Transcript([]);
    const line = one(t.lines(apiRetry(status, 'authentication_failed')));
    assert.match(line, new RegExp(`Model API error ${status} authentication_failed: retry 1 of 3`));
    assert.ok(t.summary.authRefused, `authRefused after ${status}`);
    assert.match(t.summary.authRefused, new RegExp(String(status)));
    assert.equal(t.failureMessage(), t.summary.authRefused);
  }
  // other statuses are retried, not refused
  for (const [status, error] of [[429, 'rate_limit'], [529, 'overloaded'], [500, 'server_error']] as const) {
    const t = new Transcript([]);
    t.lines(apiRetry(status, error));
    assert.equal(t.summary.authRefused, null, `${status} is not a refusal`);
    assert.equal(t.failureMessage(), null);
  }
});

test('secrets are redacted from every kind of line and from the failure message', () => {
  const t = new Transcript([API_KEY, HEADER]);
  const lines = [
    ...t.lines(init([{ name: API_KEY, status: 'connected' }])),
    ...t.lines(assistant([{ type: 'text', text: `The key is ${API_KEY}.` }])),
    ...t.lines(toolUse('toolu_01A', 'Bash', { command: `curl -H 'Authorization: ${HEADER}' https://api.github.com` })),
    ...t.lines(toolResult('toolu_01A', [{ type: 'text', text: `env: ANTHROPIC_API_KEY=${API_KEY}` }])),
    ...t.lines(toolResult('toolu_01A', `header was ${HEADER}`, true)),
    ...t.lines(apiRetry(500, `server_error ${API_KEY}`)),
    ...t.lines(resultEvent({ is_error: true, result: `API Error: 500 key ${API_KEY}` })),
  ];
  assert.ok(lines.length >= 7);
  for (const l of lines) {
    assert.doesNotMatch(l, /Zx9Qv7LmN4pR2tY8wK5bH1cJ6dF3gS0a|ghp_0123456789/, l);
  }
  assert.ok(lines.some((l) => l.includes('[redacted]')));
  assert.equal(lines[1], 'assistant: The key is [redacted].');
  assert.doesNotMatch(t.failureMessage() ?? '', /Zx9Qv7/);
});

test('a secret with characters JSON escapes is redacted inside the tool call\'s JSON input', () => {
  // a connector header or token with a quote or a backslash shows up escaped in the JSON of the input
  const secret = 'pw"Quote\\Slash-7f3a91c2';
  const t = new Transcript([secret]);
  const line = one(t.lines(toolUse('toolu_01A', 'Bash', { command: `mysql -p'${secret}' -e 'select 1'` })));
  assert.doesNotMatch(line, /7f3a91c2/, `leaked: ${line}`);
});

test('a secret cut by the excerpt bound does not show its head', () => {
  const t = new Transcript([API_KEY]);
  // the key starts about 40 characters before the bound: cutting first and redacting after shows its first 40
  const before = 'x'.repeat(TOOL_INPUT_LIMIT - 40 - '{"command":"'.length);
  const line = one(t.lines(toolUse('toolu_01A', 'Bash', { command: `${before} ${API_KEY} more text after the key` })));
  assert.doesNotMatch(line, /Zx9Qv7LmN4pR2tY8w/, `the head of the key shows: …${line.slice(-80)}`);
  const result = one(t.lines(toolResult('toolu_01A', `${'r'.repeat(TOOL_RESULT_LIMIT - 30)}${API_KEY}`)));
  assert.doesNotMatch(result, /Zx9Qv7LmN4pR2tY8w/, `the head of the key shows: …${result.slice(-80)}`);
});

test('the summary\'s result (recorded on the run, answered by the API, sent to the outputs) has secrets redacted', () => {
  const t = new Transcript([API_KEY]);
  t.lines(resultEvent({ result: `Done. I used the key ${API_KEY} to call the API.` }));
  assert.equal(t.summary.result, 'Done. I used the key [redacted] to call the API.');
});

test('a line that is not JSON passes through, redacted and bounded', () => {
  const t = new Transcript([API_KEY]);
  assert.equal(one(t.lines(`Error: could not connect with ${API_KEY}`)), 'Error: could not connect with [redacted]');
  assert.equal(one(t.lines('{not json')), '{not json');
  const long = one(t.lines('n'.repeat(TEXT_LIMIT + 10)));
  assert.match(long, /… \(10 more characters\)$/);
});

test('redactor: values shorter than 4 characters are ignored; longer ones win over their own prefixes', () => {
  const r = redactor(['abc', 'a', '', 'secret', 'secret-long-value']);
  assert.equal(r('abc a secret secret-long-value'), 'abc a [redacted] [redacted]');
  assert.equal(r('abcd'), 'abcd');
  assert.equal(redactor(['abcd'])('xabcdx abcd'), 'x[redacted]x [redacted]');
  assert.equal(redactor([])('nothing to hide'), 'nothing to hide');
});
