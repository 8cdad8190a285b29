// Tests of applying an advanced-settings patch to current settings.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultAdvancedSettings } from './defaults.ts';
import { applyAdvancedSettingsPatch } from './merge.ts';

test('keys sent change, the others stay', () => {
  const current = defaultAdvancedSettings('application');
  const next = applyAdvancedSettingsPatch(current, {
    'deployment.termination_grace_period_seconds': 120,
    'network.ingress.whitelist_source_range': '10.0.0.0/8',
  });
  assert.equal(next['deployment.termination_grace_period_seconds'], 120);
  assert.equal(next['network.ingress.whitelist_source_range'], '10.0.0.0/8');
  assert.equal(next['hpa.cpu.average_utilization_percent'], 60);
  assert.deepEqual(Object.keys(next), Object.keys(current));
  const { ['deployment.termination_grace_period_seconds']: _a, ['network.ingress.whitelist_source_range']: _b, ...restNext } = next;
  const { ['deployment.termination_grace_period_seconds']: _c, ['network.ingress.whitelist_source_range']: _d, ...restCurrent } = current;
  assert.deepEqual(restNext, restCurrent);
});

test('null resets a nullable key to null; undefined counts as not sent', () => {
  const current = applyAdvancedSettingsPatch(defaultAdvancedSettings('application'), {
    'hpa.memory.average_utilization_percent': 80,
    'network.gateway_api.retry.num_retries': 3,
  });
  assert.equal(current['hpa.memory.average_utilization_percent'], 80);
  const next = applyAdvancedSettingsPatch(current, {
    'hpa.memory.average_utilization_percent': null,
    'network.gateway_api.retry.num_retries': undefined,
  });
  assert.equal(next['hpa.memory.average_utilization_percent'], null);
  assert.equal(next['network.gateway_api.retry.num_retries'], 3);
});

test('arrays and maps are replaced whole, not merged', () => {
  const current = applyAdvancedSettingsPatch(defaultAdvancedSettings('job'), {
    'deployment.affinity.node.required': { zone: 'a', pool: 'x' },
  });
  const next = applyAdvancedSettingsPatch(current, { 'deployment.affinity.node.required': { zone: 'b' } });
  assert.deepEqual(next['deployment.affinity.node.required'], { zone: 'b' });
  const app = applyAdvancedSettingsPatch(defaultAdvancedSettings('application'), {
    'deployment.lifecycle.pre_stop_exec_command': [],
  });
  assert.deepEqual(app['deployment.lifecycle.pre_stop_exec_command'], []);
});

test('inputs are not modified and the result shares no array or map with them', () => {
  const current = defaultAdvancedSettings('application');
  const patchValue = ['/bin/sh', '-c', 'echo hi'];
  const patch = { 'deployment.lifecycle.post_start_exec_command': patchValue };
  const snapshot = structuredClone(current);
  const next = applyAdvancedSettingsPatch(current, patch);
  assert.deepEqual(current, snapshot);
  assert.deepEqual(patch, { 'deployment.lifecycle.post_start_exec_command': ['/bin/sh', '-c', 'echo hi'] });
  assert.notEqual(next['deployment.lifecycle.post_start_exec_command'], patchValue);
  assert.notEqual(next['deployment.lifecycle.pre_stop_exec_command'], current['deployment.lifecycle.pre_stop_exec_command']);
  assert.notEqual(next['deployment.affinity.node.required'], current['deployment.affinity.node.required']);
  next['deployment.lifecycle.post_start_exec_command'].push('x');
  assert.equal(patchValue.length, 3);
});
