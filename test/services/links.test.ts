// GET /{application,container}/{id}/link on the simulated engine: the addresses a real engine
// would serve, and the reason they do not answer here; a service without a public port has none.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedEnvironment } from '../support/factories.ts';
import { seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

describe('links on the simulated engine', () => {
  let t: TestApp;
  let org: SeededOrganization;
  before(async () => { t = await startTestApp(); org = await seedOrganization(t); });
  after(() => t.close());

  test('addresses with the reason they do not answer; none and no reason without a public port', async () => {
    const env = await seedEnvironment(t, org);
    const app = await t.request('POST', `/environment/${env.id}/application`, {
      token: org.token, body: { name: 'web', git_repository: { url: 'https://github.com/a/b' }, ports: [{ internal_port: 3000, publicly_accessible: true }] },
    });
    assert.equal(app.status, 201, app.raw);
    const links = await t.request('GET', `/application/${app.body.id}/link`, { token: org.token });
    assert.equal(links.status, 200);
    assert.ok(links.body.results.length > 0);
    assert.match(links.body.public_urls_unavailable_reason, /simulated engine runs nothing/);
    const quiet = await t.request('POST', `/environment/${env.id}/application`, {
      token: org.token, body: { name: 'worker', git_repository: { url: 'https://github.com/a/b' }, ports: [{ internal_port: 3000, publicly_accessible: false }] },
    });
    const none = await t.request('GET', `/application/${quiet.body.id}/link`, { token: org.token });
    assert.deepEqual(none.body, { results: [], public_urls_unavailable_reason: null });
  });
});
