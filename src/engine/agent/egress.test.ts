// Unit tests of what a run may reach: hosts read from URLs, git remotes and bare names; the
// allowlist the proxy enforces (governance.host_allowlist plus the model endpoint, the remote MCP
// servers and the repositories); the filter's regular expressions (checked with JS RegExp, which
// agrees with tinyproxy's POSIX ERE on these); tinyproxy's log lines as Debian's tinyproxy 1.11
// writes them; its configuration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allowedHosts, filterLines, hostOf, parseProxyLine, proxyConfig, PROXY_PORT } from './egress.ts';
import type { AgentRunSpec } from './spec.ts';

test('hostOf: URLs with port, path, query and credentials; IPv6 in brackets; lower-case', () => {
  assert.equal(hostOf('https://API.Example.com:8443/v1/messages?beta=true'), 'api.example.com');
  assert.equal(hostOf('http://gateway:4000'), 'gateway');
  assert.equal(hostOf('https://user:pw@git.example.org/team/repo.git'), 'git.example.org');
  assert.equal(hostOf('ssh://git@gitlab.example.com:2222/group/repo.git'), 'gitlab.example.com');
  assert.equal(hostOf('http://[2001:db8::1]:8080/path'), '2001:db8::1');
  assert.equal(hostOf('https://[::1]/'), '::1');
  assert.equal(hostOf('  https://padded.example.com/  '), 'padded.example.com');
});

test('hostOf: git\'s user@host:path, bare host and host:port, wildcards', () => {
  assert.equal(hostOf('git@github.com:acme/api.git'), 'github.com');
  assert.equal(hostOf('deploy@Git.Internal:ops/notes'), 'git.internal');
  assert.equal(hostOf('model:8080'), 'model');
  assert.equal(hostOf('pypi.org'), 'pypi.org');
  assert.equal(hostOf('registry.npmjs.org:443'), 'registry.npmjs.org');
  assert.equal(hostOf('*.example.com'), '*.example.com');
});

test('hostOf: file:// and garbage have no host', () => {
  for (const v of ['file:///srv/git/repo.git', 'file://localhost/srv/repo', '', '   ', 'not a host!', '/srv/git/repo', 'http://', 'https://exa mple.com', 'host:port', 'a/b']) {
    assert.equal(hostOf(v), null, JSON.stringify(v));
  }
});

type Egress = Pick<AgentRunSpec, 'hostAllowlist' | 'model' | 'mcpServers' | 'repositories'>;
const anthropic = (baseUrl: string | null = null): AgentRunSpec['model'] => ({ kind: 'anthropic', modelId: null, baseUrl, env: {}, region: null });
const spec = (over: Partial<Egress> = {}): Egress => ({ hostAllowlist: [], model: anthropic(), mcpServers: {}, repositories: [], ...over });

test('allowedHosts: api.anthropic.com by default; the base_url\'s host instead; Bedrock\'s regional endpoint', () => {
  assert.deepEqual(allowedHosts(spec()), ['api.anthropic.com']);
  assert.deepEqual(allowedHosts(spec({ model: anthropic('http://LiteLLM.corp.example:4000/v1/') })), ['litellm.corp.example']);
  assert.deepEqual(allowedHosts(spec({ model: { kind: 'bedrock', modelId: null, baseUrl: null, env: {}, region: 'eu-west-3' } })),
    ['bedrock-runtime.eu-west-3.amazonaws.com']);
  assert.deepEqual(allowedHosts(spec({ model: { kind: 'bedrock', modelId: null, baseUrl: 'https://vpce-1.bedrock.example.aws', env: {}, region: 'eu-west-3' } })),
    ['vpce-1.bedrock.example.aws']);
});

test('allowedHosts: allowlist + model + remote MCP servers + repositories; stdio servers add nothing; sorted, de-duplicated', () => {
  const hosts = allowedHosts(spec({
    hostAllowlist: ['pypi.org', 'https://files.pythonhosted.org/simple', '*.example.com', 'PyPI.org', 'not a host!'],
    model: anthropic('https://gateway.example.com/anthropic'),
    mcpServers: {
      everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything', 'https://stdio-arg.example.net'] },
      fs: { type: 'stdio', command: '/usr/bin/mcp-fs', env: { URL: 'https://stdio-env.example.net' } },
      github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: '${BERTH_MCP_0_HEADER_0}' } },
      events: { type: 'sse', url: 'http://mcp-events:9000/sse' },
    },
    repositories: [
      { dir: 'api', url: 'https://github.com/acme/api.git', branch: 'main', token: null },
      { dir: 'web', url: 'git@github.com:acme/web.git', branch: 'main', token: null },
      { dir: 'ops', url: 'https://git.example.com/ops.git', branch: 'main', token: null },
    ],
  }));
  assert.deepEqual(hosts, ['*.example.com', 'api.githubcopilot.com', 'files.pythonhosted.org', 'gateway.example.com', 'git.example.com', 'github.com', 'mcp-events', 'pypi.org']);
  assert.ok(!hosts.some((h) => h.includes('stdio')), 'a stdio server reaches nothing through the proxy');
  assert.ok(!hosts.includes('api.anthropic.com'), 'a gateway replaces Anthropic\'s API');
});

const matches = (line: string, host: string) => new RegExp(line, 'i').test(host);
const allows = (hosts: string[], host: string) => filterLines(hosts).some((l) => matches(l, host));

test('filterLines: an exact host is anchored and its dots escaped', () => {
  const [line] = filterLines(['a.b']);
  assert.equal(line, '^(http://)?a\\.b(:[0-9]+)?(/.*)?$');
  assert.ok(matches(line!, 'a.b'));
  for (const other of ['axb', 'a.bc', 'xa.b', 'sub.a.b', 'a.b.evil.com']) assert.ok(!matches(line!, other), other);
  assert.ok(allows(['api.anthropic.com'], 'API.Anthropic.com'), 'case-insensitive like FilterCaseSensitive Off');
  assert.ok(!allows(['api.anthropic.com'], 'api-anthropic.com'));
  // regex characters in a host are literal
  assert.ok(!allows(['a+b.example'], 'aab.example'));
  assert.ok(allows(['a+b.example'], 'a+b.example'));
  assert.ok(!allows(['2001:db8::1'], '2001:db8::10'));
});

test('filterLines: what tinyproxy matches with FilterURLs On — a plain request\'s URL, a CONNECT\'s host:port — for the host only', () => {
  const lines = filterLines(['a.b']);
  const ok = (s: string) => lines.some((l) => matches(l, s));
  for (const s of ['http://a.b/x?y=1', 'http://a.b:8080/', 'a.b:443', 'http://A.B/']) assert.ok(ok(s), s);
  for (const s of ['http://a.b.evil.com/', 'http://a.b@evil.com/', 'http://a.b:80@evil.com/', 'a.bc:443', 'http://xa.b/', 'https://a.b/']) assert.ok(!ok(s), s);
});

test('filterLines: an exact URL lets through that URL only (berth\'s MCP endpoint), an https one its host:port', () => {
  const lines = filterLines([], ['http://host.docker.internal:8080/mcp', 'https://berth.example:8443/mcp']);
  const ok = (s: string) => lines.some((l) => matches(l, s));
  assert.ok(ok('http://host.docker.internal:8080/mcp'));
  assert.ok(ok('berth.example:8443'));
  for (const s of ['http://host.docker.internal:8080/etc', 'http://host.docker.internal:8080/mcp?x=1', 'http://host.docker.internal:2019/mcp',
    'http://host.docker.internal/mcp', 'host.docker.internal:8080', 'berth.example:443', 'http://berth.example:8443/mcp']) assert.ok(!ok(s), s);
});

test('filterLines: *.example.com allows every subdomain, not the domain itself nor a look-alike', () => {
  const [line] = filterLines(['*.example.com']);
  for (const h of ['sub.example.com', 'a.b.example.com', 'x-1.example.com']) assert.ok(matches(line!, h), h);
  for (const h of ['example.com', 'badexample.com', 'sub.badexample.com', 'example.com.evil.net', 'subxexample.com', '.example.com']) {
    assert.ok(!matches(line!, h), h);
  }
  assert.deepEqual(filterLines([]), []);
  assert.equal(filterLines(['a.example', '*.b.example']).length, 2);
});

test('parseProxyLine: tinyproxy\'s refusals and established connections; every other line is null', () => {
  // as Debian's tinyproxy 1.11.1 writes them (LogLevel Info), captured with the configuration proxyConfig renders
  assert.deepEqual(parseProxyLine('NOTICE    Nov 26 06:56:23.835 [21607]: Proxying refused on filtered domain "blocked.example"'),
    { kind: 'refused', host: 'blocked.example' });
  assert.deepEqual(parseProxyLine('NOTICE    Nov 26 06:40:01.123 [7]: Proxying refused on filtered domain "blocked"'), { kind: 'refused', host: 'blocked' });
  assert.deepEqual(parseProxyLine('NOTICE    Nov 26 06:40:01.123 [7]: Proxying refused on filtered url "http://blocked.example/x"'),
    { kind: 'refused', host: 'blocked.example' });
  assert.deepEqual(parseProxyLine('NOTICE    Nov 26 10:01:17.231 [7]: Proxying refused on filtered url "other.org:443"'), { kind: 'refused', host: 'other.org' });
  assert.deepEqual(parseProxyLine('CONNECT   Nov 26 06:56:23.855 [21607]: Established connection to host "127.0.0.1" using file descriptor 6.'),
    { kind: 'allowed', host: '127.0.0.1' });
  assert.deepEqual(parseProxyLine('CONNECT   Nov 26 06:40:01.123 [7]: Established connection to host "model" using file descriptor 6.'),
    { kind: 'allowed', host: 'model' });
  for (const other of [
    'NOTICE    Nov 26 06:56:21.809 [21607]: Initializing tinyproxy ...',
    'CONNECT   Nov 26 06:56:23.834 [21607]: Connect (file descriptor 5): 127.0.0.1',
    'CONNECT   Nov 26 06:56:23.835 [21607]: Request (file descriptor 5): GET http://blocked.example/ HTTP/1.1',
    'CONNECT   Nov 26 06:56:23.883 [21607]: Request (file descriptor 5): CONNECT blocked.example:443 HTTP/1.1',
    'INFO      Nov 26 06:56:23.854 [21607]: opensock: opening connection to 127.0.0.1:38129',
    'INFO      Nov 26 06:56:23.859 [21607]: Closed connection between local client (fd:5) and remote client (fd:6)',
    'INFO      Nov 26 06:56:23.929 [21607]: Refused CONNECT method on port 38129',
    '',
  ]) assert.equal(parseProxyLine(other), null, other);
});

test('proxyConfig: denies by default, filters what requests name (URLs, CONNECT targets) with extended regexes from the given file', () => {
  const conf = proxyConfig('/tmp/berth-filter');
  const lines = conf.split('\n').map((l) => l.trim());
  for (const want of ['FilterDefaultDeny Yes', 'FilterType ere', 'FilterURLs On', 'FilterCaseSensitive Off', 'Filter "/tmp/berth-filter"', `Port ${PROXY_PORT}`]) {
    assert.ok(lines.includes(want), `missing ${want}:\n${conf}`);
  }
  assert.ok(!lines.some((l) => /^FilterDefaultDeny\s+No/i.test(l)));
  // refusals must be logged for the run's log to name them (NOTICE is at or under Info)
  assert.ok(lines.some((l) => /^LogLevel (Info|Notice|Connect)$/.test(l)), conf);
  assert.ok(!lines.some((l) => /^(Upstream|Allow|Deny|ReverseOnly)\b/.test(l)), 'no upstream and no client ACL that could widen or replace the filter');
});
