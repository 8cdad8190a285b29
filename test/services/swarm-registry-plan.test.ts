// SWARM_REGISTRY and the organization's container registries (issue 29, decision 0343): a service
// built from git carries, in its runtime plan, the credentials of the organization's container
// registry at SWARM_REGISTRY's address (berth pushes with them, Swarm's nodes pull with them);
// none when the organization has no registry there, when another organization has, or when
// SWARM_REGISTRY is unset. An image from a registry keeps its own registry's credentials.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRuntimePlan } from '../../src/modules/deployments/runtime-plan.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

describe('SWARM_REGISTRY credentials in the runtime plan', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  const ADDRESS = 'registry.internal:5000';
  const pushAuth = async (id: string, swarmRegistry: string | null = ADDRESS) => {
    const plan = await buildRuntimePlan({ ...t.ctx, config: { swarmRegistry } }, id);
    return plan.source?.kind === 'git' ? plan.source.pushAuth ?? null : 'not built';
  };
  const registry = (o: SeededOrganization, name: string, url: string, username: string) => t.request('POST', `/organization/${o.id}/containerRegistry`, {
    token: o.token, body: { name, kind: 'GENERIC_CR', url, config: { username, password: `${username}-pw` } },
  });

  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(async () => { await t.close(); });

  test('the organization\'s registry at that address gives the credentials; path and scheme do not matter; unset or elsewhere gives none', async () => {
    const app = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: { name: 'built', git_repository: { url: 'https://github.com/acme/site.git', branch: 'main' } } });
    const job = await t.request('POST', `/environment/${env.id}/job`, { token: org.token, body: { name: 'built-job', source: { docker: { git_repository: { url: 'https://github.com/acme/site.git', branch: 'main' } } }, schedule: { on_start: {} } } });
    assert.equal(app.status, 201, app.raw);
    assert.equal(job.status, 201, job.raw);
    assert.equal(await pushAuth(app.body.id), null, 'no registry of the organization there yet');
    const other = await seedOrganization(t);
    assert.equal((await registry(other, 'theirs', `https://${ADDRESS}`, 'other-org')).status, 201);
    assert.equal(await pushAuth(app.body.id), null, 'another organization\'s registry at the address is not used');
    assert.equal((await registry(org, 'elsewhere', 'https://registry.internal:5001', 'wrong-port')).status, 201);
    assert.equal((await registry(org, 'cluster', `https://${ADDRESS}`, 'pusher')).status, 201);
    const expected = { username: 'pusher', password: 'pusher-pw', serveraddress: ADDRESS };
    for (const id of [app.body.id, job.body.id]) assert.deepEqual(await pushAuth(id), expected);
    assert.deepEqual(await pushAuth(app.body.id, `${ADDRESS}/team`), expected, 'a path after the address');
    assert.equal(await pushAuth(app.body.id, null), null, 'SWARM_REGISTRY unset');
    assert.equal(await pushAuth(app.body.id, 'registry.internal'), null, 'the port is part of the address');
  });

  test('an image from a registry is not built: it keeps its own registry\'s credentials', async () => {
    const own = await registry(org, 'images', 'https://images.internal', 'puller');
    const c = await t.request('POST', `/environment/${env.id}/container`, { token: org.token, body: { name: 'prebuilt', registry_id: own.body.id, image_name: 'team/web', tag: '1' } });
    assert.equal(c.status, 201, c.raw);
    assert.equal(await pushAuth(c.body.id), 'not built');
    const plan = await buildRuntimePlan({ ...t.ctx, config: { swarmRegistry: ADDRESS } }, c.body.id);
    assert.deepEqual(plan.source?.kind === 'image' && plan.source.auth, { username: 'puller', password: 'puller-pw', serveraddress: 'images.internal' });
  });
});
