// The interactive side of the CLI in a real terminal (tmux): the hidden token prompt of
// `berth login` (typed keys are not echoed; the token lands in the config file), the live
// progress of `berth deploy --wait` (statuses and lines appear while the deployment runs), and
// `berth run --wait` (the transcript appears while the run runs; Ctrl-C stops following, says
// how to cancel, and the run goes on). Skipped when tmux is not installed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '../support/harness.ts';
import { berth, BERTH, seedShop, startCliServer, type CliServer } from './support.ts';

const run = promisify(execFile);
const hasTmux = (() => {
  try { execFileSync('tmux', ['-V']); return true; } catch { return false; }
})();

describe('berth in a terminal (tmux)', { skip: hasTmux ? false : 'tmux is not installed' }, () => {
  const socket = `berth-test-${process.pid}`;
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, ...args]).then((r) => r.stdout);
  const screen = (session: string) => tmux('capture-pane', '-p', '-t', session);
  let s: CliServer;
  let dir: string;

  /** a detached 160×40 terminal running `berth args…`, then printing its exit code */
  async function terminal(session: string, args: string[]): Promise<void> {
    const env = `env -i PATH='${process.env.PATH}' HOME='${dir}' BERTH_CONFIG_DIR='${dir}' TERM=xterm-256color`;
    const command = `${env} '${process.execPath}' '${BERTH}' ${args.map((a) => `'${a}'`).join(' ')}; echo "EXIT=$?"; sleep 120`;
    await tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '40', command);
  }

  before(async () => {
    s = await startCliServer();
    dir = s.newConfigDir();
  });
  after(async () => {
    await tmux('kill-server').catch(() => {});
    await s.close();
  });

  test('login prompts for the token without echoing it, then saves it', async () => {
    await terminal('login', ['login', s.url, '--name', 'tty']);
    await eventually(async () => (await screen('login')).includes(`API token for ${s.url}`), 15_000, 100);
    await tmux('send-keys', '-t', 'login', '-l', s.org.token);
    await tmux('send-keys', '-t', 'login', 'Enter');
    const done = await eventually(async () => {
      const text = await screen('login');
      return text.includes('EXIT=') && text;
    }, 15_000, 100);
    assert.match(done, /EXIT=0/);
    assert.match(done, /logged in to .* as server "tty"/);
    assert.ok(!done.includes(s.org.token), 'the token is not shown on the screen');
    assert.equal(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).servers.tty.token, s.org.token);
  });

  test('deploy --wait shows statuses and lines while the deployment runs, then the result', async () => {
    const shop = await seedShop(s, { project: `tty-${Date.now()}`, environment: 'dev' }, ['api']);
    assert.ok(shop.ids.api);
    assert.equal((await berth(dir, ['context', 'set', '--project', shop.projectId, '--environment', 'dev'])).code, 0);
    s.t.engine.configure({ stepMs: 300 });
    try {
      await terminal('deploy', ['deploy', 'api', '--wait']);
      const midway = await eventually(async () => {
        const text = await screen('deploy');
        return /● (BUILDING|DEPLOYING)/.test(text) && !text.includes('EXIT=') && text;
      }, 20_000, 50);
      assert.match(midway, /api: deploying \(deployment [0-9a-f-]{36}\)/);
      assert.doesNotMatch(midway, /✔ DEPLOYED/);
      const done = await eventually(async () => {
        const text = await screen('deploy');
        return text.includes('EXIT=') && text;
      }, 30_000, 100);
      assert.match(done, /✔ DEPLOYED in \d+\.\ds/);
      assert.match(done, /build {2}\[simulated\] Cloning/);
      assert.match(done, /EXIT=0/);
    } finally {
      s.t.engine.configure({ stepMs: 40 });
    }
  });

  test('run --wait shows the transcript while the run runs; Ctrl-C stops following, not the run', async () => {
    const shop = await seedShop(s, { project: `tty-runs-${Date.now()}`, environment: 'dev' }, []);
    const created = await s.t.request('POST', `/environment/${shop.environmentId}/agenticWorkflow`, { token: s.org.token, body: { name: 'triage' } });
    assert.equal(created.status, 201, created.raw);
    assert.equal((await berth(dir, ['context', 'set', '--project', shop.projectId, '--environment', 'dev'])).code, 0);
    s.t.engine.configure({ stepMs: 2000 });
    try {
      await terminal('run', ['run', 'triage', '--payload', '{"alert":"disk full"}', '--wait']);
      const midway = await eventually(async () => {
        const text = await screen('run');
        return text.includes('Starting an agent run of triage') && !text.includes('EXIT=') && text;
      }, 20_000, 50);
      const id = /triage: run started \(run ([0-9a-f-]{36}), QUEUED\)/.exec(midway)?.[1];
      assert.ok(id, midway);
      assert.doesNotMatch(midway, /SUCCEEDED/);
      await tmux('send-keys', '-t', 'run', 'C-c');
      const done = await eventually(async () => {
        const text = await screen('run');
        return text.includes('EXIT=') && text;
      }, 15_000, 50);
      assert.match(done, new RegExp(`berth: stopped following run ${id}; it goes on \\(cancel it with: berth cancel triage ${id.slice(0, 8)}\\)`));
      assert.match(done, /EXIT=130/);
      // nothing was cancelled: the run ends by itself
      const run = await eventually(async () => {
        const r = await s.t.request('GET', `/agenticWorkflow/${created.body.id}/run/${id}`, { token: s.org.token });
        return r.body.status !== 'QUEUED' && r.body.status !== 'RUNNING' && r.body;
      }, 20_000, 100);
      assert.equal(run.status, 'SUCCEEDED');
    } finally {
      s.t.engine.configure({ stepMs: 40 });
    }
  });
});
