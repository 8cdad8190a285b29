// Where berth's idle memory goes: starts the same steps as src/runtime.ts one at a time in this
// process and prints process.memoryUsage() after each (RSS, V8 heap, external + array buffers,
// where PGlite's WebAssembly memory lives). `node --expose-gc bench/memory-stages.ts` with
// DATA_DIR (a fresh temporary one by default) and optionally DATABASE_URL + ENCRYPTION_KEY.
// Numbers are deltas from the previous step after a full GC, so the table reads as "cost of";
// the last column is the step's time (the start-up time by step).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MiB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;
let last = process.memoryUsage();
let lastAt = performance.now();
const rows: string[][] = [];

/** `ms`: the step's duration (before the GC that measures it; the idle step excluded) */
function stage(label: string): void {
  const ms = (performance.now() - lastAt).toFixed(0);
  gc?.();
  const now = process.memoryUsage();
  const d = (k: keyof NodeJS.MemoryUsage) => ((now[k] - last[k]) / MiB).toFixed(1);
  rows.push([label, (now.rss / MiB).toFixed(0), d('rss'), d('heapUsed'), d('external'), ms]);
  last = now;
  lastAt = performance.now();
}

const tempDir = process.env.DATA_DIR ? undefined : mkdtempSync(join(tmpdir(), 'berth-mem-'));
const dataDir = process.env.DATA_DIR ?? tempDir!;
stage('node, before any import');
const { loadConfig } = await import('../src/config/config.ts');
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, ENGINE: 'simulated', LOG_LEVEL: 'warn' });
stage('config');
const { createLogger, resolveEncryptionKey, VERSION } = await import('../src/runtime.ts');
stage('import src/runtime.ts (every module it reaches: fastify, pg-boss, routes, services)');
const { openDb } = await import('../src/db/db.ts');
const { CONSTRAINT_MESSAGES } = await import('../src/modules/constraints.ts');
const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, embedded: config.embeddedDatabase, constraints: CONSTRAINT_MESSAGES });
stage(`open database (${db.kind})`);
const { migrate } = await import('../src/db/migrate.ts');
await migrate(db);
stage('migrations');
const logger = createLogger(config);
const { createSealer } = await import('../src/lib/crypto.ts');
const { createRateLimiter } = await import('../src/http/rate-limit.ts');
const rateLimiter = await createRateLimiter({ limit: config.rateLimitPerHour, redisUrl: config.redisUrl, logger });
const { startQueue } = await import('../src/queue/queue.ts');
const queue = await startQueue(db, { workers: true });
stage('task queue (pg-boss) started');
const { createContext } = await import('../src/context.ts');
const { selectEngine } = await import('../src/engine/index.ts');
const engine = await selectEngine(config, logger, { startIngress: false });
const ctx = createContext({ version: VERSION, config, db, logger, sealer: createSealer(resolveEncryptionKey(config)), rateLimiter, queue, engine: engine.driver });
const { bootstrap } = await import('../src/bootstrap.ts');
await bootstrap(ctx).catch(() => {});
stage('context + bootstrap');
const { buildApp } = await import('../src/http/app.ts');
const app = await buildApp(ctx);
await app.ready();
stage('HTTP app built and ready (routes, schemas, serializers)');
const { startWorkers } = await import('../src/workers/runner.ts');
const workers = await startWorkers(ctx);
stage('workers started');
await new Promise((r) => setTimeout(r, 3000));
stage('3 s idle');

const widths = [80, 6, 8, 8, 8, 7];
const head = ['stage', 'RSS', 'Δ RSS', 'Δ heap', 'Δ ext', 'ms'];
for (const r of [head, ...rows]) process.stdout.write(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' ') + '\n');
await app.close();
await workers.stop();
await queue.stop({ timeoutMs: 5000 });
await rateLimiter.close();
await db.close();
if (tempDir) rmSync(tempDir, { recursive: true, force: true });
process.exit(0);
