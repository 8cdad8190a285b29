// Tests of the catalogue's key sets and of the default advanced settings of each service kind.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADVANCED_SETTINGS_CATALOGUE, advancedSettingKeys, advancedSettingSpec, isAdvancedSettingKey, type AdvancedSettings } from './catalogue.ts';
import { completeAdvancedSettings, defaultAdvancedSettings } from './defaults.ts';
import { SERVICE_KINDS, type SettingSpec } from './types.ts';

function hasSpecType(spec: SettingSpec, value: unknown): boolean {
  if (value === null) return spec.nullable === true;
  switch (spec.type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    case 'string':
      return typeof value === 'string' && (spec.enum === undefined || spec.enum.includes(value));
    case 'string-array':
      return Array.isArray(value) && value.every((part) => typeof part === 'string');
    case 'string-map':
      return value !== null && typeof value === 'object' && !Array.isArray(value)
        && Object.values(value).every((part) => typeof part === 'string');
  }
}

test('key sets: application 48 (seed table), container 41, job 14', () => {
  assert.equal(advancedSettingKeys('application').length, 48);
  assert.equal(advancedSettingKeys('container').length, 41);
  assert.equal(advancedSettingKeys('job').length, 14);
  const app = new Set<string>(advancedSettingKeys('application'));
  assert.ok(app.has('build.ephemeral_storage_in_gib'));
  assert.ok(!app.has('network.ingress.proxy_request_buffering'));
  const expectedContainer = [...app]
    .filter((key) => !key.startsWith('build.') && !key.startsWith('deployment.lifecycle.'))
    .concat('network.ingress.proxy_request_buffering');
  assert.deepEqual(new Set(advancedSettingKeys('container')), new Set(expectedContainer));
  assert.deepEqual(new Set(advancedSettingKeys('job')), new Set([
    'build.timeout_max_sec', 'build.cpu_max_in_milli', 'build.ram_max_in_gib', 'build.disable_buildkit_cache',
    'build.skip_git_submodules', 'deployment.termination_grace_period_seconds', 'deployment.affinity.node.required',
    'job.delete_ttl_seconds_after_finished', 'cronjob.concurrency_policy', 'cronjob.failed_jobs_history_limit',
    'cronjob.success_jobs_history_limit', 'security.service_account_name', 'security.automount_service_account_token',
    'security.read_only_root_filesystem',
  ]));
  assert.equal(isAdvancedSettingKey('job', 'cronjob.concurrency_policy'), true);
  assert.equal(isAdvancedSettingKey('application', 'cronjob.concurrency_policy'), false);
  assert.equal(isAdvancedSettingKey('application', 'toString'), false);
  assert.equal(advancedSettingSpec('constructor'), undefined);
});

test('every key of each kind is present in its defaults with the right type, and nothing else', () => {
  for (const kind of SERVICE_KINDS) {
    const defaults: Record<string, unknown> = defaultAdvancedSettings(kind);
    assert.deepEqual(Object.keys(defaults), [...advancedSettingKeys(kind)]);
    for (const [key, value] of Object.entries(defaults)) {
      const spec = advancedSettingSpec(key);
      assert.ok(spec, key);
      assert.ok(hasSpecType(spec, value), `${kind} ${key} default ${JSON.stringify(value)} does not fit its type`);
      if (typeof value === 'number') {
        assert.ok(spec.minimum === undefined || value >= spec.minimum, key);
        assert.ok(spec.maximum === undefined || value <= spec.maximum, key);
      }
    }
  }
});

test('default values follow the facts', () => {
  const app = defaultAdvancedSettings('application');
  assert.equal(app['deployment.termination_grace_period_seconds'], 60);
  assert.equal(app['deployment.update_strategy.type'], 'RollingUpdate');
  assert.equal(app['deployment.update_strategy.rolling_update.max_unavailable_percent'], 25);
  assert.equal(app['deployment.update_strategy.rolling_update.max_surge_percent'], 25);
  assert.equal(app['network.ingress.proxy_body_size_mb'], 100);
  assert.deepEqual(app['deployment.lifecycle.pre_stop_exec_command'], ['/bin/sh', '-c', 'sleep 15']);
  assert.deepEqual(app['deployment.lifecycle.post_start_exec_command'], []);
  assert.equal(app['hpa.cpu.average_utilization_percent'], 60);
  assert.equal(app['hpa.memory.average_utilization_percent'], null);
  assert.equal(app['deployment.antiaffinity.pod'], 'Preferred');
  assert.equal(app['deployment.topology_spread.zone'], 'Disabled');
  assert.equal(app['deployment.custom_domain_check_enabled'], true);
  assert.equal(app['build.timeout_max_sec'], 1800);
  assert.equal(app['build.cpu_max_in_milli'], 4000);
  assert.equal(app['build.ram_max_in_gib'], 8);
  assert.equal(app['build.ephemeral_storage_in_gib'], null);
  assert.equal(app['network.ingress.keepalive_time_seconds'], 3600);
  assert.equal(app['network.ingress.whitelist_source_range'], '0.0.0.0/0');
  assert.equal(app['network.ingress.denylist_source_range'], '');
  assert.equal(app['network.ingress.extra_headers'], '{}');
  assert.equal(app['network.ingress.proxy_buffering'], 'on');
  assert.equal(app['network.gateway_api.retry.per_try_timeout_seconds'], null);
  assert.deepEqual(app['deployment.affinity.node.required'], {});
  const container = defaultAdvancedSettings('container');
  assert.equal(container['network.ingress.proxy_request_buffering'], 'on');
  const job = defaultAdvancedSettings('job');
  assert.equal(job['cronjob.concurrency_policy'], 'Forbid');
  assert.equal(job['cronjob.failed_jobs_history_limit'], 1);
  assert.equal(job['cronjob.success_jobs_history_limit'], 1);
  assert.equal(job['job.delete_ttl_seconds_after_finished'], null);
  assert.equal(job['security.service_account_name'], '');
});

test('defaults are fresh objects that do not share state with the catalogue', () => {
  const first = defaultAdvancedSettings('application');
  first['deployment.lifecycle.pre_stop_exec_command'].push('oops');
  first['deployment.affinity.node.required']['zone'] = 'a';
  first['hpa.cpu.average_utilization_percent'] = 90;
  const second = defaultAdvancedSettings('application');
  assert.deepEqual(second['deployment.lifecycle.pre_stop_exec_command'], ['/bin/sh', '-c', 'sleep 15']);
  assert.deepEqual(second['deployment.affinity.node.required'], {});
  assert.equal(second['hpa.cpu.average_utilization_percent'], 60);
  assert.ok(Object.isFrozen(ADVANCED_SETTINGS_CATALOGUE['deployment.lifecycle.pre_stop_exec_command'].default));
});

test('completeAdvancedSettings fills missing keys and drops unknown ones', () => {
  const done = completeAdvancedSettings('job', { 'build.timeout_max_sec': 60, 'legacy.key': 1 });
  assert.equal(done['build.timeout_max_sec'], 60);
  assert.equal(done['cronjob.concurrency_policy'], 'Forbid');
  assert.ok(!Object.hasOwn(done, 'legacy.key'));
  assert.deepEqual(completeAdvancedSettings('container', null), defaultAdvancedSettings('container'));
});

test('types: the kinds carry their own keys only', () => {
  const job: AdvancedSettings<'job'> = defaultAdvancedSettings('job');
  const policy: 'Allow' | 'Forbid' | 'Replace' = job['cronjob.concurrency_policy'];
  const ttl: number | null = job['job.delete_ttl_seconds_after_finished'];
  // @ts-expect-error an application key is not a job key
  assert.equal(job['network.ingress.proxy_body_size_mb'], undefined);
  assert.equal(policy, 'Forbid');
  assert.equal(ttl, null);
});
