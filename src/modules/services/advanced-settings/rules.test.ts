// Tests of the semantic advanced-settings rules (what JSON Schema cannot express).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultAdvancedSettings } from './defaults.ts';
import { RETRY_ON_VALUES, validateAdvancedSettings, validateAdvancedSettingsPatch, type RuleResult } from './rules.ts';
import { SERVICE_KINDS } from './types.ts';

function rejects(result: RuleResult, field: string, pattern?: RegExp): void {
  assert.equal(result.ok, false, `expected ${field} to be rejected`);
  if (!result.ok) {
    assert.equal(result.field, field);
    if (pattern) assert.match(result.message, pattern);
  }
}

const app = (patch: Record<string, unknown>): RuleResult => validateAdvancedSettingsPatch('application', patch);

test('defaults of every kind pass the rules', () => {
  for (const kind of SERVICE_KINDS) {
    assert.deepEqual(validateAdvancedSettingsPatch(kind, defaultAdvancedSettings(kind)), { ok: true });
    assert.deepEqual(validateAdvancedSettings(kind, defaultAdvancedSettings(kind)), { ok: true });
  }
  assert.deepEqual(app({}), { ok: true });
});

test('whitelist and denylist are comma-separated CIDR lists', () => {
  assert.ok(app({ 'network.ingress.whitelist_source_range': '0.0.0.0/0' }).ok);
  assert.ok(app({ 'network.ingress.whitelist_source_range': '10.0.0.0/8, 192.168.0.0/16,2001:db8::/32' }).ok);
  assert.ok(app({ 'network.ingress.denylist_source_range': '' }).ok);
  assert.ok(app({ 'network.ingress.denylist_source_range': null }).ok);
  rejects(app({ 'network.ingress.whitelist_source_range': '10.0.0.0/8, 10.0.0.0/33' }), 'network.ingress.whitelist_source_range', /"10\.0\.0\.0\/33"/);
  rejects(app({ 'network.ingress.denylist_source_range': 'everyone' }), 'network.ingress.denylist_source_range', /"everyone"/);
  rejects(validateAdvancedSettingsPatch('container', { 'network.ingress.whitelist_source_range': '1.2.3.4/8;' }), 'network.ingress.whitelist_source_range');
});

test('retry http_status_codes are integers 100..599', () => {
  const field = 'network.gateway_api.retry.http_status_codes';
  assert.ok(app({ [field]: '503' }).ok);
  assert.ok(app({ [field]: '500, 502,503,504' }).ok);
  assert.ok(app({ [field]: '100,599' }).ok);
  assert.ok(app({ [field]: null }).ok);
  rejects(app({ [field]: '99' }), field, /"99"/);
  rejects(app({ [field]: '600' }), field, /"600"/);
  rejects(app({ [field]: '500,abc' }), field, /"abc"/);
  rejects(app({ [field]: '500.0' }), field);
  rejects(app({ [field]: '500,' }), field);
  rejects(app({ [field]: '' }), field, /null/);
});

test('retry_on takes triggers from the Envoy / Gateway API set', () => {
  const field = 'network.gateway_api.retry.retry_on';
  assert.equal(RETRY_ON_VALUES.length, 15);
  assert.ok(app({ [field]: RETRY_ON_VALUES.join(',') }).ok);
  assert.ok(app({ [field]: 'connect-failure, reset, retriable-status-codes' }).ok);
  rejects(app({ [field]: '5xx,always' }), field, /"always"/);
  rejects(app({ [field]: 'Reset' }), field);
  rejects(app({ [field]: ' ' }), field);
});

test('extra_headers is a JSON object of string values serialized in a string', () => {
  const field = 'network.ingress.extra_headers';
  assert.ok(app({ [field]: '{}' }).ok);
  assert.ok(app({ [field]: '{"X-Frame-Options":"DENY","Strict-Transport-Security":"max-age=31536000"}' }).ok);
  assert.ok(app({ [field]: '{\n  "X-A": "b"\n}' }).ok);
  rejects(app({ [field]: 'X-Frame-Options: DENY' }), field, /JSON object/);
  rejects(app({ [field]: '["X-Frame-Options"]' }), field, /not an array/);
  rejects(app({ [field]: 'null' }), field);
  rejects(app({ [field]: '"text"' }), field);
  rejects(app({ [field]: '{"X-Count": 1}' }), field, /must be a string/);
  rejects(app({ [field]: '{"Bad Header": "x"}' }), field, /header name/);
  rejects(app({ [field]: '{"X-A": "a\\r\\nSet-Cookie: x"}' }), field, /control characters/);
});

test('node affinity is a map of Kubernetes label names to values', () => {
  const field = 'deployment.affinity.node.required';
  assert.ok(app({ [field]: {} }).ok);
  assert.ok(app({ [field]: { 'topology.kubernetes.io/zone': 'eu-west-3a', pool: '' } }).ok);
  assert.ok(validateAdvancedSettingsPatch('job', { [field]: { 'node.kubernetes.io/instance-type': 'm5.large' } }).ok);
  rejects(app({ [field]: { zone: 1 } }), field, /must be a string/);
  rejects(app({ [field]: ['zone'] }), field);
  rejects(app({ [field]: 'zone=a' }), field);
  rejects(app({ [field]: { 'bad key!': 'a' } }), field, /label/);
  rejects(app({ [field]: { 'Bad_Prefix/zone': 'a' } }), field, /prefix/);
  rejects(app({ [field]: { zone: 'has space' } }), field, /label value/);
  rejects(app({ [field]: { zone: 'a'.repeat(64) } }), field);
});

test('exec commands are arrays of strings with a non-empty executable', () => {
  const field = 'deployment.lifecycle.post_start_exec_command';
  assert.ok(app({ [field]: [] }).ok);
  assert.ok(app({ [field]: ['/bin/sh', '-c', 'echo started'] }).ok);
  rejects(app({ [field]: 'echo started' }), field, /array of strings/);
  rejects(app({ [field]: ['/bin/sh', 1] }), field, /array of strings/);
  rejects(app({ [field]: ['', '-c'] }), field, /executable/);
  rejects(app({ 'deployment.lifecycle.pre_stop_exec_command': ['sh', 'a\u0000b'] }), 'deployment.lifecycle.pre_stop_exec_command');
});

test('other string rules: buffering on/off, env var and service account names, no control characters', () => {
  assert.ok(app({ 'network.ingress.proxy_buffering': 'off' }).ok);
  rejects(app({ 'network.ingress.proxy_buffering': 'true' }), 'network.ingress.proxy_buffering', /"on" or "off"/);
  rejects(validateAdvancedSettingsPatch('container', { 'network.ingress.proxy_request_buffering': 'yes' }), 'network.ingress.proxy_request_buffering');
  assert.ok(app({ 'network.ingress.basic_auth_env_var': 'BASIC_AUTH' }).ok);
  assert.ok(app({ 'network.ingress.basic_auth_env_var': '' }).ok);
  rejects(app({ 'network.ingress.basic_auth_env_var': '1BAD-NAME' }), 'network.ingress.basic_auth_env_var');
  assert.ok(validateAdvancedSettingsPatch('job', { 'security.service_account_name': 'my-sa' }).ok);
  rejects(validateAdvancedSettingsPatch('job', { 'security.service_account_name': 'My SA' }), 'security.service_account_name');
  rejects(app({ 'network.ingress.cors_allow_origin': 'https://a.example\nmore_set_headers x' }), 'network.ingress.cors_allow_origin', /control/);
  assert.ok(app({ 'network.ingress.cors_allow_origin': 'https://a.example, https://b.example' }).ok);
});

test('keys unknown to the kind are reported', () => {
  rejects(app({ 'cronjob.concurrency_policy': 'Forbid' }), 'cronjob.concurrency_policy', /unknown/);
  rejects(validateAdvancedSettingsPatch('job', { 'network.ingress.whitelist_source_range': '0.0.0.0/0' }), 'network.ingress.whitelist_source_range');
});

test('merged settings: RollingUpdate cannot have both max_unavailable and max_surge at 0', () => {
  const settings = {
    ...defaultAdvancedSettings('container'),
    'deployment.update_strategy.rolling_update.max_unavailable_percent': 0,
    'deployment.update_strategy.rolling_update.max_surge_percent': 0,
  };
  rejects(validateAdvancedSettings('container', settings), 'deployment.update_strategy.rolling_update.max_unavailable_percent', /both be 0/);
  assert.ok(validateAdvancedSettings('container', { ...settings, 'deployment.update_strategy.type': 'Recreate' }).ok);
  assert.ok(validateAdvancedSettings('container', { ...settings, 'deployment.update_strategy.rolling_update.max_surge_percent': 1 }).ok);
});
