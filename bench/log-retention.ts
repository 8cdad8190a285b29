// `npm run bench:logs`: retention of runtime lines under an app writing an access log (decision
// 0408). A berth (role all, in this process, the simulated engine, retention set to bind) has one
// application whose replicas write BENCH_LOG_RATE lines a second (1,000) for BENCH_LOG_SECONDS
// (600) through insertRuntimeLine, the engine observer's own insert, one line after the other
// per replica as the observer does (a commit apiece). Every BENCH_LOG_SAMPLE_SECONDS (10) it
// samples the table: its rows, the service's rows, and its size on disk (table, and table with
// indexes). At the start (15 s in: the service has a full tail, the process is warm) and at the
// end, for BENCH_LOG_PROBE_SECONDS (10) each, it asks the service's log (GET
// /application/{id}/log: the default tail of 1,000 lines, and ?tail=100) one request after
// another while the writing goes on. Reports end ÷ start ratios, like the other benches.
// Settings: BENCH_DB (embedded-postgres | pglite | postgres = a fresh database on DATABASE_URL,
// dropped after), BENCH_LOG_KEEP (LOG_RETENTION_LINES_PER_SERVICE, 50,000; 0: no retention by
// count, the control), BENCH_LOG_INTERVAL (LOG_PRUNE_INTERVAL_SECONDS, 10), BENCH_LOG_BATCH
// (LOG_PRUNE_BATCH, 5,000), BENCH_LOG_REPLICAS (4), BENCH_JSON (a file for the samples).
// BENCH_LOG_SHORT=1: a smoke run (12 s, 3,000 lines kept, 2 s interval, samples and probes of 2 s).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/config.ts';
import { isoOfMicros } from '../src/engine/index.ts';
import { insertRuntimeLine } from '../src/modules/deployments/runtime-state.ts';
import { startRuntime } from '../src/runtime.ts';
import { apiClient } from './api.ts';
import { formatLogReport, type LogBenchRun, type Probe, type Sample } from './log-report.ts';
import { freshDatabase } from './servers.ts';

const short = process.env.BENCH_LOG_SHORT === '1';
const setting = (name: string, normal: number, smoke: number) => Number(process.env[name] ?? (short ? smoke : normal));
const SECONDS = setting('BENCH_LOG_SECONDS', 600, 12);
const RATE = setting('BENCH_LOG_RATE', 1000, 1000);
const KEEP = setting('BENCH_LOG_KEEP', 50_000, 3000);
const INTERVAL = setting('BENCH_LOG_INTERVAL', 10, 2);
const BATCH = setting('BENCH_LOG_BATCH', 5000, 5000);
const REPLICAS = setting('BENCH_LOG_REPLICAS', 4, 4);
const SAMPLE_SECONDS = setting('BENCH_LOG_SAMPLE_SECONDS', 10, 2);
const PROBE_SECONDS = setting('BENCH_LOG_PROBE_SECONDS', 10, 2);
const DB = (process.env.BENCH_DB ?? 'embedded-postgres') as 'embedded-postgres' | 'pglite' | 'postgres';

const log = (line: string) => process.stderr.write(`[bench:logs ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quantile = (xs: number[], q: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN; };
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const MiB = (bytes: number) => bytes / 1_048_576;


if (DB === 'postgres' && !process.env.DATABASE_URL) throw new Error('BENCH_DB=postgres needs DATABASE_URL');
const dataDir = mkdtempSync(join(tmpdir(), 'berth-bench-logs-'));
const pgDb = DB === 'postgres' ? await freshDatabase(process.env.DATABASE_URL!) : undefined;
const token = randomBytes(32).toString('base64url');
const runtime = await startRuntime({
  config: loadConfig({
    DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ENGINE: 'simulated', LOG_LEVEL: 'warn', BOOTSTRAP_TOKEN: token,
    RATE_LIMIT_PER_HOUR: '10000000', SHUTDOWN_DRAIN_MS: '0', EMBEDDED_DATABASE: DB === 'pglite' ? 'pglite' : 'postgres',
    ...(pgDb ? { DATABASE_URL: pgDb.url, ENCRYPTION_KEY: randomBytes(32).toString('base64') } : {}),
    LOG_RETENTION_LINES_PER_SERVICE: String(KEEP), LOG_PRUNE_INTERVAL_SECONDS: String(INTERVAL), LOG_PRUNE_BATCH: String(BATCH),
  }),
});
const { db } = runtime.ctx;
const address = runtime.app!.server.address() as { port: number };
const base = `http://127.0.0.1:${address.port}`;
const api = apiClient(base, token);

async function create(path: string, body: unknown): Promise<string> {
  const answer = await api('POST', path, body);
  if (answer.status !== 201) throw new Error(`POST ${path}: ${answer.status} ${answer.text}`);
  return answer.body.id as string;
}
const org = (await api('GET', '/organization')).body.results[0].id as string;
const project = await create(`/organization/${org}/project`, { name: 'bench-logs' });
const env = await create(`/project/${project}/environment`, { name: 'bench', mode: 'DEVELOPMENT' });
const app = await create(`/environment/${env}/application`, { name: 'access-log', git_repository: { url: 'https://github.com/acme/web' } });
const other = await create(`/environment/${env}/application`, { name: 'quiet', git_repository: { url: 'https://github.com/acme/quiet' } });
for (let i = 0; i < 100; i++) await insertRuntimeLine(db, other, 'e'.repeat(64), isoOfMicros(BigInt(Date.now()) * 1000n + BigInt(i)), `quiet line ${i}`);
const quietBefore = JSON.stringify((await api('GET', `/application/${other}/log?tail=1000`)).body);
log(`${DB}: ${RATE} lines/s for ${SECONDS} s over ${REPLICAS} replicas; keep ${KEEP} per service, prune every ${INTERVAL} s in batches of ${BATCH}`);

// the replicas: each writes its share on a fixed schedule, one insert after the other, catching up when behind
const startedAt = performance.now();
const endAt = startedAt + SECONDS * 1000;
let written = 0;
async function replica(r: number): Promise<void> {
  const container = `${r}`.padEnd(64, 'f');
  let last = 0n;
  let mine = 0;
  while (performance.now() < endAt) {
    const due = Math.floor(((performance.now() - startedAt) / 1000) * (RATE / REPLICAS));
    if (mine >= due) { await sleep(2); continue; }
    while (mine < due && performance.now() < endAt) {
      const now = BigInt(Math.floor((performance.timeOrigin + performance.now()) * 1000));
      last = now > last ? now : last + 1n;
      const n = written++;
      await insertRuntimeLine(db, app, container, isoOfMicros(last),
        `10.0.${r}.${n % 250} - - [${new Date().toUTCString()}] "GET /api/items/${n} HTTP/1.1" 200 ${512 + (n % 4096)} "-" "curl/8.5.0"`);
      mine++;
    }
  }
}

async function sample(): Promise<Sample> {
  const [r] = await db.query<{ rows: number; service_rows: number; table_bytes: number; total_bytes: number }>(
    `select (select count(*) from deployment_logs)::int as rows, (select count(*) from deployment_logs where service_id = $1)::int as service_rows,
       pg_relation_size('deployment_logs')::float8 as table_bytes, pg_total_relation_size('deployment_logs')::float8 as total_bytes`, [app]);
  return { second: Math.round((performance.now() - startedAt) / 1000), written, rows: r!.rows, serviceRows: r!.service_rows, tableBytes: Number(r!.table_bytes), totalBytes: Number(r!.total_bytes) };
}

async function probe(seconds: number): Promise<Probe[]> {
  const out: Probe[] = [];
  for (const path of [`/application/${app}/log`, `/application/${app}/log?tail=100`]) {
    const times: number[] = [];
    let lines = 0;
    const until = performance.now() + (seconds * 1000) / 2;
    while (performance.now() < until) {
      const t0 = performance.now();
      const answer = await api('GET', path);
      times.push(performance.now() - t0);
      if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text.slice(0, 200)}`);
      lines = answer.body.results.length;
    }
    out.push({ path: path.replace(app, '{id}'), requests: times.length, lines, p50: quantile(times, 0.5), p90: quantile(times, 0.9), p99: quantile(times, 0.99), mean: mean(times) });
  }
  return out;
}

const samples: Sample[] = [];
const writers = Array.from({ length: REPLICAS }, (_, r) => replica(r));
const sampler = (async () => {
  for (let next = SAMPLE_SECONDS; next <= SECONDS; next += SAMPLE_SECONDS) {
    await sleep(Math.max(0, startedAt + next * 1000 - performance.now()));
    const s = await sample();
    samples.push(s);
    log(`${s.second}s: written ${s.written}, rows ${s.rows} (service ${s.serviceRows}), table ${MiB(s.tableBytes).toFixed(1)} MiB, with indexes ${MiB(s.totalBytes).toFixed(1)} MiB`);
  }
})();
// the start: the service has a full default tail (1,000 lines) by then, the process is warm
await sleep(Math.max((1500 / RATE) * 1000, Math.min(SECONDS * 250, 15_000)));
const start = await probe(PROBE_SECONDS);
await sleep(Math.max(0, endAt - PROBE_SECONDS * 1000 - performance.now()));
const end = await probe(PROBE_SECONDS);
await Promise.all(writers);
await sampler;
const final = await sample();
const otherServiceUntouched = JSON.stringify((await api('GET', `/application/${other}/log?tail=1000`)).body) === quietBefore;
const run: LogBenchRun = {
  db: DB, seconds: SECONDS, rate: RATE, keep: KEEP, interval: INTERVAL, batch: BATCH, replicas: REPLICAS,
  written, achievedRate: written / SECONDS, samples: [...samples, final], start, end, otherServiceUntouched,
};
await runtime.stop();
await pgDb?.drop();
rmSync(dataDir, { recursive: true, force: true });
if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify([run], null, 2));
process.stdout.write(formatLogReport(run));
