// `node bench/embedded-open.ts`: the database's own share of berth's start (decision 0703): for
// each embedded database, alternating, BENCH_EMBEDDED_REPEAT times (5), in this process: openDb +
// migrate on an empty DATA_DIR, close, then again on the existing one, then close: the part of
// berth's start that is the database's (the rest is loading and building the app).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type Db } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';

const REPEAT = Number(process.env.BENCH_EMBEDDED_REPEAT ?? 5);
const kinds = ['pglite', 'postgres'] as const;

async function timed(fn: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

const rows: Record<string, { empty: number[]; existing: number[]; close: number[] }> = {};
for (let i = 0; i < REPEAT; i++) {
  for (const kind of i % 2 ? [...kinds].reverse() : kinds) {
    const dir = mkdtempSync(join(tmpdir(), 'berth-open-'));
    chmodSync(dir, 0o755);
    try {
      const r = (rows[kind] ??= { empty: [], existing: [], close: [] });
      let db: Db | undefined;
      const open = async () => { db = await openDb({ dataDir: dir, embedded: kind }); await migrate(db); };
      r.empty.push(await timed(open));
      await db!.close();
      r.existing.push(await timed(open));
      r.close.push(await timed(() => db!.close()));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
process.stdout.write(`| open + migrate, median of ${REPEAT} (ms) | empty DATA_DIR | existing | close |\n|---|---:|---:|---:|\n`);
for (const [kind, r] of Object.entries(rows)) {
  process.stdout.write(`| ${kind} | ${median(r.empty).toFixed(0)} | ${median(r.existing).toFixed(0)} | ${median(r.close).toFixed(0)} |\n`);
}
