// Unit tests of the job rules: schedule kinds, cron and time zone, sources, build_settings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { advancedToBuildSettings, buildSettingsToAdvanced, jobType, normalizeSchedule, normalizeSource } from './job.rules.ts';
import { defaultAdvancedSettings } from '../advanced-settings/index.ts';

test('a cron schedule fills only cronjob; defaults Etc/UTC, no arguments', () => {
  const s = normalizeSchedule({ cronjob: { scheduled_at: '*/5 * * * *' } });
  assert.deepEqual(s, { cronjob: { scheduled_at: '*/5 * * * *', timezone: 'Etc/UTC', arguments: [], entrypoint: null } });
  assert.equal(jobType(s), 'CRON');
  assert.throws(() => normalizeSchedule({ cronjob: { scheduled_at: '* * *' } }), /^Error: schedule.cronjob.scheduled_at: |schedule.cronjob.scheduled_at: /);
  assert.throws(() => normalizeSchedule({ cronjob: { scheduled_at: '0 0 * * *', timezone: 'UTC+2' } }), /not an IANA time zone/);
  assert.equal((normalizeSchedule({ cronjob: { scheduled_at: '0 0 * * *', timezone: 'America/New_York' } }) as { cronjob: { timezone: string } }).cronjob.timezone, 'America/New_York');
});

test('a lifecycle schedule needs one of on_start/on_stop/on_delete; never both kinds', () => {
  const s = normalizeSchedule({ on_stop: { entrypoint: '/stop' } });
  assert.deepEqual(s, { on_start: null, on_stop: { arguments: [], entrypoint: '/stop' }, on_delete: null, lifecycle_type: 'GENERIC' });
  assert.equal(jobType(s), 'LIFECYCLE');
  assert.throws(() => normalizeSchedule({}), /a cron job needs cronjob/);
  assert.throws(() => normalizeSchedule({ on_start: null, on_stop: null, on_delete: null }), /a cron job needs cronjob/);
  assert.throws(() => normalizeSchedule({ cronjob: { scheduled_at: '0 0 * * *' }, on_delete: {} }), /fills only cronjob/);
});

test('sources: exactly one of image/docker; docker needs a repository or a raw Dockerfile', () => {
  assert.deepEqual(normalizeSource({ image: { image_name: 'a', tag: 'b', registry_id: 'r' }, docker: null }), { image: { image_name: 'a', tag: 'b', registry_id: 'r' } });
  assert.throws(() => normalizeSource({}), /exactly one of image, docker/);
  assert.throws(() => normalizeSource({ image: { image_name: 'a', tag: 'b', registry_id: 'r' }, docker: { dockerfile_raw: 'FROM x' } }), /exactly one/);
  assert.throws(() => normalizeSource({ docker: { dockerfile_raw: '  ' } }), /git_repository or a dockerfile_raw/);
  const d = normalizeSource({ docker: { git_repository: { url: 'https://github.com/a/b' } } });
  assert.ok('docker' in d && d.docker.dockerfile_path === 'Dockerfile' && d.docker.git_repository?.provider === 'GITHUB');
});

test('build_settings replace whole: omitted members take the defaults', () => {
  const { settings, ephemeral } = buildSettingsToAdvanced({ cpu_max_in_milli: 1000, ephemeral_storage_in_gib: 5 });
  assert.deepEqual(settings, { 'build.timeout_max_sec': 1800, 'build.cpu_max_in_milli': 1000, 'build.ram_max_in_gib': 8, 'build.disable_buildkit_cache': false, 'build.skip_git_submodules': false });
  assert.equal(ephemeral, 5);
  assert.deepEqual(advancedToBuildSettings(defaultAdvancedSettings('job'), null), {
    timeout_max_sec: 1800, cpu_max_in_milli: 4000, ram_max_in_gib: 8, ephemeral_storage_in_gib: null, disable_buildkit_cache: false, skip_git_submodules: false,
  });
});
