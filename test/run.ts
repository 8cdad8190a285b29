// `npm test [-- name-filter…]`: every *.test.ts under src/ and test/, in one process
// (--test-isolation=none) so the embedded database is created once. With DATABASE_URL the same
// suite runs against that PostgreSQL, in databases made for this run and dropped after it.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { dropRunDatabases } from './support/db.ts';

const root = new URL('..', import.meta.url).pathname;
const filter = process.argv.slice(2);

function find(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) find(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const files = [...find(join(root, 'src')), ...find(join(root, 'test'))]
  .filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)))
  .sort();
const prefix = `berth_test_${process.pid}_${Date.now().toString(36)}`;
process.stdout.write(`running ${files.length} test files on ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}\n`);
const result = spawnSync(process.execPath, [
  '--test', '--test-isolation=none', '--test-force-exit', '--test-timeout=120000', '--test-reporter=spec', ...files,
], { cwd: root, stdio: 'inherit', env: { ...process.env, BERTH_TEST_DB_PREFIX: prefix } });
if (process.env.DATABASE_URL) await dropRunDatabases(process.env.DATABASE_URL, prefix).catch((err) => {
  process.stderr.write(`could not drop test databases: ${err}\n`);
});
process.exit(result.status ?? 1);
