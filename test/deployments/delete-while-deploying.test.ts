// Deleting a service, or its environment, while a worker moves its deployment on: the worker locks
// the deployment, then the service (deployments.lifecycle.ts); the deletes lock them in the same
// order, so neither waits for the other in a circle (a deadlock answered a DELETE with 409 in CI).
// PostgreSQL only:
// PGlite is one session, where nothing runs concurrently.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

describe('deleting a service during its deployment', { skip: !process.env.DATABASE_URL && 'PostgreSQL only (PGlite is one session)' }, () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(() => t.close());

  /** deploys an application of `environmentId`, then, in a session that has taken the deployment's
   * row as `advance` does, starts `DELETE <path>` and takes the service's row 300 ms later */
  async function deleteDuringAdvance(environmentId: string, path: (appId: string) => string) {
    const app = await t.request('POST', `/environment/${environmentId}/application`, { token: org.token, body: { name: 'doomed', git_repository: { url: 'https://github.com/acme/a' } } });
    assert.equal(app.status, 201, app.raw);
    const deploy = await t.request('POST', `/application/${app.body.id}/deploy`, { token: org.token });
    assert.equal(deploy.status, 202, deploy.raw);
    let deleting: Promise<{ status: number; raw: string }> | undefined;
    await t.ctx.db.transaction(async (tx) => {
      await tx.query('update deployments set updated_at = now() where id = $1', [deploy.body.id]);
      deleting = t.request('DELETE', path(app.body.id), { token: org.token });
      await new Promise((r) => setTimeout(r, 300));
      await tx.query('update services set updated_at = now() where id = $1', [app.body.id]);
    });
    return { appId: app.body.id as string, deleted: await deleting! };
  }

  test('a worker holding the deployment, then taking the service, and the DELETE both finish', async () => {
    const { appId, deleted } = await deleteDuringAdvance(env.id, (id) => `/application/${id}`);
    assert.equal(deleted.status, 204, deleted.raw);
    assert.equal((await t.request('GET', `/application/${appId}`, { token: org.token })).status, 404);
  });

  test('the same with the whole environment deleted', async () => {
    const doomed = await seedEnvironment(t, org, { clusterId: env.clusterId });
    const { deleted } = await deleteDuringAdvance(doomed.id, () => `/environment/${doomed.id}`);
    assert.equal(deleted.status, 204, deleted.raw);
    assert.equal((await t.request('GET', `/environment/${doomed.id}`, { token: org.token })).status, 404);
  });
});
