// Which advanced settings the running engine applies (issue 30, decision 0336): the table has a
// row for every key of the catalogue, docs/advanced-settings.md is the table's (npm run
// docs:settings), the advanced-settings answers name the keys the engine does not apply in their
// X-Berth-Settings-Not-Applied header, and …/advancedSettings/engineSupport says why, to readers of
// the service only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SETTINGS_DOC, settingsDoc } from '../../scripts/settings-doc.ts';
import { ADVANCED_SETTINGS_CATALOGUE, advancedSettingKeys, type AnyAdvancedSettingKey } from '../../src/modules/services/advanced-settings/index.ts';
import { notAppliedSettings, settingSupport } from '../../src/modules/services/advanced-settings/engine-support.ts';
import { seedEnvironment } from '../support/factories.ts';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

const KEYS = Object.keys(ADVANCED_SETTINGS_CATALOGUE) as AnyAdvancedSettingKey[];

test('docs/advanced-settings.md is the engine support table (run npm run docs:settings when this fails)', () => {
  assert.equal(readFileSync(SETTINGS_DOC, 'utf8'), settingsDoc());
  for (const key of KEYS) assert.ok(settingsDoc().includes(`| \`${key}\` |`), key);
});

test('every key says what the docker engine does with it: applied, or a reason; the simulated engine applies none', () => {
  for (const key of KEYS) {
    const docker = settingSupport('docker', key);
    assert.ok(docker === true || (typeof docker === 'string' && docker.length > 10), key);
    assert.match(String(settingSupport('simulated', key)), /simulated engine runs nothing/);
  }
  // Kubernetes-only keys are never applied by the docker engine
  for (const key of ['deployment.affinity.node.required', 'deployment.antiaffinity.pod', 'security.service_account_name'] as const) {
    assert.match(String(settingSupport('docker', key)), /Kubernetes/);
  }
  assert.deepEqual(notAppliedSettings('simulated', advancedSettingKeys('job')).map((n) => n.key), [...advancedSettingKeys('job')]);
});

test('the swarm engine applies what the docker engine does, except what Swarm has no place for: hooks, surge percentages, autoscaling, job history', () => {
  const swarmOnlyGaps = new Set(['deployment.lifecycle.post_start_exec_command', 'deployment.lifecycle.pre_stop_exec_command',
    'deployment.update_strategy.rolling_update.max_unavailable_percent', 'deployment.update_strategy.rolling_update.max_surge_percent',
    'hpa.cpu.average_utilization_percent', 'hpa.memory.average_utilization_percent', 'job.delete_ttl_seconds_after_finished',
    'cronjob.failed_jobs_history_limit', 'cronjob.success_jobs_history_limit', 'cronjob.concurrency_policy',
    'deployment.affinity.node.required', 'deployment.antiaffinity.pod', 'deployment.topology_spread.zone']);
  for (const key of KEYS) {
    const swarm = settingSupport('swarm', key);
    if (swarmOnlyGaps.has(key)) assert.ok(typeof swarm === 'string' && swarm.length > 10, key);
    else assert.deepEqual(swarm, settingSupport('docker', key), key);
  }
  assert.equal(settingSupport('swarm', 'deployment.update_strategy.type'), true);
  assert.equal(settingSupport('swarm', 'network.ingress.proxy_body_size_mb'), true);
});

describe('the engine support of a service\'s advanced settings over HTTP (simulated engine)', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let appId: string;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    const env = await seedEnvironment(t, org);
    appId = (await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: { name: 'app', git_repository: { url: 'https://github.com/a/b' } } })).body.id;
  });
  after(() => t.close());

  test('GET and PUT advancedSettings name the keys the engine does not apply; the object itself is the seed\'s', async () => {
    const got = await t.request('GET', `/application/${appId}/advancedSettings`, { token: await org.tokenFor('VIEWER') });
    assert.equal(got.status, 200);
    assert.deepEqual(String(got.headers['x-berth-settings-not-applied']).split(', '), [...advancedSettingKeys('application')]);
    assert.equal(got.body['x-berth-settings-not-applied'], undefined);
    const put = await t.request('PUT', `/application/${appId}/advancedSettings`, { token: org.token, body: { 'security.read_only_root_filesystem': true } });
    assert.equal(put.status, 201);
    assert.equal(put.headers['x-berth-settings-not-applied'], got.headers['x-berth-settings-not-applied']);
  });

  test('engineSupport: one row per key of the kind with the reason; 401, 403 for another organization, 404', async () => {
    const r = await t.request('GET', `/application/${appId}/advancedSettings/engineSupport`, { token: await org.tokenFor('VIEWER') });
    assert.equal(r.status, 200, r.raw);
    assert.equal(r.body.engine, 'simulated');
    assert.deepEqual(r.body.results.map((x: { key: string }) => x.key), [...advancedSettingKeys('application')]);
    assert.ok(r.body.results.every((x: { applied: boolean; reason: string }) => !x.applied && /simulated engine/.test(x.reason)));
    expectErrorBody(await t.request('GET', `/application/${appId}/advancedSettings/engineSupport`), 401);
    const other = await seedOrganization(t);
    expectErrorBody(await t.request('GET', `/application/${appId}/advancedSettings/engineSupport`, { token: other.token }), 403);
    expectErrorBody(await t.request('GET', '/application/00000000-0000-4000-8000-000000000000/advancedSettings/engineSupport', { token: org.token }), 404);
    expectErrorBody(await t.request('GET', `/container/${appId}/advancedSettings/engineSupport`, { token: org.token }), 404);
  });
});
