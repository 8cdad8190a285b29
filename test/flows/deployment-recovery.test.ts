// Deployments survive a dead worker: a deployment left running by a worker that died (its
// heartbeat stale) is resumed from its recorded step by the sweep, or failed explicitly once its
// recoveries are spent; a pg-boss retry (same task id) resumes it too. With DATABASE_URL, a real
// child process running a deployment is killed with SIGKILL mid-step and the deployment recovers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as repo from '../../src/modules/deployments/deployments.repo.ts';
import { runDeployment, sweepAbandonedDeployments } from '../../src/workers/deployments.ts';
import { startDeploymentWorkers } from '../../src/workers/handlers.ts';
import { testDatabase } from '../support/db.ts';
import { seedEnvironment, seedService, type SeededEnvironment } from '../support/factories.ts';
import { eventually, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

describe('deployment recovery after a worker dies', () => {
  let t: TestApp;
  let org: SeededOrganization;
  before(async () => {
    t = await startTestApp({ simulated: { stepMs: 50 } });
    await startDeploymentWorkers(t.ctx);
    org = await seedOrganization(t);
  });
  after(async () => {
    await t.close();
  });

  /** a deployment row as a dead worker leaves it: DEPLOYING, no task, heartbeat 10 minutes old */
  async function abandoned(env: SeededEnvironment, serviceId: string, recoveries = 0): Promise<string> {
    const rows = await t.ctx.db.query<{ id: string }>(
      `insert into deployments (organization_id, project_id, environment_id, service_id, service_type, action, status,
         started_at, heartbeat_at, runner_task_id, recoveries, previous_state)
       values ($1, $2, $3, $4, 'APPLICATION', 'DEPLOY', 'DEPLOYING', now() - interval '11 minutes', now() - interval '10 minutes', 'dead-task', $5, 'STOPPED')
       returning id`, [env.organizationId, env.projectId, env.id, serviceId, recoveries]);
    await t.ctx.db.query(`update services set state = 'DEPLOYING' where id = $1`, [serviceId]);
    return rows[0]!.id;
  }
  const status = async (id: string) => (await repo.findDeployment(t.ctx.db, id))!;

  test('the sweep resumes an abandoned deployment from its recorded step (no build again)', async () => {
    const env = await seedEnvironment(t, org);
    const app = await seedService(t, env, 'APPLICATION', { git_repository: { url: 'https://example.com/r.git' } });
    const id = await abandoned(env, app);
    const result = await sweepAbandonedDeployments(t.ctx);
    assert.ok(result.resumed >= 1);
    const done = await eventually(async () => { const d = await status(id); return d.finished ? d : null; });
    assert.equal(done.status, 'DEPLOYED');
    assert.ok(done.recoveries >= 1, 'counted as a recovery (the minute sweep may have counted one too)');
    const logs = await repo.deploymentLogs(t.ctx.db, id, null, 0, false);
    assert.ok(logs.items.some((l) => l.kind === 'DEPLOY'));
    assert.ok(!logs.items.some((l) => l.kind === 'BUILD'), 'resumed at DEPLOYING, not rebuilt');
    const svc = await t.ctx.db.query<{ state: string; deployment_status: string }>('select state, deployment_status from services where id = $1', [app]);
    assert.deepEqual(svc[0], { state: 'RUNNING', deployment_status: 'UP_TO_DATE' });
  });

  test('after its recoveries are spent, an abandoned deployment is failed explicitly', async () => {
    const env = await seedEnvironment(t, org);
    const app = await seedService(t, env, 'APPLICATION', {});
    const id = await abandoned(env, app, t.ctx.services.deploymentRunner.settings.maxRecoveries);
    await sweepAbandonedDeployments(t.ctx);
    const d = await status(id);
    assert.equal(d.finished, true);
    assert.equal(d.status, 'DEPLOYMENT_ERROR');
    assert.match(d.message!, /stopped responding/);
    const svc = await t.ctx.db.query<{ state: string }>('select state from services where id = $1', [app]);
    assert.equal(svc[0]!.state, 'ERROR');
  });

  test('a retry of the same task (pg-boss expiry) resumes it; another live runner is left alone', async () => {
    const env = await seedEnvironment(t, org);
    const app = await seedService(t, env, 'APPLICATION', {});
    const id = await abandoned(env, app);
    await t.ctx.db.query('update deployments set heartbeat_at = now() where id = $1', [id]);
    await runDeployment(t.ctx, id, { id: 'another-task' });
    assert.equal((await status(id)).status, 'DEPLOYING', 'a live runner (fresh heartbeat) is not taken over');
    await runDeployment(t.ctx, id, { id: 'dead-task' });
    assert.equal((await status(id)).status, 'DEPLOYED');
  });

  test('a step silent for longer than the stale period is not taken for abandoned: its worker beats while it runs', async () => {
    const env = await seedEnvironment(t, org);
    const app = await seedService(t, env, 'APPLICATION', {});
    const id = await t.ctx.db.transaction((tx) => repo.insertDeployment(tx, {
      organizationId: env.organizationId, projectId: env.projectId, environmentId: env.id, serviceId: app, serviceType: 'APPLICATION',
      action: 'DEPLOY', gitCommitId: null, imageTag: null, origin: 'API', triggeredBy: null, metadata: {}, previousState: 'STOPPED',
    }));
    t.ctx.services.deploymentRunner.configure({ staleSeconds: 2 });
    t.engine.configure({ stepMs: 3500 });
    try {
      const running = runDeployment(t.ctx, id, { id: 'live-task' });
      await eventually(async () => (await status(id)).status === 'DEPLOYING', 5000, 20);
      // no log line for 3.5 s (the simulated step), 2.6 s of it gone: older than the stale period without a beat
      await new Promise((r) => setTimeout(r, 2600));
      const lines = await repo.deploymentLogs(t.ctx.db, id, null, 0, false);
      const lastLine = Math.max(...lines.items.map((l) => Date.parse(String(l.created_at))));
      assert.ok(Date.now() - lastLine > 2000, 'the step has been silent longer than the stale period');
      await sweepAbandonedDeployments(t.ctx);
      const d = await status(id);
      assert.equal(d.recoveries, 0, 'not resumed by the sweep');
      assert.equal(d.runner_task_id, 'live-task');
      await running;
      assert.equal((await status(id)).status, 'DEPLOYED');
    } finally {
      t.ctx.services.deploymentRunner.configure({ staleSeconds: 60 });
      t.engine.configure({ stepMs: 50 });
    }
  });

  test('kill -9 of a real worker process mid-deployment (PostgreSQL only)', async (ctx) => {
    const { url } = await testDatabase();
    if (!url) return ctx.skip('needs DATABASE_URL: PGlite is single-process');
    const env = await seedEnvironment(t, org);
    const app = await seedService(t, env, 'APPLICATION', {});
    const id = await t.ctx.db.transaction((tx) => repo.insertDeployment(tx, {
      organizationId: env.organizationId, projectId: env.projectId, environmentId: env.id, serviceId: app, serviceType: 'APPLICATION',
      action: 'DEPLOY', gitCommitId: null, imageTag: null, origin: 'API', triggeredBy: null, metadata: {}, previousState: 'STOPPED',
    }));
    const child = spawn(process.execPath, [fileURLToPath(new URL('./support/deployment-child.ts', import.meta.url))], {
      env: { ...process.env, CHILD_DATABASE_URL: url, DEPLOYMENT_ID: id }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await eventually(async () => { const d = await status(id); return d.status === 'DEPLOYING' && d.runner_task_id === 'child-task'; }, 20_000);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      assert.equal((await status(id)).status, 'DEPLOYING', 'left running by the dead worker');
      t.ctx.services.deploymentRunner.configure({ staleSeconds: 1 });
      await new Promise((r) => setTimeout(r, 1500));
      await sweepAbandonedDeployments(t.ctx);
      const done = await eventually(async () => { const d = await status(id); return d.finished ? d : null; }, 15_000);
      assert.equal(done.status, 'DEPLOYED');
    } finally {
      t.ctx.services.deploymentRunner.configure({ staleSeconds: 60 });
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
