// Tests of the TypeBox advanced-settings schemas, checked with TypeBox's compiler: shape of the
// generated JSON Schema, good and bad patches, and full objects.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Compile } from 'typebox/compile';
import { defaultAdvancedSettings } from './defaults.ts';
import {
  advancedSettingsPatchSchema,
  advancedSettingsSchema,
  ApplicationAdvancedSettingsPatchSchema,
  ApplicationAdvancedSettingsSchema,
  ContainerAdvancedSettingsSchema,
  JobAdvancedSettingsPatchSchema,
  JobAdvancedSettingsSchema,
} from './schemas.ts';
import { SERVICE_KINDS } from './types.ts';

const appPatch = Compile(ApplicationAdvancedSettingsPatchSchema);
const jobPatch = Compile(JobAdvancedSettingsPatchSchema);

function errorsOf(validator: { Errors(value: unknown): unknown[] }, value: unknown): string {
  return JSON.stringify(validator.Errors(value));
}

test('schemas are plain JSON Schema objects with every key and no extra keys allowed', () => {
  for (const kind of SERVICE_KINDS) {
    const full = advancedSettingsSchema(kind) as unknown as Record<string, unknown>;
    const patch = advancedSettingsPatchSchema(kind) as unknown as Record<string, unknown>;
    const keys = Object.keys(defaultAdvancedSettings(kind));
    assert.equal(full.type, 'object');
    assert.equal(full.additionalProperties, false);
    assert.deepEqual(patch.additionalProperties, { not: {} });
    assert.deepEqual(full.required, keys);
    assert.equal(patch.required, undefined);
    assert.deepEqual(Object.keys(full.properties as object), keys);
    assert.deepEqual(Object.keys(patch.properties as object), keys);
    // survives a JSON round trip unchanged: nothing hidden is needed by a JSON Schema validator
    assert.deepEqual(JSON.parse(JSON.stringify(full)), { ...full });
    assert.ok(!JSON.stringify(full).includes('"default"'), 'no default keyword (Ajv useDefaults would fill patches)');
  }
  const props = (ApplicationAdvancedSettingsSchema as unknown as { properties: Record<string, Record<string, unknown>> }).properties;
  assert.match(String(props['deployment.termination_grace_period_seconds']!.description), /graceful stop.*Default: 60/);
  assert.deepEqual(props['deployment.antiaffinity.pod']!.enum, ['Preferred', 'Requirred']);
  assert.deepEqual(props['hpa.memory.average_utilization_percent']!.anyOf, [
    { type: 'integer', minimum: 0, maximum: 100 },
    { type: 'null' },
  ]);
});

test('defaults validate against the full schema of their kind', () => {
  assert.equal(Compile(ApplicationAdvancedSettingsSchema).Check(defaultAdvancedSettings('application')), true);
  assert.equal(Compile(ContainerAdvancedSettingsSchema).Check(defaultAdvancedSettings('container')), true);
  assert.equal(Compile(JobAdvancedSettingsSchema).Check(defaultAdvancedSettings('job')), true);
  const missing: Record<string, unknown> = defaultAdvancedSettings('job');
  delete missing['cronjob.concurrency_policy'];
  assert.equal(Compile(JobAdvancedSettingsSchema).Check(missing), false);
  assert.equal(Compile(ContainerAdvancedSettingsSchema).Check(defaultAdvancedSettings('application')), false);
});

test('patch: good patches pass', () => {
  assert.equal(appPatch.Check({}), true);
  assert.equal(appPatch.Check({ 'deployment.termination_grace_period_seconds': 30 }), true);
  assert.equal(appPatch.Check({
    'deployment.antiaffinity.pod': 'Requirred',
    'deployment.affinity.node.required': { 'topology.kubernetes.io/zone': 'eu-west-3a' },
    'deployment.lifecycle.pre_stop_exec_command': ['/bin/sh', '-c', 'sleep 30'],
    'network.ingress.whitelist_source_range': '10.0.0.0/8, 192.168.0.0/16',
    'network.gateway_api.retry.per_try_timeout_seconds': 1,
    'network.gateway_api.retry.num_retries': 0,
    'hpa.memory.average_utilization_percent': null,
    'network.ingress.denylist_source_range': null,
    'build.ephemeral_storage_in_gib': 20,
  }), true);
  assert.equal(jobPatch.Check({ 'cronjob.concurrency_policy': 'Replace', 'job.delete_ttl_seconds_after_finished': null }), true);
});

test('patch: an unknown key is rejected and named', () => {
  assert.equal(appPatch.Check({ 'network.ingress.nope': 1 }), false);
  assert.match(errorsOf(appPatch, { 'network.ingress.nope': 1 }), /network\.ingress\.nope/);
  // a key of another kind is unknown here
  assert.equal(appPatch.Check({ 'cronjob.concurrency_policy': 'Forbid' }), false);
  assert.equal(jobPatch.Check({ 'network.ingress.proxy_body_size_mb': 10 }), false);
  assert.equal(Compile(ApplicationAdvancedSettingsPatchSchema).Check({ 'network.ingress.proxy_request_buffering': 'on' }), false);
});

test('patch: wrong types are rejected (no coercion, integers are integers)', () => {
  for (const bad of [
    { 'deployment.termination_grace_period_seconds': '60' },
    { 'deployment.termination_grace_period_seconds': 1.5 },
    { 'deployment.termination_grace_period_seconds': null },
    { 'deployment.custom_domain_check_enabled': 'true' },
    { 'deployment.custom_domain_check_enabled': 1 },
    { 'network.ingress.cors_allow_origin': 5 },
    { 'network.ingress.whitelist_source_range': null },
    { 'deployment.lifecycle.pre_stop_exec_command': 'sleep 15' },
    { 'deployment.lifecycle.pre_stop_exec_command': ['sleep', 15] },
    { 'deployment.affinity.node.required': { zone: 1 } },
    { 'deployment.affinity.node.required': ['a'] },
    { 'network.gateway_api.retry.retry_on': 5 },
  ]) {
    assert.equal(appPatch.Check(bad), false, JSON.stringify(bad));
  }
  assert.match(errorsOf(appPatch, { 'deployment.termination_grace_period_seconds': '60' }), /termination_grace_period_seconds/);
});

test('patch: enums use the seed spelling', () => {
  assert.equal(appPatch.Check({ 'deployment.antiaffinity.pod': 'Requirred' }), true);
  assert.equal(appPatch.Check({ 'deployment.antiaffinity.pod': 'Preferred' }), true);
  assert.equal(appPatch.Check({ 'deployment.antiaffinity.pod': 'Required' }), false);
  assert.equal(appPatch.Check({ 'deployment.topology_spread.zone': 'DoNotSchedule' }), true);
  assert.equal(appPatch.Check({ 'deployment.topology_spread.zone': 'disabled' }), false);
  assert.equal(appPatch.Check({ 'deployment.update_strategy.type': 'Recreate' }), true);
  assert.equal(appPatch.Check({ 'deployment.update_strategy.type': 'BlueGreen' }), false);
  assert.equal(jobPatch.Check({ 'cronjob.concurrency_policy': 'Forbidden' }), false);
});

test('patch: minima and maxima', () => {
  assert.equal(appPatch.Check({ 'network.gateway_api.retry.per_try_timeout_seconds': 0 }), false);
  assert.equal(appPatch.Check({ 'network.gateway_api.retry.per_try_timeout_seconds': 1 }), true);
  assert.equal(appPatch.Check({ 'network.gateway_api.retry.num_retries': -1 }), false);
  assert.equal(appPatch.Check({ 'network.gateway_api.http_request_timeout_seconds': 0 }), true);
  assert.equal(appPatch.Check({ 'network.gateway_api.http_connection_idle_timeout_seconds': -5 }), false);
  assert.equal(appPatch.Check({ 'deployment.termination_grace_period_seconds': -1 }), false);
  assert.equal(appPatch.Check({ 'network.ingress.proxy_read_timeout_seconds': -1 }), false);
  assert.equal(appPatch.Check({ 'hpa.cpu.average_utilization_percent': 100 }), true);
  assert.equal(appPatch.Check({ 'hpa.cpu.average_utilization_percent': 101 }), false);
  assert.equal(appPatch.Check({ 'deployment.update_strategy.rolling_update.max_surge_percent': 150 }), false);
  assert.equal(jobPatch.Check({ 'cronjob.failed_jobs_history_limit': -1 }), false);
  assert.equal(jobPatch.Check({ 'job.delete_ttl_seconds_after_finished': -1 }), false);
});
