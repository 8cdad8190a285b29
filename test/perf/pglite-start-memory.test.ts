// Opening PGlite must not take a burst of memory the process then idles far below (issue 15: peak
// ≤ 1.5× idle): with V8's optimizing tier on, compiling PGlite's WebAssembly while its first
// statements run took about 500 MiB for half a second (src/db/pglite.ts, decision 0708). A fresh
// process creates an in-memory database by initdb (the heaviest start, not from the template of
// pglite-template.ts) and reports its VmHWM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const root = new URL('../..', import.meta.url).pathname;

const SCRIPT = `
import { openPglite } from './src/db/pglite.ts';
import { readFileSync } from 'node:fs';
const db = await openPglite('memory://', { template: false });
await db.query('select count(*) from pg_class');
await db.close();
process.stdout.write(readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\\s+(\\d+)/)[1]);
`;

test('opening PGlite stays below 850 MiB at its peak (it was ~1,070 MiB with WebAssembly tier-up)', { skip: process.platform !== 'linux' }, async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: root });
  const peakMiB = Number(stdout) / 1024;
  assert.ok(peakMiB > 0, stdout);
  assert.ok(peakMiB < 850, `VmHWM ${Math.round(peakMiB)} MiB`);
});
