// berth status in an environment that holds agentic workflows beside its application (issue 36,
// item 3): the real `berth` binary against a real berth on the simulated engine. The application
// keeps its row in the services table; each workflow has a row in the workflows table with its
// last run (status, trigger, when, the first line of its result, or of its message when it
// failed) or "no runs" when never run, and --json gives the workflows with their last run too.
// berth services lists them; the commands that act on one service, given a workflow, name the
// commands that take one instead.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../support/harness.ts';
import { berth, seedShop, startCliServer, type CliServer } from './support.ts';

describe('berth status with agentic workflows', () => {
  let s: CliServer;
  let dir: string;
  const ids: Record<string, string> = {};
  let runId = '';
  let projectId = '';
  before(async () => {
    s = await startCliServer();
    dir = s.newConfigDir();
    const shop = await seedShop(s, { project: `status-${Date.now()}`, environment: 'Staging' }, ['web']);
    ids.web = shop.ids.web!;
    projectId = shop.projectId;
    for (const name of ['triage', 'idle', 'sweep-fail-deploy']) {
      ids[name] = (await s.api('POST', `/environment/${shop.environmentId}/agenticWorkflow`, { name, agent_prompt: 'Triage the alert.' })).id;
    }
    // one finished run of triage, one of sweep-fail-deploy (the simulated engine ends them in a few steps)
    runId = (await s.api('POST', `/agenticWorkflow/${ids.triage}/run`, { alert: 'disk full' })).id;
    const failed = (await s.api('POST', `/agenticWorkflow/${ids['sweep-fail-deploy']}/run`)).id;
    await eventually(async () => (await s.api('GET', `/agenticWorkflow/${ids.triage}/run/${runId}`)).status === 'SUCCEEDED', 15_000);
    await eventually(async () => (await s.api('GET', `/agenticWorkflow/${ids['sweep-fail-deploy']}/run/${failed}`)).status === 'FAILED', 15_000);
    // a result of several lines: the table shows its first
    await s.t.ctx.db.query(`update agentic_workflow_runs set result = $1 where id = $2`, ['Disk full on db-1: rotated the logs\nfreed 12 GB\nno page sent', runId]);
    assert.equal((await berth(dir, ['login', s.url], { input: s.org.token })).code, 0);
    assert.equal((await berth(dir, ['context', 'set', '--project', shop.projectId, '--environment', 'staging'])).code, 0);
  });
  after(async () => { await s.close(); });

  test('status prints the application row and each workflow with its last run; exit 0', async () => {
    const r = await berth(dir, ['status']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /^environment Staging \(project status-\d+, organization .+\)\n/);
    assert.match(r.stdout, /SERVICE\s+TYPE\s+STATE\s+VERSION\s+LAST DEPLOYMENT\n\s*web\s+application\s+STOPPED\s+never deployed\s+never\n/);
    assert.match(r.stdout, /WORKFLOW\s+LAST RUN\s+TRIGGER\s+STARTED\s+RESULT\n/);
    assert.match(r.stdout, new RegExp(`^\\s*triage\\s+SUCCEEDED\\s+manual\\s+\\d+s ago\\s+Disk full on db-1: rotated the logs$`, 'm'));
    assert.match(r.stdout, /^\s*idle\s+no runs$/m);
    assert.match(r.stdout, /^\s*sweep-fail-deploy\s+FAILED\s+manual\s+\d+s ago\s+\[simulated\] The agent failed \(simulated failure marker fail…$/m);
    assert.ok(!r.stdout.includes('freed 12 GB'), 'only the first line of the result');
    // the workflows are not rows of the services table
    assert.doesNotMatch(r.stdout, /agentic/i);
  });

  test('status --json: the services, and the workflows with their last run', async () => {
    const r = await berth(dir, ['status', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.services.map((x: { name: string }) => x.name), ['web']);
    assert.equal(out.services[0].last_deployment, null);
    const byName = Object.fromEntries(out.workflows.map((w: { name: string }) => [w.name, w]));
    assert.deepEqual(Object.keys(byName).sort(), ['idle', 'sweep-fail-deploy', 'triage']);
    assert.equal(byName.triage.id, ids.triage);
    assert.equal(byName.triage.type, 'AGENTIC_WORKFLOW');
    assert.equal(byName.triage.last_run.id, runId);
    assert.equal(byName.triage.last_run.status, 'SUCCEEDED');
    assert.equal(byName.triage.last_run.trigger, 'MANUAL');
    assert.equal(byName.triage.last_run.result, 'Disk full on db-1: rotated the logs\nfreed 12 GB\nno page sent');
    assert.ok(byName.triage.last_run.created_at);
    assert.equal(byName.idle.last_run, null);
  });

  test('an environment of workflows only: their table, no empty services table', async () => {
    const env = await s.api('POST', `/project/${projectId}/environment`, { name: 'Agents', mode: 'DEVELOPMENT' });
    await s.api('POST', `/environment/${env.id}/agenticWorkflow`, { name: 'lonely', agent_prompt: 'Wait.' });
    const r = await berth(dir, ['status', '-p', projectId, '-e', 'agents']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^environment Agents \(.+\)\n\n\s*WORKFLOW\s+LAST RUN\s+TRIGGER\s+STARTED\s+RESULT\n\s*lonely\s+no runs\n$/);
  });

  test('services lists the workflows beside the application', async () => {
    const r = await berth(dir, ['services']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\s*web\s+application\s+/m);
    assert.match(r.stdout, /^\s*triage\s+agentic workflow\s+/m);
    const json = JSON.parse((await berth(dir, ['services', '--json'])).stdout);
    assert.deepEqual(json.map((x: { name: string }) => x.name).sort(), ['idle', 'sweep-fail-deploy', 'triage', 'web']);
  });

  test('a command for one service, given a workflow, names the commands that act on workflows: exit 2', async () => {
    for (const args of [['deploy', 'triage'], ['logs', 'triage'], ['settings', 'triage'], ['open', 'triage'], ['env', 'list', '--service', 'triage']]) {
      const r = await berth(dir, args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stderr, 'berth: triage is an agentic workflow: start a run with berth run triage, list its runs with berth runs triage\n', args.join(' '));
    }
  });
});
