// `berth settings <service>`: a service's advanced settings with their values and whether the
// server's engine applies each (the simulated engine applies none, and says so); --json carries
// the same; a database has none (usage error).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { advancedSettingKeys } from '../../src/modules/services/advanced-settings/index.ts';
import { berth, seedShop, startCliServer, type CliServer } from './support.ts';

describe('berth settings', () => {
  let s: CliServer;
  let shop: Awaited<ReturnType<typeof seedShop>>;
  let env: Record<string, string>;
  let target: string[];

  before(async () => {
    s = await startCliServer();
    shop = await seedShop(s, { project: `settings-${Date.now()}`, environment: 'staging' }, ['web']);
    const put = await s.t.request('PUT', `/application/${shop.ids.web}/advancedSettings`, { token: s.org.token, body: { 'network.ingress.whitelist_source_range': '10.0.0.0/8' } });
    assert.equal(put.status, 201, put.raw);
    await s.t.request('POST', `/environment/${shop.environmentId}/database`, { token: s.org.token, body: { name: 'cache', type: 'REDIS', version: '7', mode: 'CONTAINER' } });
    env = { BERTH_URL: s.url, BERTH_TOKEN: s.org.token };
    target = ['--project', shop.projectId, '--environment', shop.environmentId];
  });
  after(async () => { await s.close(); });

  test('every setting with its value and whether the engine applies it', async () => {
    const r = await berth(s.newConfigDir(), ['settings', 'web', ...target], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /SETTING\s+VALUE\s+APPLIED BY THE SIMULATED ENGINE/);
    assert.match(r.stdout, /network\.ingress\.whitelist_source_range\s+10\.0\.0\.0\/8\s+no: the simulated engine runs nothing/);
    for (const key of advancedSettingKeys('application')) assert.ok(r.stdout.includes(key), key);
  });

  test('--json: the engine and one row per key', async () => {
    const r = await berth(s.newConfigDir(), ['settings', 'web', '--json', ...target], { env });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.engine, 'simulated');
    assert.deepEqual(out.settings.map((x: { key: string }) => x.key), [...advancedSettingKeys('application')]);
    assert.deepEqual(out.settings.find((x: { key: string }) => x.key === 'network.ingress.whitelist_source_range'),
      { key: 'network.ingress.whitelist_source_range', value: '10.0.0.0/8', applied: false, reason: out.settings[0].reason });
  });

  test('a database has no advanced settings: a usage error naming it', async () => {
    const r = await berth(s.newConfigDir(), ['settings', 'cache', ...target], { env });
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /cache is a database: databases have no advanced settings/);
  });
});
