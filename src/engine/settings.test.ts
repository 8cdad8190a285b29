// The engine's reading of advanced settings: the catalogue's defaults when a key is missing
// (databases carry none) or malformed, the stored values otherwise, and which pre-stop command runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completeAdvancedSettings, defaultAdvancedSettings } from '../modules/services/advanced-settings/index.ts';
import { DEFAULT_PRE_STOP, preStopCommand, serviceSettings } from './settings.ts';

test('with no settings, every value is the catalogue\'s default', () => {
  const fromNothing = serviceSettings({});
  assert.deepEqual(serviceSettings(defaultAdvancedSettings('application')), fromNothing, 'application defaults');
  const job = serviceSettings(defaultAdvancedSettings('job'));
  assert.deepEqual(job.job, fromNothing.job, 'job defaults');
  assert.deepEqual(job.build, fromNothing.build);
  assert.deepEqual(job.security, fromNothing.security);
  assert.deepEqual(defaultAdvancedSettings('application')['deployment.lifecycle.pre_stop_exec_command'], [...DEFAULT_PRE_STOP]);
  assert.deepEqual(fromNothing, {
    deployment: { strategy: 'RollingUpdate', maxSurgePercent: 25, maxUnavailablePercent: 25, graceSeconds: 60, postStart: [], preStop: [...DEFAULT_PRE_STOP] },
    build: { timeoutSeconds: 1800, cpuMilli: 4000, ramGiB: 8, noCache: false, skipSubmodules: false },
    security: { readOnlyRootFilesystem: false },
    job: { deleteTtlSeconds: null, concurrencyPolicy: 'Forbid', failedHistoryLimit: 1, successHistoryLimit: 1 },
  });
  assert.deepEqual(serviceSettings(null), fromNothing);
});

test('stored values are read; malformed ones fall back to the default', () => {
  const s = serviceSettings(completeAdvancedSettings('application', {
    'deployment.update_strategy.type': 'Recreate', 'deployment.termination_grace_period_seconds': 3,
    'deployment.lifecycle.post_start_exec_command': ['sh', '-c', 'true'], 'build.timeout_max_sec': 5,
    'build.skip_git_submodules': true, 'security.read_only_root_filesystem': true,
  }));
  assert.equal(s.deployment.strategy, 'Recreate');
  assert.equal(s.deployment.graceSeconds, 3);
  assert.deepEqual(s.deployment.postStart, ['sh', '-c', 'true']);
  assert.equal(s.build.timeoutSeconds, 5);
  assert.equal(s.build.skipSubmodules, true);
  assert.equal(s.security.readOnlyRootFilesystem, true);
  const odd = serviceSettings({
    'deployment.update_strategy.type': 'BlueGreen', 'deployment.termination_grace_period_seconds': -1,
    'deployment.lifecycle.pre_stop_exec_command': [1, 2], 'cronjob.concurrency_policy': 'Forbidden', 'job.delete_ttl_seconds_after_finished': 30,
  });
  assert.equal(odd.deployment.strategy, 'RollingUpdate');
  assert.equal(odd.deployment.graceSeconds, 60);
  assert.deepEqual(odd.deployment.preStop, [...DEFAULT_PRE_STOP]);
  assert.equal(odd.job.concurrencyPolicy, 'Forbid');
  assert.equal(odd.job.deleteTtlSeconds, 30);
});

test('the default pre-stop `sleep 15` is not run (the drain stands for it); any other command is', () => {
  assert.equal(preStopCommand(serviceSettings({})), null);
  assert.equal(preStopCommand(serviceSettings({ 'deployment.lifecycle.pre_stop_exec_command': [] })), null);
  assert.deepEqual(preStopCommand(serviceSettings({ 'deployment.lifecycle.pre_stop_exec_command': ['/bin/sh', '-c', 'sleep 16'] })), ['/bin/sh', '-c', 'sleep 16']);
  assert.deepEqual(preStopCommand(serviceSettings({ 'deployment.lifecycle.pre_stop_exec_command': ['sleep', '15'] })), ['sleep', '15']);
});
