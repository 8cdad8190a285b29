// `npm test [-- name-filter…]`: every *.test.ts under src/ and test/, in one process
// (--test-isolation=none) so the embedded database is created once. With DATABASE_URL the same
// suite runs against that PostgreSQL, in databases made for this run and dropped after it. With
// BERTH_TEST_EMBEDDED=postgres, on an embedded PostgreSQL server in a temp dir (test/support/db.ts),
// removed once the server has stopped.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
const embeddedPostgres = !process.env.DATABASE_URL && process.env.BERTH_TEST_EMBEDDED === 'postgres';
const embeddedDir = embeddedPostgres ? mkdtempSync(join(tmpdir(), 'berth-test-epg-')) : undefined;
if (embeddedDir) chmodSync(embeddedDir, 0o755); // as root, the server runs as nobody
const database = process.env.DATABASE_URL ? 'PostgreSQL' : embeddedPostgres ? 'embedded PostgreSQL' : 'embedded PGlite';
process.stdout.write(`running ${files.length} test files on ${database}\n`);
const result = spawnSync(process.execPath, [
  '--test', '--test-isolation=none', '--test-force-exit', '--test-timeout=120000', '--test-reporter=spec', ...files,
], { cwd: root, stdio: 'inherit', env: { ...process.env, BERTH_TEST_DB_PREFIX: prefix, ...(embeddedDir ? { BERTH_TEST_EMBEDDED_DIR: embeddedDir } : {}) } });
if (embeddedDir) {
  // the test process has exited: its watchdog is stopping the server
  const pidFile = join(embeddedDir, 'postgres', 'postmaster.pid');
  for (let i = 0; i < 300 && existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 100));
  rmSync(embeddedDir, { recursive: true, force: true });
}
if (process.env.DATABASE_URL) await dropRunDatabases(process.env.DATABASE_URL, prefix).catch((err) => {
  process.stderr.write(`could not drop test databases: ${err}\n`);
});
process.exit(result.status ?? 1);
