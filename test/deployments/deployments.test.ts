// Deployments through the API on the simulated engine (50 ms steps): the record of an action,
// the state machine and the service status columns, one deployment at a time per environment,
// failures by marker, cancel, environment actions, histories, logs, and who may act.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { startWebhookWorkers } from '../../src/workers/handlers.ts';
import { seedEnvironment, seedService } from '../support/factories.ts';
import { eventually, expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { serviceExamples } from '../../src/http/examples/services.ts';

const GIT_APP = { git_repository: { url: 'https://github.com/acme/web.git', branch: 'main' }, build_mode: 'DOCKER', ports: [{ internal_port: 8080, publicly_accessible: true }] };

describe('deployments', () => {
  let t: TestApp;
  let org: SeededOrganization;
  before(async () => {
    t = await startTestApp({ config: { webhookAllowPrivateTargets: true }, simulated: { stepMs: 50 } });
    await startDeploymentWorkers(t.ctx);
    await startWebhookWorkers(t.ctx);
    org = await seedOrganization(t);
  });
  after(async () => { await t.close(); });

  const get = (id: string) => t.request('GET', `/deployment/${id}`, { token: org.token });
  const settled = (id: string) => eventually(async () => {
    const r = await get(id);
    return r.body.finished ? r.body : null;
  });
  const service = async (id: string) => (await t.ctx.db.query<{ state: string; deployment_status: string; last_deployment_at: Date | null }>(
    'select state, deployment_status, last_deployment_at from services where id = $1', [id]))[0]!;

  test('deploy answers 202 QUEUED, walks BUILDING → DEPLOYING → DEPLOYED and moves the service status', async () => {
    const env = await seedEnvironment(t, org);
    const app = await seedService(t, env, 'APPLICATION', GIT_APP);
    assert.equal((await service(app)).deployment_status, 'NEVER_DEPLOYED');
    const r = await t.request('POST', `/application/${app}/deploy`, { token: org.token, body: serviceExamples.deployApplication });
    assert.equal(r.status, 202);
    assert.equal(r.body.status, 'QUEUED');
    assert.equal(r.body.application_id, app);
    assert.equal(r.body.git_commit_id, serviceExamples.deployApplication.git_commit_id);
    assert.match(r.body.created_at, /Z$/);
    // this process's worker is woken at the request's commit: it may have started already
    assert.ok(['DEPLOYMENT_QUEUED', 'BUILDING'].includes((await service(app)).state));
    const seen = new Set<string>();
    const done = await eventually(async () => {
      const d = (await get(r.body.id)).body;
      seen.add(d.status);
      return d.finished ? d : null;
    }, 10_000, 10);
    assert.equal(done.status, 'DEPLOYED');
    assert.ok(seen.has('BUILDING') || seen.has('DEPLOYING'), [...seen].join());
    const s = await service(app);
    assert.equal(s.state, 'RUNNING');
    assert.equal(s.deployment_status, 'UP_TO_DATE');
    assert.ok(s.last_deployment_at);
    const logs = await t.request('GET', `/deployment/${r.body.id}/log`, { token: org.token, headers: {} });
    assert.equal(logs.status, 200);
    assert.ok(logs.body.results.some((l: { kind: string; message: string }) => l.kind === 'BUILD' && l.message.includes('Cloning')));
    const appLog = await t.request('GET', `/application/${app}/log?tail=2`, { token: org.token });
    assert.equal(appLog.body.results.length, 2);
    assert.ok(appLog.body.results.every((l: { created_at: string; message: string }) => l.created_at && l.message));
  });

  test('a database deploys without a body; stop, restart and uninstall move state and deployment status', async () => {
    const env = await seedEnvironment(t, org);
    const db = await seedService(t, env, 'DATABASE', { type: 'POSTGRESQL', version: '16', mode: 'CONTAINER' });
    const dep = await t.request('POST', `/database/${db}/deploy`, { token: org.token });
    assert.equal(dep.status, 202, dep.raw);
    assert.equal(dep.body.database_id, db);
    assert.equal((await settled(dep.body.id)).status, 'DEPLOYED');
    const stop = await t.request('POST', `/database/${db}/stop`, { token: org.token });
    assert.equal((await settled(stop.body.id)).status, 'STOPPED');
    assert.equal((await service(db)).state, 'STOPPED');
    const restart = await t.request('POST', `/database/${db}/restart-service`, { token: org.token });
    assert.equal((await settled(restart.body.id)).status, 'RESTARTED');
    assert.equal((await service(db)).state, 'RUNNING');
    const un = await t.request('POST', `/database/${db}/uninstall`, { token: org.token });
    assert.equal((await settled(un.body.id)).status, 'DELETED');
    assert.deepEqual({ ...(await service(db)), last_deployment_at: null }, { state: 'STOPPED', deployment_status: 'NEVER_DEPLOYED', last_deployment_at: null });
    const history = await t.request('GET', `/database/${db}/deploymentHistoryV2`, { token: org.token });
    assert.deepEqual(history.body.results.map((d: { action: string }) => d.action), ['UNINSTALL', 'RESTART', 'STOP', 'DEPLOY']);
    assert.equal(history.body.pagination.page_size, 20);
  });

  test('failure markers: fail-build gives BUILD_ERROR, fail-deploy DEPLOYMENT_ERROR, service state ERROR', async () => {
    const env = await seedEnvironment(t, org);
    const a = await seedService(t, env, 'APPLICATION', GIT_APP, 'web-fail-build');
    const c = await seedService(t, env, 'CONTAINER', { image_name: 'nginx', tag: 'fail-deploy' });
    const ra = await t.request('POST', `/application/${a}/deploy`, { token: org.token, body: {} });
    const rc = await t.request('POST', `/container/${c}/deploy`, { token: org.token, body: serviceExamples.deployContainer });
    assert.equal(rc.body.image_tag, serviceExamples.deployContainer.image_tag);
    const da = await settled(ra.body.id);
    assert.equal(da.status, 'BUILD_ERROR');
    assert.match(da.message, /fail-build/);
    assert.equal((await settled(rc.body.id)).status, 'DEPLOYMENT_ERROR');
    assert.equal((await service(a)).state, 'ERROR');
    assert.equal((await service(c)).state, 'ERROR');
    assert.equal((await service(c)).deployment_status, 'NEVER_DEPLOYED');
    const v = await seedService(t, env, 'CONTAINER', { image_name: 'nginx' });
    await t.ctx.db.query(
      `insert into variables (organization_id, project_id, environment_id, service_id, parent_id, scope, key, variable_type, value)
       values ($1, $2, $3, $4, $4, 'CONTAINER', 'BERTH_SIMULATE_FAILURE', 'VALUE', 'deploy')`, [env.organizationId, env.projectId, env.id, v]);
    const rv = await t.request('POST', `/container/${v}/deploy`, { token: org.token, body: {} });
    assert.equal((await settled(rv.body.id)).status, 'DEPLOYMENT_ERROR');
  });

  test('two deploys in one environment run one after the other, in order; the queue lists them', async () => {
    const env = await seedEnvironment(t, org);
    const a = await seedService(t, env, 'CONTAINER', { image_name: 'nginx' });
    const b = await seedService(t, env, 'CONTAINER', { image_name: 'redis' });
    const ra = await t.request('POST', `/container/${a}/deploy`, { token: org.token, body: {} });
    const rb = await t.request('POST', `/container/${b}/deploy`, { token: org.token, body: {} });
    const queue = await t.request('GET', `/environment/${env.id}/deploymentQueue`, { token: org.token });
    assert.deepEqual(queue.body.results.map((d: { id: string }) => d.id), [ra.body.id, rb.body.id]);
    const da = await settled(ra.body.id);
    const db = await settled(rb.body.id);
    assert.equal(da.status, 'DEPLOYED');
    assert.equal(db.status, 'DEPLOYED');
    assert.ok(Date.parse(db.started_at) >= Date.parse(da.finished_at), `${db.started_at} < ${da.finished_at}`);
    assert.equal((await t.request('GET', `/environment/${env.id}/deploymentQueue`, { token: org.token })).body.results.length, 0);
  });

  test('cancel: a queued deployment is CANCELED at once; a finished one is 409', async () => {
    const env = await seedEnvironment(t, org);
    const a = await seedService(t, env, 'CONTAINER', { image_name: 'nginx' });
    const b = await seedService(t, env, 'CONTAINER', { image_name: 'redis' });
    const ra = await t.request('POST', `/container/${a}/deploy`, { token: org.token, body: {} });
    const rb = await t.request('POST', `/container/${b}/deploy`, { token: org.token, body: {} });
    const c = await t.request('POST', `/deploymentQueue/${rb.body.id}/cancelDeployment`, { token: org.token, body: {} });
    assert.equal(c.status, 202, c.raw);
    assert.equal(c.body.status, 'CANCELED');
    assert.equal((await service(b)).state, 'STOPPED');
    assert.equal((await settled(ra.body.id)).status, 'DEPLOYED');
    const again = await t.request('POST', `/deployment/${ra.body.id}/cancel`, { token: org.token, body: {} });
    assert.match(expectErrorBody(again, 409).message, /already finished/);
  });

  test('a running deployment is canceled by the environment cancelDeployment; nothing left is 409', async () => {
    t.engine.configure({ stepMs: 300 });
    try {
      const env = await seedEnvironment(t, org);
      const a = await seedService(t, env, 'APPLICATION', GIT_APP);
      const r = await t.request('POST', `/application/${a}/deploy`, { token: org.token, body: {} });
      await eventually(async () => (await get(r.body.id)).body.status !== 'QUEUED', 5000, 20);
      const c = await t.request('POST', `/environment/${env.id}/cancelDeployment`, { token: org.token, body: { force_cancel: true } });
      assert.equal(c.status, 202, c.raw);
      assert.equal((await settled(r.body.id)).status, 'CANCELED');
      expectErrorBody(await t.request('POST', `/environment/${env.id}/cancelDeployment`, { token: org.token, body: {} }), 409);
    } finally {
      t.engine.configure({ stepMs: 50 });
    }
  });

  test('environment deploy queues every service; stop stops them', async () => {
    const env = await seedEnvironment(t, org);
    const a = await seedService(t, env, 'CONTAINER', { image_name: 'nginx' });
    const j = await seedService(t, env, 'JOB', { image_name: 'busybox', schedule: { cronjob: { scheduled_at: '0 * * * *' } } });
    const r = await t.request('POST', `/environment/${env.id}/deploy`, { token: org.token });
    assert.equal(r.status, 202, r.raw);
    assert.equal(r.body.deployments.length, 2);
    assert.deepEqual(r.body.deployments.map((d: { service_id: string }) => d.service_id).sort(), [a, j].sort());
    for (const d of r.body.deployments) assert.equal((await settled(d.id)).status, 'DEPLOYED');
    const s = await t.request('POST', `/environment/${env.id}/stop`, { token: org.token });
    for (const d of s.body.deployments) assert.equal((await settled(d.id)).status, 'STOPPED');
    assert.equal((await service(j)).state, 'STOPPED');
  });

  test('an action on a service of an environment being deleted is 409', async () => {
    const env = await seedEnvironment(t, org);
    const a = await seedService(t, env, 'APPLICATION', GIT_APP);
    await t.ctx.db.query('update environments set deleting = true where id = $1', [env.id]);
    assert.match(expectErrorBody(await t.request('POST', `/application/${a}/deploy`, { token: org.token, body: {} }), 409).message, /being deleted/);
    expectErrorBody(await t.request('POST', `/environment/${env.id}/deploy`, { token: org.token }), 409);
  });

  test('who may act: VIEWER 403, another organization 403, no token 401, unknown or other-type id 404; jobs have no restart', async () => {
    const env = await seedEnvironment(t, org);
    const a = await seedService(t, env, 'APPLICATION', GIT_APP);
    const viewer = await org.tokenFor('VIEWER');
    expectErrorBody(await t.request('POST', `/application/${a}/deploy`, { token: viewer, body: {} }), 403);
    assert.equal((await t.request('GET', `/application/${a}/deploymentHistoryV2`, { token: viewer })).status, 200);
    const devops = await org.tokenFor('DEVOPS');
    const ok = await t.request('POST', `/application/${a}/deploy`, { token: devops, body: {} });
    assert.equal(ok.status, 202);
    await settled(ok.body.id);
    const other = await seedOrganization(t);
    expectErrorBody(await t.request('POST', `/application/${a}/deploy`, { token: other.token, body: {} }), 403);
    expectErrorBody(await t.request('GET', `/deployment/${ok.body.id}`, { token: other.token }), 403);
    expectErrorBody(await t.request('POST', `/application/${a}/deploy`, { body: {} }), 401);
    assert.equal(expectErrorBody(await t.request('POST', `/container/${a}/deploy`, { token: org.token, body: {} }), 404).message, 'Container not found');
    expectErrorBody(await t.request('GET', '/deployment/00000000-0000-4000-8000-000000000000', { token: org.token }), 404);
    const job = await seedService(t, env, 'JOB', { image_name: 'busybox' });
    assert.equal((await t.request('POST', `/job/${job}/restart-service`, { token: org.token, body: {} })).status, 404);
  });

  test('logs: tail bounds are 400; deployment logs page and tail', async () => {
    const env = await seedEnvironment(t, org);
    const a = await seedService(t, env, 'APPLICATION', GIT_APP);
    for (const tail of ['0', '10001', 'x']) {
      expectErrorBody(await t.request('GET', `/application/${a}/log?tail=${tail}`, { token: org.token }), 400);
    }
    assert.deepEqual((await t.request('GET', `/application/${a}/log`, { token: org.token })).body.results, []);
    const r = await t.request('POST', `/application/${a}/deploy`, { token: org.token, body: {} });
    await settled(r.body.id);
    const all = await t.request('GET', `/deployment/${r.body.id}/log?page_size=100`, { token: org.token });
    assert.ok(all.body.results.length >= 5);
    const tail = await t.request('GET', `/deployment/${r.body.id}/log?tail=2`, { token: org.token });
    assert.deepEqual(tail.body.results.map((l: { id: string }) => l.id), all.body.results.slice(-2).map((l: { id: string }) => l.id));
  });

  test('deploymentHistoryV2 pages (20 by default, pageSize alias)', async () => {
    const env = await seedEnvironment(t, org);
    const c = await seedService(t, env, 'CONTAINER', { image_name: 'nginx' });
    await t.ctx.db.query(
      `insert into deployments (organization_id, project_id, environment_id, service_id, service_type, action, status, finished)
       select $1, $2, $3, $4, 'CONTAINER', 'DEPLOY', 'DEPLOYED', true from generate_series(1, 23)`,
      [env.organizationId, env.projectId, env.id, c]);
    const first = await t.request('GET', `/container/${c}/deploymentHistoryV2`, { token: org.token });
    assert.equal(first.body.results.length, 20);
    assert.equal(first.body.pagination.total_count, 23);
    const alias = await t.request('GET', `/container/${c}/deploymentHistoryV2?pageSize=5&page=5`, { token: org.token });
    assert.equal(alias.body.results.length, 3);
  });
});
