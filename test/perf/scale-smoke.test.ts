// A short run of the scale benchmark (`npm run bench:scale`, bench/scale.ts) on the database of
// this test run: 20 deployments over 4 environments, then 50 webhook deliveries to the slow
// receiver. It checks the queue rule held (each environment's deployments in queue order, one at
// a time, all DEPLOYED), every delivery arrived, and every process was measured; no timing is
// asserted. It starts berth processes, so it runs when BENCH_SMOKE=1 (.ci/run sets it once).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScaleRun } from '../../bench/scale-types.ts';

const root = new URL('../..', import.meta.url).pathname;

function runScaleBench(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bench/scale.ts'], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c; });
    child.stderr.on('data', (c: Buffer) => { stderr += c; });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('the scale bench drains deployments in order per environment and delivers every webhook', {
  timeout: 600_000, skip: process.env.BENCH_SMOKE === '1' ? false : 'set BENCH_SMOKE=1 to run the scale bench smoke (CI does)',
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-scale-smoke-'));
  try {
    const jsonFile = join(dir, 'scale.json');
    const db = process.env.DATABASE_URL ? 'postgres' : 'pglite';
    const run = await runScaleBench({
      BENCH_SCALE_DB: db, BENCH_SCALE_DEPLOYMENTS: '20', BENCH_SCALE_ENVIRONMENTS: '4', BENCH_SCALE_WEBHOOKS: '50', BENCH_SCALE_RECEIVER_MS: '50', BENCH_JSON: jsonFile,
    });
    assert.equal(run.code, 0, run.stderr.slice(-4000));
    const [report] = JSON.parse(readFileSync(jsonFile, 'utf8')) as ScaleRun[];
    assert.equal(report!.db, db);
    const d = report!.deployments;
    assert.equal(d.order.checked, 20, 'every queued deployment is in its environment\'s history');
    assert.deepEqual(d.order.outOfOrder, [], 'each environment ran its deployments in queue order');
    assert.deepEqual(d.order.overlapping, [], 'one deployment at a time per environment');
    assert.deepEqual(d.order.notDeployed, []);
    const workers = db === 'postgres' ? ['worker-1', 'worker-2'] : ['all'];
    assert.deepEqual(Object.keys(d.shares).sort(), workers);
    assert.equal(Object.values(d.shares).reduce((a, b) => a + b, 0), 20, 'every deployment was claimed by exactly one process');
    const w = report!.webhooks;
    assert.equal(w.expected, 50);
    assert.equal(w.delivered, 50, 'the receiver got every delivery');
    assert.ok(w.maxInFlight >= 1);
    for (const f of [d.figures, w.figures]) {
      assert.equal(f.processes.length, db === 'postgres' ? 3 : 1);
      for (const p of f.processes) assert.ok(p.peakRssMiB > 0 && p.cpuSeconds >= 0, `${p.name} measured`);
      if (db === 'postgres') assert.ok(f.postgresCpuSeconds !== null && f.postgresCpuSeconds > 0, 'the server\'s CPU time was read');
    }
    assert.match(run.stdout, /\| db +\| phase +\| figure +\| value +\|/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
