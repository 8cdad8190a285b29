// Unit tests of the workflow rules: defaults and merging, CIDR/JSON/schedule validation,
// next_run_at across DST changes in several zones, connector lists and checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../lib/errors.ts';
import { checkConnectors, defaultSpec, mergeSpec, nextRunAt, requestedMcpServers, validateSpec } from './workflows.rules.ts';

const at = (s: string) => new Date(s);
const scheduled = (cron: string, tz: string, enabled = true) => ({ ...defaultSpec(), enabled, schedule: { cron_expression: cron, timezone: tz } });
const rejects = (fn: () => void, re: RegExp) => assert.throws(fn, (e: unknown) => e instanceof AppError && e.status === 400 && re.test(e.message));

test('defaults are the seed\'s and an edit keeps what it omits', () => {
  const d = defaultSpec();
  assert.deepEqual(d.resources, { cpu_milli: 1000, ram_mib: 1024, gpu: 0, storage_gib: 0 });
  assert.equal(d.enabled, true);
  assert.equal(d.execution_mode, 'IN_PLACE');
  assert.deepEqual(d.model, { type: 'CLAUDE', settings: '' });
  const s = mergeSpec(d, { name: 'x', description: 'a', schedule: { cron_expression: ' 0 1 * * * ', timezone: 'Etc/UTC' } });
  const e = mergeSpec(s, { name: 'x', agent_prompt: 'p' });
  assert.equal(e.description, 'a');
  assert.deepEqual(e.schedule, { cron_expression: '0 1 * * *', timezone: 'Etc/UTC' });
  assert.equal(mergeSpec(e, { name: 'x', schedule: null }).schedule, null);
});

test('validation: CIDRs (v4 and v6), mcp JSON text, output names, schedule', () => {
  validateSpec({ ...defaultSpec(), webhook_ip_allowlist: ['10.0.0.0/8', '::1', 'fd00::/8'], mcp: ' ' });
  rejects(() => validateSpec({ ...defaultSpec(), webhook_ip_allowlist: ['10.0.0.0/40'] }), /webhook_ip_allowlist\[0\]/);
  rejects(() => validateSpec({ ...defaultSpec(), mcp: '[1,' }), /mcp must be JSON/);
  validateSpec({ ...defaultSpec(), mcp: '{"mcpServers": {"fs": {"command": "npx"}}}', model: { type: 'CLAUDE', settings: '{"max_turns": 5}' } });
  rejects(() => validateSpec({ ...defaultSpec(), mcp: '{"a":1}' }), /^mcp\.a is not a known member/);
  rejects(() => validateSpec({ ...defaultSpec(), outputs: [{ name: 'a', url: null, headers: [], instructions: '' }, { name: 'A', url: null, headers: [], instructions: '' }] }), /used twice/);
  rejects(() => validateSpec(scheduled('* * * * *', 'Etc/UTC')), /at most once every 5 minutes/);
  rejects(() => validateSpec(scheduled('0 9 * * *', 'Nowhere/City')), /timezone/);
  validateSpec(scheduled('@hourly', 'Europe/Paris'));
  rejects(() => validateSpec(scheduled('0 0 30 2 *', 'Etc/UTC')), /never fires/);
  // judged on real firing times: 01:58 and 03:00 collapse in a spring-forward only where DST exists
  validateSpec(scheduled('0,30 * * * *', 'America/New_York'));
});

test('every problem at once: validation_error listing each with the request member it is about', () => {
  const spec = {
    ...defaultSpec(), webhook_ip_allowlist: ['10.0.0.0/40'], mcp: '{"mcpServers": {"a b": {"type": "http"}}}',
    model: { type: 'CLAUDE', settings: '{"max_turns": 0, "colour": 1}' }, schedule: { cron_expression: '* * * * *', timezone: 'Etc/UTC' },
  };
  assert.throws(() => validateSpec(spec), (e: unknown) => {
    assert.ok(e instanceof AppError && e.status === 400 && e.code === 'validation_error');
    assert.deepEqual(e.problems!.map((p) => p.field), ['webhook_ip_allowlist.0', 'mcp', 'mcp', 'model.settings', 'model.settings', 'schedule']);
    assert.deepEqual(e.problems!.slice(1, 5).map((p) => p.message), [
      'mcp.mcpServers["a b"] is not a valid server name: 1 to 64 letters, digits, "_" or "-"',
      'mcp.mcpServers["a b"].url is required (the server\'s http or https address)',
      'model.settings.max_turns must be an integer from 1 to 500; got 0',
      'model.settings.colour is not a known member; the members are model, base_url, max_turns, timeout_seconds, max_cost_usd',
    ]);
    assert.equal(e.message, e.problems![0]!.message);
    return true;
  });
  rejects(() => validateSpec({ ...defaultSpec(), model: { type: 'CLAUDE', settings: 'max_turns=3' } }), /^model\.settings must be JSON text \(or empty\)/);
});

test('next_run_at is the next firing in the zone, null while disabled or webhook-only', () => {
  assert.equal(nextRunAt(scheduled('0 9 * * *', 'Etc/UTC', false), at('2026-01-01T00:00:00Z')), null);
  assert.equal(nextRunAt(defaultSpec(), at('2026-01-01T00:00:00Z')), null);
  assert.equal(nextRunAt(scheduled('0 9 * * *', 'Asia/Kolkata'), at('2026-03-01T00:00:00Z'))!.toISOString(), '2026-03-01T03:30:00.000Z');
});

test('next_run_at across DST changes: New York spring-forward, Paris fall-back, Sydney fall-back', () => {
  // New York, 8 March 2026: 09:00 is EST (14:00Z) the day before and EDT (13:00Z) that day
  assert.equal(nextRunAt(scheduled('0 9 * * *', 'America/New_York'), at('2026-03-07T00:00:00Z'))!.toISOString(), '2026-03-07T14:00:00.000Z');
  assert.equal(nextRunAt(scheduled('0 9 * * *', 'America/New_York'), at('2026-03-07T15:00:00Z'))!.toISOString(), '2026-03-08T13:00:00.000Z');
  // 02:30 does not exist on 8 March: fires at the transition (03:00 EDT = 07:00Z)
  assert.equal(nextRunAt(scheduled('30 2 * * *', 'America/New_York'), at('2026-03-07T12:00:00Z'))!.toISOString(), '2026-03-08T07:00:00.000Z');
  // Paris, 25 October 2026: 02:30 happens twice; fires once, at the first (CEST) instance
  const paris = scheduled('30 2 * * *', 'Europe/Paris');
  assert.equal(nextRunAt(paris, at('2026-10-24T12:00:00Z'))!.toISOString(), '2026-10-25T00:30:00.000Z');
  assert.equal(nextRunAt(paris, at('2026-10-25T00:30:00Z'))!.toISOString(), '2026-10-26T01:30:00.000Z');
  // Sydney, 5 April 2026: AEDT (+11) → AEST (+10)
  const sydney = scheduled('0 9 * * *', 'Australia/Sydney');
  assert.equal(nextRunAt(sydney, at('2026-04-03T12:00:00Z'))!.toISOString(), '2026-04-03T22:00:00.000Z');
  assert.equal(nextRunAt(sydney, at('2026-04-04T00:00:00Z'))!.toISOString(), '2026-04-04T23:00:00.000Z');
});

test('connector lists: union of mcp_servers and mcp_server_ids; checks on existence, owner and names', () => {
  assert.equal(requestedMcpServers({}), undefined);
  assert.deepEqual(requestedMcpServers({ mcp_server_ids: ['B', 'a'], mcp_servers: [{ id: 'a' }, { id: 'A', required: true }] }), [{ id: 'a', required: true }, { id: 'b', required: false }]);
  const facts = [
    { id: 'a', name: 'GitHub', organizationId: 'o', scope: 'ORGANIZATION', ownerUserId: null },
    { id: 'b', name: 'github', organizationId: 'o', scope: 'USER', ownerUserId: 'u1' },
    { id: 'c', name: 'Jira', organizationId: 'o2', scope: 'ORGANIZATION', ownerUserId: null },
  ];
  checkConnectors([{ id: 'a', required: false }], facts, 'o', null);
  rejects(() => checkConnectors([{ id: 'z', required: true }], facts, 'o', 'u1'), /required MCP server z does not exist/);
  rejects(() => checkConnectors([{ id: 'c', required: false }], facts, 'o', 'u1'), /does not exist in this organization/);
  rejects(() => checkConnectors([{ id: 'b', required: false }], facts, 'o', 'u2'), /personal to another member/);
  rejects(() => checkConnectors([{ id: 'b', required: false }], facts, 'o', null), /personal to another member/);
  rejects(() => checkConnectors([{ id: 'a', required: false }, { id: 'b', required: false }], facts, 'o', 'u1'), /share the name/);
});
