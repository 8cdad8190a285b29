// A short run of the log retention bench (`npm run bench:logs`, bench/log-retention.ts) on the
// database of this test run: 8 s of an access log at 1,000 lines a second, 3,000 lines kept,
// pruned every 2 s. It checks that the bench runs and reports, that the service's rows stayed
// bounded by its count plus what two intervals write, that another service's log was left alone
// and that the log endpoint answered full tails; no timing is asserted. About 15 s; it starts a
// berth, so it runs when BENCH_SMOKE=1 (.ci/run sets it once), like the other bench smokes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogBenchRun } from '../../bench/log-report.ts';

const root = new URL('../..', import.meta.url).pathname;

test('the log retention bench keeps a service at its count and reports', {
  timeout: 120_000, skip: process.env.BENCH_SMOKE === '1' ? false : 'set BENCH_SMOKE=1 to run the log retention bench smoke (CI does)',
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-logs-smoke-'));
  try {
    const jsonFile = join(dir, 'logs.json');
    const db = process.env.DATABASE_URL ? 'postgres' : 'pglite';
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['bench/log-retention.ts'], {
        cwd: root, env: { ...process.env, BENCH_LOG_SHORT: '1', BENCH_LOG_SECONDS: '8', BENCH_DB: db, BENCH_JSON: jsonFile }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => { stdout += c; });
      child.stderr.on('data', (c: Buffer) => { stderr += c; });
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
    assert.equal(run.code, 0, run.stderr.slice(-4000));
    const [report] = JSON.parse(readFileSync(jsonFile, 'utf8')) as LogBenchRun[];
    assert.equal(report!.db, db);
    assert.ok(report!.written > report!.keep, `wrote ${report!.written} lines, more than the ${report!.keep} kept`);
    const last = report!.samples.at(-1)!;
    assert.ok(last.serviceRows <= report!.keep + 2 * report!.interval * report!.rate, `${last.serviceRows} rows kept`);
    assert.ok(last.serviceRows >= Math.min(report!.keep, report!.written) * 0.9, 'the newest lines stayed');
    assert.equal(report!.otherServiceUntouched, true);
    for (const p of [...report!.start, ...report!.end]) assert.ok(p.requests > 0 && p.lines === (p.path.endsWith('tail=100') ? 100 : 1000), JSON.stringify(p));
    assert.match(run.stdout, /\| figure +\| (pglite|postgres) \|/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
