// Agentic workflow runs from the command line: the real `berth` binary against a real berth on the
// simulated engine (a run ends SUCCEEDED with a "[simulated]" result; a workflow named with
// fail-deploy ends FAILED). run --wait with a payload (transcript, result, summary, exit 0), the
// payload from stdin, bad payloads (2), an unknown workflow (4), --json, the runs list and one
// run's transcript by the start of its id, a failing run (6), cancel (a waiting run --wait
// exits 7; cancelling an ended run is a one-line 409), and a CLONE_ENVIRONMENT run whose
// throwaway copy (and deployment) is gone, read and followed from the transcript the run kept.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cleanupRunCopy } from '../../src/workers/workflow-schedule.ts';
import { eventually } from '../support/harness.ts';
import { berth, BERTH, cliEnv, seedShop, startCliServer, type CliServer } from './support.ts';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

describe('berth run / runs / cancel', () => {
  let s: CliServer;
  let dir: string;
  const workflows: Record<string, string> = {};
  before(async () => {
    s = await startCliServer();
    dir = s.newConfigDir();
    const shop = await seedShop(s, { project: `agents-${Date.now()}`, environment: 'Staging' }, []);
    for (const name of ['triage', 'triage-fail-deploy']) {
      workflows[name] = (await s.api('POST', `/environment/${shop.environmentId}/agenticWorkflow`, { name, agent_prompt: 'Triage the alert.' })).id;
    }
    workflows.sweep = (await s.api('POST', `/environment/${shop.environmentId}/agenticWorkflow`, { name: 'sweep', execution_mode: 'CLONE_ENVIRONMENT' })).id;
    assert.equal((await berth(dir, ['login', s.url], { input: s.org.token })).code, 0);
    assert.equal((await berth(dir, ['context', 'set', '--project', shop.projectId, '--environment', 'staging'])).code, 0);
  });
  after(async () => { await s.close(); });

  test('run --wait with a payload: the transcript, the result and the summary; exit 0', async () => {
    const r = await berth(dir, ['run', 'triage', '--payload', '{"alert":"disk full on db-1"}', '--wait']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const id = new RegExp(`^triage: run started \\(run (${UUID}), QUEUED\\)$`, 'm').exec(r.stdout)?.[1];
    assert.ok(id, r.stdout);
    assert.match(r.stdout, /^ {2}\d\d:\d\d:\d\d\.\d{3} setup \[simulated\] Starting an agent run of triage/m);
    assert.match(r.stdout, /^ {2}\d\d:\d\d:\d\d\.\d{3} agent \[simulated\] Agent started: model default/m);
    // the result once, after the transcript, then the summary as the last line
    assert.match(r.stdout, /✔ SUCCEEDED\n\[simulated\] No agent ran: the simulated engine calls no model\n0 turns · 0 tokens in, 0 out · \$0\.0000 · \d+\.\ds\n$/);
    assert.equal(r.stdout.split('No agent ran').length, 2);
    assert.equal(r.stderr, '');
    const run = await s.api('GET', `/agenticWorkflow/${workflows.triage}/run/${id}`);
    assert.deepEqual(run.payload, { alert: 'disk full on db-1' });
    assert.equal(run.trigger, 'MANUAL');
  });

  test('the payload from stdin (-) or a file; --json answers with the run record', async () => {
    const queued = await berth(dir, ['run', 'triage', '-', '--json'], { input: '{"from":"stdin"}' });
    assert.equal(queued.code, 0, queued.stderr);
    const run = JSON.parse(queued.stdout);
    assert.deepEqual(run.payload, { from: 'stdin' });
    assert.equal(run.agentic_workflow_id, workflows.triage);
    const waited = await berth(dir, ['run', 'triage', '--payload-file', '-', '--wait', '--json'], { input: '[1, 2, 3]' });
    assert.equal(waited.code, 0, waited.stderr);
    const final = JSON.parse(waited.stdout);
    assert.equal(final.status, 'SUCCEEDED');
    assert.deepEqual(final.payload, [1, 2, 3]);
    assert.match(final.result, /^\[simulated\] /);
    assert.equal(final.num_turns, 0);
  });

  test('a payload that is not JSON, or given twice, is refused before any call: exit 2', async () => {
    const before = (await s.api('GET', `/agenticWorkflow/${workflows.triage}/run`)).pagination.total_count;
    const bad = await berth(dir, ['run', 'triage', '--payload', '{alert: disk}']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^berth: --payload is not JSON: .+\n$/);
    const stdin = await berth(dir, ['run', 'triage', '-'], { input: 'not json' });
    assert.equal(stdin.code, 2);
    assert.match(stdin.stderr, /^berth: the payload on stdin is not JSON: /);
    const missing = await berth(dir, ['run', 'triage', '--payload-file', '/nonexistent/alert.json']);
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr, 'berth: cannot read /nonexistent/alert.json: ENOENT\n');
    const twice = await berth(dir, ['run', 'triage', '--payload', '{}', '-']);
    assert.equal(twice.code, 2);
    assert.equal((await s.api('GET', `/agenticWorkflow/${workflows.triage}/run`)).pagination.total_count, before);
  });

  test('an unknown workflow or run: one line, exit 4', async () => {
    const r = await berth(dir, ['run', 'nope', '--wait']);
    assert.equal(r.code, 4);
    assert.equal(r.stderr, 'berth: no agentic workflow "nope" in environment Staging (there: triage, triage-fail-deploy, sweep)\n');
    const run = await berth(dir, ['runs', 'triage', 'ffffffff']);
    assert.equal(run.code, 4);
    assert.match(run.stderr, /^berth: no run "ffffffff" among the 100 newest runs of triage/);
    const whole = await berth(dir, ['runs', 'triage', '00000000-0000-4000-8000-000000000000']);
    assert.equal(whole.code, 4);
    assert.match(whole.stderr, /^berth: 404 Not Found: /);
  });

  test('runs lists the runs newest first; one run by the start of its id shows its transcript', async () => {
    const started = JSON.parse((await berth(dir, ['run', 'triage', '--payload', '{"n":7}', '--wait', '--json'])).stdout);
    const short = started.id.slice(0, 8);
    const list = await berth(dir, ['runs', 'triage', '-n', '2']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^\s*RUN\s+STATUS\s+TRIGGER\s+STARTED\s+DURATION\s+COST\s+RESULT\n/);
    assert.match(list.stdout.split('\n')[1]!, new RegExp(`^\\s*${short}\\s+SUCCEEDED\\s+manual\\s+\\d+s ago\\s+\\d+\\.\\ds\\s+\\$0\\.0000\\s+\\[simulated\\] No agent ran`));
    assert.equal(list.stdout.trim().split('\n').length, 3);
    assert.match(list.stderr, /2 newest of \d+ runs/);
    const json = JSON.parse((await berth(dir, ['runs', 'triage', '--json'])).stdout);
    assert.equal(json[0].id, started.id);

    const one = await berth(dir, ['runs', 'triage', short]);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, new RegExp(`^triage: run ${started.id} \\(manual by .+, started \\d+s ago\\)\npayload \\{"n":7\\}\n`));
    assert.match(one.stdout, /agent \[simulated\] Agent started/);
    assert.match(one.stdout, /✔ SUCCEEDED\n\[simulated\] No agent ran/);
    const detail = JSON.parse((await berth(dir, ['runs', 'triage', short, '--json'])).stdout);
    assert.equal(detail.run.id, started.id);
    assert.ok(detail.log.some((l: { message: string }) => l.message.includes('Agent started')));
    const followed = await berth(dir, ['runs', 'triage', started.id, '-f']);
    assert.equal(followed.code, 0, followed.stderr);
    assert.match(followed.stdout, /✔ SUCCEEDED/);
    assert.equal((await berth(dir, ['runs', 'triage', '-f'])).code, 2);
  });

  test('a failing run: --wait and -f exit 6 with the message in one line', async () => {
    const r = await berth(dir, ['run', 'triage-fail-deploy', '--wait']);
    assert.equal(r.code, 6, r.stdout + r.stderr);
    assert.match(r.stdout, /✖ FAILED — \[simulated\] The agent failed \(simulated failure marker fail-deploy\)\n0 turns/);
    assert.match(r.stderr, new RegExp(`^berth: triage-fail-deploy: run ${UUID} FAILED — \\[simulated\\] The agent failed .+\n$`));
    const listed = await berth(dir, ['runs', 'triage-fail-deploy']);
    assert.match(listed.stdout, /FAILED\s+manual\s+.*\[simulated\] The agent failed/);
    const id = /run (\S+) FAILED/.exec(r.stderr)![1]!;
    assert.equal((await berth(dir, ['runs', 'triage-fail-deploy', id, '-f'])).code, 6);
    assert.equal((await berth(dir, ['runs', 'triage-fail-deploy', id])).code, 0, 'a read exits 0 whatever the run did');
  });

  test('cancel stops a run that run --wait follows (exit 7); an ended run cannot be cancelled', async () => {
    s.t.engine.configure({ stepMs: 3000 });
    const child = spawn(process.execPath, [BERTH, 'run', 'triage', '--wait'], { env: cliEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const id = await eventually(async () => new RegExp(`run started \\(run (${UUID})`).exec(out)?.[1], 10_000, 20);
      await eventually(async () => out.includes('Starting an agent run'), 10_000, 20);
      const cancel = await berth(dir, ['cancel', 'triage', id.slice(0, 8)]);
      assert.equal(cancel.code, 0, cancel.stderr);
      assert.equal(cancel.stdout, `triage: run ${id} CANCELED\n`);
      assert.equal(await exited, 7, out + err);
      assert.match(out, /■ CANCELED — Canceled by /);
      assert.match(err, new RegExp(`^berth: triage: run ${id} cancelled — Canceled by .+\n$`));
      const again = await berth(dir, ['cancel', 'triage', id]);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /^berth: 409 Conflict: The run is already CANCELED/);
      const none = await berth(dir, ['cancel', 'triage']);
      assert.equal(none.code, 1, 'no run in progress');
    } finally {
      child.kill('SIGKILL');
      s.t.engine.configure({ stepMs: 40 });
    }
  });

  test('a CLONE_ENVIRONMENT run whose copy is gone: its kept transcript is shown and followed', async () => {
    const r = await berth(dir, ['run', 'sweep', '--wait', '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const run = JSON.parse(r.stdout);
    assert.equal(run.status, 'SUCCEEDED');
    assert.ok(run.clone_environment_id);
    await cleanupRunCopy(s.t.ctx, run.clone_environment_id);
    assert.equal((await s.t.request('GET', `/deployment/${run.deployment_id}/log/stream`, { token: s.org.token })).status, 404, 'no live stream left');
    for (const args of [['runs', 'sweep', run.id], ['runs', 'sweep', run.id, '-f']]) {
      const shown = await berth(dir, args);
      assert.equal(shown.code, 0, shown.stdout + shown.stderr);
      assert.match(shown.stdout, /agent \[simulated\] Agent started/);
      assert.match(shown.stdout, /✔ SUCCEEDED\n\[simulated\] No agent ran/);
    }
  });

  test('--help documents the run commands with examples', async () => {
    const top = await berth(dir, ['--help']);
    for (const word of ['run [options] <workflow> [-]', 'runs [options] <workflow> [run]', 'cancel [options] <workflow> [run]', '130']) assert.ok(top.stdout.includes(word), word);
    const sub = await berth(dir, ['run', '--help']);
    assert.match(sub.stdout, /Examples:\n {2}\$ berth run triage --wait/);
  });
});
