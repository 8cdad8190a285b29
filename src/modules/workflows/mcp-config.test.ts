// Unit tests of a workflow's raw `mcp` text against the harness's mcpServers shape: the servers
// with their defaults filled in, and every kind of problem, each with its JSON path; VS Code's
// {"servers": …} form normalised to the same servers through the same checks (decision 0344).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMcpConfig, type McpEntry } from './mcp-config.ts';
import { MAX_LISTED_PROBLEMS } from './model-settings.ts';

const servers = (text: string): Record<string, McpEntry> => {
  const r = parseMcpConfig(text);
  if (!r.ok) assert.fail(`refused ${text}: ${r.problems.join('; ')}`);
  return r.servers;
};
const problems = (doc: unknown): string[] => {
  const r = parseMcpConfig(typeof doc === 'string' ? doc : JSON.stringify(doc));
  assert.equal(r.ok, false, `accepted ${JSON.stringify(doc)}`);
  return r.ok ? [] : r.problems;
};
const one = (entry: unknown) => problems({ mcpServers: { s: entry } });

test('empty text and an empty mcpServers: no servers', () => {
  for (const text of ['', '  \n', '{"mcpServers": {}}']) assert.deepEqual(servers(text), {});
});

test('stdio and remote servers, their optional members filled in', () => {
  const got = servers(JSON.stringify({
    mcpServers: {
      everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
      'fs_1': { type: 'stdio', command: '/usr/bin/mcp-fs', env: { ROOT: '/workspace', 'weird.name': 'x' } },
      GitHub: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer t' } },
      events: { type: 'sse', url: 'http://10.0.0.2:9000/sse?team=a' },
    },
  }));
  assert.deepEqual(got, {
    everything: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], env: {} },
    fs_1: { type: 'stdio', command: '/usr/bin/mcp-fs', args: [], env: { ROOT: '/workspace', 'weird.name': 'x' } },
    GitHub: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer t' } },
    events: { type: 'sse', url: 'http://10.0.0.2:9000/sse?team=a', headers: {} },
  });
});

test('a server named __proto__ is an own member, not a prototype', () => {
  const got = servers('{"mcpServers": {"__proto__": {"command": "x"}}}');
  assert.deepEqual(Object.keys(got), ['__proto__']);
  assert.equal(Object.getPrototypeOf(got), Object.prototype);
});

test('the text: not JSON, not an object, unknown or missing members', () => {
  assert.match(problems('{"mcpServers": ')[0]!, /^\$ must be JSON text \(or empty\): /);
  assert.match(problems([1])[0]!, /^\$ must be a JSON object \{"mcpServers": \{…\}\} \(or VS Code's \{"servers": \{…\}\}\); got \[1\]/);
  const required = '$.mcpServers is required (an object of servers by name; {"mcpServers": {}} for none); VS Code\'s {"servers": {…}} is accepted too';
  assert.deepEqual(problems({}), [required]);
  assert.deepEqual(problems({ mcp_servers: {} }), ['$.mcp_servers is not a known member; the only member is mcpServers', required]);
  assert.deepEqual(problems({ mcpServers: [] }), ['$.mcpServers must be an object of servers by name; got []']);
  assert.deepEqual(problems({ servers: [] }), ['$.servers must be an object of servers by name; got []']);
});

test('server names: 1 to 64 of A-Z a-z 0-9 _ -', () => {
  assert.deepEqual(problems({ mcpServers: { 'my server': { command: 'x' } } }), ['$.mcpServers["my server"] is not a valid server name: 1 to 64 letters, digits, "_" or "-"']);
  assert.equal(problems({ mcpServers: { '': { command: 'x' } } }).length, 1);
  assert.equal(problems({ mcpServers: { ['a'.repeat(65)]: { command: 'x' } } }).length, 1);
  assert.deepEqual(Object.keys(servers(JSON.stringify({ mcpServers: { ['a'.repeat(64)]: { command: 'x' } } }))), ['a'.repeat(64)]);
});

test('an entry: not an object, an unknown type, a url without type', () => {
  assert.match(one('npx')[0]!, /^\$\.mcpServers\.s must be an object: a stdio server .*; got "npx"/);
  assert.deepEqual(one({ type: 'websocket', url: 'wss://x' }), ['$.mcpServers.s.type must be one of stdio, http, sse; got "websocket"']);
  assert.match(one({ url: 'https://x.example/mcp' })[0]!, /^\$\.mcpServers\.s\.type must be "http" or "sse" for a server with a url/);
});

test('stdio: command required and a non-empty string; args strings; env string values; no foreign members', () => {
  assert.deepEqual(one({ args: ['a'] }), ['$.mcpServers.s.command is required (the program that starts the server, e.g. npx)']);
  assert.deepEqual(one({ command: ' ' }), ['$.mcpServers.s.command must be a non-empty string; got " "']);
  assert.deepEqual(one({ command: ['npx'] }), ['$.mcpServers.s.command must be a non-empty string; got ["npx"]']);
  assert.deepEqual(one({ command: 'x', args: 'a b' }), ['$.mcpServers.s.args must be an array of strings; got "a b"']);
  assert.deepEqual(one({ command: 'x', args: ['ok', 1, null] }), ['$.mcpServers.s.args[1] must be a string; got 1', '$.mcpServers.s.args[2] must be a string; got null']);
  assert.deepEqual(one({ command: 'x', env: ['A=1'] }), ['$.mcpServers.s.env must be an object of variable names to strings; got ["A=1"]']);
  assert.deepEqual(one({ command: 'x', env: { PORT: 8080, 'A=B': 'x', '': 'y' } }), [
    '$.mcpServers.s.env.PORT must be a string; got 8080',
    '$.mcpServers.s.env["A=B"] is not a valid variable name (empty, or with "=" or NUL)',
    '$.mcpServers.s.env[""] is not a valid variable name (empty, or with "=" or NUL)',
  ]);
  assert.deepEqual(one({ command: 'x', url: 'https://x', headers: {} }), [
    '$.mcpServers.s.url is not a known member of a stdio server; its members are type, command, args, env',
    '$.mcpServers.s.headers is not a known member of a stdio server; its members are type, command, args, env',
  ]);
  assert.deepEqual(one({ command: 'x\u0000', args: ['\u0000'], env: { A: '\u0000' } }).length, 3);
});

test('remote: url required, an http(s) URL; headers names and one-line string values; no foreign members', () => {
  assert.deepEqual(one({ type: 'http' }), ['$.mcpServers.s.url is required (the server\'s http or https address)']);
  assert.deepEqual(one({ type: 'sse', url: 42 }), ['$.mcpServers.s.url must be a string (an http or https URL); got 42']);
  assert.deepEqual(one({ type: 'http', url: 'mcp.example.com' }), ['$.mcpServers.s.url must be an http or https URL; got "mcp.example.com"']);
  assert.deepEqual(one({ type: 'http', url: 'ws://mcp.example.com' }), ['$.mcpServers.s.url must be an http or https URL; got the scheme "ws"']);
  assert.deepEqual(one({ type: 'http', url: 'https://x', headers: { 'Bad Name': 'v', 'X-Ok': 1, 'X-Split': 'a\r\nInjected: 1' } }), [
    '$.mcpServers.s.headers["Bad Name"] is not a valid header name (letters, digits and !#$%&\'*+.^_`|~-)',
    '$.mcpServers.s.headers.X-Ok must be a string; got 1',
    '$.mcpServers.s.headers.X-Split must not contain line breaks or NUL characters',
  ]);
  assert.deepEqual(one({ type: 'http', url: 'https://x', headers: 'Authorization: x' }), ['$.mcpServers.s.headers must be an object of header names to strings; got "Authorization: x"']);
  assert.deepEqual(one({ type: 'sse', url: 'https://x', command: 'npx' }), ['$.mcpServers.s.command is not a known member of an sse server; its members are type, url, headers']);
});

test('every problem of every server is listed, in order', () => {
  const p = problems({ extra: 1, mcpServers: { 'a b': { command: 1 }, ok: { command: 'x' }, r: { type: 'http' } } });
  assert.deepEqual(p, [
    '$.extra is not a known member; the only member is mcpServers',
    '$.mcpServers["a b"] is not a valid server name: 1 to 64 letters, digits, "_" or "-"',
    '$.mcpServers["a b"].command must be a non-empty string; got 1',
    '$.mcpServers.r.url is required (the server\'s http or https address)',
  ]);
});

test('a flood of problems is bounded', () => {
  const args = Array.from({ length: MAX_LISTED_PROBLEMS + 3 }, (_, i) => i);
  const p = one({ command: 'x', args });
  assert.equal(p.length, MAX_LISTED_PROBLEMS + 1);
  assert.equal(p.at(-1), '… and 3 more problems');
});

test('${…} references are refused: the run environment holds the model credential', () => {
  const r = parseMcpConfig(JSON.stringify({ mcpServers: { leak: { type: 'http', url: 'https://x.example/mcp', headers: { 'X-K': '${ANTHROPIC_API_KEY}' } } } }));
  assert.equal(r.ok, false);
  assert.match((r as { problems: string[] }).problems.join('\n'), /must not contain \$\{…\} references/);
  assert.equal(parseMcpConfig(JSON.stringify({ mcpServers: { ok: { command: 'node', args: ['$HOME/x.js'] } } })).ok, true);
});

test('${…} references are found in the parsed document: a JSON escape does not hide one', () => {
  // "\u0024{…}" is "${…}" once parsed, and the harness would expand it in the configuration berth writes
  const text = String.raw`{"mcpServers": {"x": {"type": "http", "url": "https://x.example/mcp", "headers": {"K": "\u0024{ANTHROPIC_API_KEY}"}}}}`;
  assert.ok(!text.includes('${'));
  assert.deepEqual(problems(text), [
    '$.mcpServers.x.headers.K must not contain ${…} references: the harness would expand them from the run\'s environment, where berth keeps the model\'s credential',
  ]);
  assert.match(problems({ mcpServers: { x: { command: 'node', env: { '${HOME}': 'x' } } } })[0]!, /^\$\.mcpServers\.x\.env\["\$\{HOME\}"\] must not contain/);
  assert.match(problems({ servers: { x: { command: 'node', args: ['${workspaceFolder}/server.js'] } } })[0]!, /^\$\.servers\.x\.args\[0\] must not contain \$\{…\} references/);
});

// VS Code's .vscode/mcp.json (GitHub Copilot): {"servers": …, "inputs"?: […]}, the same entries
const VSCODE = {
  servers: {
    everything: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
    fs: { command: '/usr/bin/mcp-fs', env: { ROOT: '/workspace' } },
    docs: { type: 'http', url: 'https://docs.example.com/mcp', headers: { 'X-Team': 'platform' } },
    events: { type: 'sse', url: 'http://10.0.0.2:9000/sse' },
  },
};
const HARNESS = { mcpServers: VSCODE.servers };

test('VS Code\'s form: the same servers as the harness\'s form, stdio, http and sse', () => {
  const harness = servers(JSON.stringify(HARNESS));
  assert.deepEqual(servers(JSON.stringify(VSCODE)), harness);
  assert.deepEqual(harness, {
    everything: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], env: {} },
    fs: { type: 'stdio', command: '/usr/bin/mcp-fs', args: [], env: { ROOT: '/workspace' } },
    docs: { type: 'http', url: 'https://docs.example.com/mcp', headers: { 'X-Team': 'platform' } },
    events: { type: 'sse', url: 'http://10.0.0.2:9000/sse', headers: {} },
  });
  // what VS Code writes for a new file, pretty-printed, with an empty inputs list; no servers at all
  assert.deepEqual(servers(JSON.stringify({ ...VSCODE, inputs: [] }, null, '\t')), harness);
  assert.deepEqual(servers('{"servers": {}}'), {});
  assert.deepEqual(servers('{"servers": {}, "inputs": []}'), {});
});

test('VS Code\'s form: every check of an entry, at the servers path', () => {
  const vs = (entry: unknown) => problems({ servers: { s: entry } });
  // each problem is the harness form's, with $.servers in place of $.mcpServers
  for (const entry of [
    'npx', { type: 'websocket', url: 'wss://x' }, { url: 'https://x.example/mcp' }, { args: ['a'] }, { command: ' ' },
    { command: 'x', args: ['ok', 1] }, { command: 'x', env: { PORT: 8080, 'A=B': 'x' } }, { command: 'x', url: 'https://x' },
    { type: 'http' }, { type: 'http', url: 'ws://mcp.example.com' }, { type: 'http', url: 'https://x', headers: { 'Bad Name': 'v', 'X-Split': 'a\r\nb' } },
    { type: 'sse', url: 'https://x', command: 'npx' },
  ]) {
    assert.deepEqual(vs(entry), one(entry).map((p) => p.replace('$.mcpServers.', '$.servers.')), JSON.stringify(entry));
  }
  assert.deepEqual(problems({ servers: { 'my server': { command: 'x' } } }), ['$.servers["my server"] is not a valid server name: 1 to 64 letters, digits, "_" or "-"']);
  assert.deepEqual(problems({ servers: {}, extra: 1 }), ['$.extra is not a known member; the members of VS Code\'s form are servers and inputs']);
});

test('VS Code\'s stdio members the harness has not (envFile, cwd): refused, saying what to do instead', () => {
  assert.deepEqual(problems({ servers: { s: { type: 'stdio', command: 'node', envFile: '${workspaceFolder}/.env', cwd: '/srv/mcp' } } }), [
    '$.servers.s.envFile is not supported: it names a file on the machine the configuration was written on, which a run does not have; put the variables in env',
    '$.servers.s.cwd is not supported: the harness starts stdio servers in the run\'s working directory (/workspace); use absolute paths in command and args',
    '$.servers.s.envFile must not contain ${…} references: the harness would expand them from the run\'s environment, where berth keeps the model\'s credential',
  ]);
  // a remote server has neither: the usual unknown-member problem
  assert.match(problems({ servers: { s: { type: 'http', url: 'https://x', cwd: '/' } } })[0]!, /^\$\.servers\.s\.cwd is not a known member of an http server/);
});

test('VS Code\'s inputs are refused: a run is unattended; an empty list is not an input', () => {
  const p = problems({
    servers: { gh: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${input:github-token}' } } },
    inputs: [{ type: 'promptString', id: 'github-token', description: 'GitHub token', password: true }],
  });
  assert.equal(p.length, 2, p.join('\n'));
  assert.match(p[0]!, /^\$\.inputs is not supported: VS Code asks for these values when a server starts, and a berth run is unattended, with nobody to ask\. /);
  assert.match(p[1]!, /^\$\.servers\.gh\.headers\.Authorization refers to \$\{input:github-token\}, a value VS Code asks for when the server starts: a berth run is unattended/);
  // both say what to do instead
  for (const m of p) assert.match(m, /attach an MCP connector \(mcp_servers\), whose header values berth keeps sealed/);
  assert.match(problems({ servers: {}, inputs: {} })[0]!, /^\$\.inputs is not supported/);
  // a reference without the inputs list, in an env value or an argument; in the harness's form too
  assert.match(problems({ servers: { s: { command: 'npx', env: { TOKEN: '${input:token}' } } } })[0]!, /^\$\.servers\.s\.env\.TOKEN refers to \$\{input:token\}/);
  assert.match(problems({ mcpServers: { s: { command: 'npx', args: ['--key=${input:k}'] } } })[0]!, /^\$\.mcpServers\.s\.args\[0\] refers to \$\{input:k\}/);
  // inputs belong to VS Code's form: beside mcpServers it is an unknown member
  assert.deepEqual(problems({ mcpServers: {}, inputs: [] }), ['$.inputs is not a known member; the only member is mcpServers']);
});

test('both mcpServers and servers: refused, whatever they hold', () => {
  assert.deepEqual(problems({ mcpServers: { a: { command: 'x' } }, servers: { b: { command: 'y' } } }), [
    '$ must have either mcpServers (Claude Code\'s form) or servers (VS Code\'s form), not both: keep one of them, with all the servers',
  ]);
  assert.deepEqual(problems({ servers: {}, mcpServers: {}, inputs: [] }).length, 1);
});
