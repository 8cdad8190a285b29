// Deleting an environment asks the engine to uninstall what was deployed there (and only that).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { startEngineUninstallWorker } from '../../src/workers/handlers.ts';
import { seedEnvironment, seedService } from '../support/factories.ts';
import { eventually, seedOrganization, startTestApp, type TestApp } from '../support/harness.ts';

describe('engine uninstall when an environment is deleted', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ simulated: { stepMs: 30 } });
    await startDeploymentWorkers(t.ctx);
    await startEngineUninstallWorker(t.ctx);
  });
  after(async () => {
    await t.close();
  });

  const uninstallJobs = (serviceId: string) => t.ctx.db.query<{ state: string }>(
    `select state::text as state from pgboss.job where name = 'engine.uninstall' and data::text like $1`, [`%${serviceId}%`]);

  test('deployed services are uninstalled through the engine; never-deployed ones are not', async () => {
    const org = await seedOrganization(t);
    const env = await seedEnvironment(t, org);
    const deployed = await seedService(t, env, 'APPLICATION');
    const idle = await seedService(t, env, 'APPLICATION');
    const d = await t.request('POST', `/application/${deployed}/deploy`, { token: org.token, body: {} });
    assert.equal(d.status, 202);
    await eventually(async () => (await t.request('GET', `/deployment/${d.body.id}`, { token: org.token })).body.status === 'DEPLOYED', 20_000, 100);
    assert.equal((await t.request('DELETE', `/environment/${env.id}`, { token: org.token })).status, 204);
    await eventually(async () => (await uninstallJobs(deployed))[0]?.state === 'completed', 20_000, 200);
    assert.deepEqual(await uninstallJobs(idle), []);
  });
});
