// `npm run bench:scale`: deployments and webhooks at scale (issue 15). A benchmark, not a test.
// PostgreSQL (when DATABASE_URL is set; a fresh database, dropped afterwards): one `--role api`
// and two `--role worker` processes; PGlite: one process, role all (the embedded default).
// ENGINE=simulated. Phase 1 queues deployments across environments and checks each environment
// ran its own in queue order, one at a time, and which worker ran each (their log lines); phase 2
// makes webhook deliveries to a slow receiver. Each phase reports throughput, RSS every second
// and the CPU time of berth vs the PostgreSQL server. Settings: BENCH_SCALE_DEPLOYMENTS (1000),
// BENCH_SCALE_ENVIRONMENTS (100), BENCH_SCALE_WEBHOOKS (10000), BENCH_SCALE_HOOKS (webhooks the
// deliveries are spread over, 5), BENCH_SCALE_RECEIVER_MS (200), BENCH_SCALE_DB (pglite|postgres:
// only that one), BENCH_JSON (also write the results there).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiClient } from './api.ts';
import { startActivitySampler, startProbe, statementSnapshot, topStatements } from './scale-probe.ts';
import { ClaimLog, checkOrder, finishedDeployments, queueDeployments, seedFleet, waitFinished } from './scale-deployments.ts';
import { createWebhooks, startSlowReceiver, waitDelivered } from './scale-webhooks.ts';
import { formatScaleTable } from './scale-report.ts';
import type { DeploymentPhase, ScaleDb, ScaleRun, WebhookPhase } from './scale-types.ts';
import { freshDatabase, randomSecret, startBerth, stop, waitReady, type Child } from './servers.ts';

const DEPLOYMENTS = Number(process.env.BENCH_SCALE_DEPLOYMENTS ?? 1000);
const ENVIRONMENTS = Number(process.env.BENCH_SCALE_ENVIRONMENTS ?? 100);
const WEBHOOKS = Number(process.env.BENCH_SCALE_WEBHOOKS ?? 10_000);
const HOOKS = Number(process.env.BENCH_SCALE_HOOKS ?? 5);
const RECEIVER_MS = Number(process.env.BENCH_SCALE_RECEIVER_MS ?? 200);

function log(line: string): void {
  process.stderr.write(`[scale ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/** resolves once the process logged `berth started` (workers have no HTTP port to poll) */
function startedLine(): { onLine: (line: string) => void; started: Promise<void> } {
  let resolve!: () => void;
  const started = new Promise<void>((r) => { resolve = r; });
  return { onLine: (line) => { if (line.includes('"berth started"')) resolve(); }, started };
}

async function startProcesses(db: ScaleDb, env: Parameters<typeof startBerth>[0], claims: ClaimLog, children: Child[]) {
  const common = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
  if (db === 'pglite') {
    const listen = claims.listener('all');
    const all = await startBerth(env, [], { role: 'all', extraEnv: { ...common, LOG_LEVEL: 'info' }, onLine: listen });
    children.push(all);
    await waitReady(all, '/readyz');
    return { api: all, named: [{ name: 'all', pid: all.proc.pid! }] };
  }
  const api = await startBerth(env, [], { role: 'api', extraEnv: common });
  children.push(api);
  await waitReady(api, '/readyz');
  const named = [{ name: 'api', pid: api.proc.pid! }];
  for (const name of ['worker-1', 'worker-2']) {
    const listen = claims.listener(name);
    const ready = startedLine();
    const worker = await startBerth(env, [], { role: 'worker', extraEnv: { ...common, LOG_LEVEL: 'info' }, onLine: (l) => { ready.onLine(l); listen(l); } });
    children.push(worker);
    await Promise.race([ready.started, new Promise((_, reject) => worker.proc.once('exit', (code) => reject(new Error(`${name} exited with ${code}:\n${worker.output()}`))))]);
    named.push({ name, pid: worker.proc.pid! });
  }
  return { api, named };
}

async function scaleRun(db: ScaleDb): Promise<ScaleRun> {
  log(`--- ${db} ---`);
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-scale-'));
  const pgDb = db === 'postgres' ? await freshDatabase(process.env.DATABASE_URL!) : undefined;
  const databaseName = pgDb ? new URL(pgDb.url).pathname.slice(1) : undefined;
  const env = { dataDir, databaseUrl: pgDb?.url, encryptionKey: randomBytes(32).toString('base64'), bootstrapToken: randomSecret(32) };
  const children: Child[] = [];
  const receiver = await startSlowReceiver(RECEIVER_MS);
  try {
    const claims = new ClaimLog();
    const { api: apiProcess, named } = await startProcesses(db, env, claims, children);
    const api = apiClient(apiProcess.url, env.bootstrapToken);
    const metricsUrl = `${apiProcess.url}/metrics`;
    const seeded = performance.now();
    const fleet = await seedFleet(api, ENVIRONMENTS);
    log(`seeded ${ENVIRONMENTS} environments with a container each in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

    // phase 1: deployments
    const before1 = pgDb ? await statementSnapshot(pgDb.url) : null;
    const probe1 = startProbe(named, { postgresDatabase: databaseName });
    const activity1 = pgDb ? await startActivitySampler(pgDb.url) : null;
    const t0 = Date.now();
    const queued = await queueDeployments(api, fleet, DEPLOYMENTS);
    log(`queued ${DEPLOYMENTS} deployments in ${queued.seconds.toFixed(1)} s (${(DEPLOYMENTS / queued.seconds).toFixed(0)}/s)`);
    await waitFinished(metricsUrl, DEPLOYMENTS, (done) => log(`${done}/${DEPLOYMENTS} deployments finished; ${probe1.current()}`));
    const figures1 = probe1.stop();
    const activity = (await activity1?.stop()) ?? null;
    const statements1 = topStatements(before1, pgDb ? await statementSnapshot(pgDb.url) : null);
    const { firstStartedAt: _first, lastFinishedAt, ...order } = await checkOrder(api, fleet, queued);
    const drainSeconds = (lastFinishedAt - t0) / 1000;
    const shares = claims.shares(queued.perEnvironment.flat());
    log(`drained in ${drainSeconds.toFixed(1)} s; out of order ${order.outOfOrder.length}, overlapping ${order.overlapping.length}, not deployed ${order.notDeployed.length}; shares ${JSON.stringify(shares)}`);
    const deployments: DeploymentPhase = {
      queued: DEPLOYMENTS, environments: ENVIRONMENTS, queueSeconds: queued.seconds, drainSeconds, perSecond: DEPLOYMENTS / drainSeconds,
      order, shares, figures: figures1, statements: statements1, activity,
    };

    // phase 2: webhook deliveries, 2 events per deployment to each of HOOKS webhooks
    const hooks = Math.min(HOOKS, Math.max(1, Math.ceil(WEBHOOKS / 2)));
    const needed = Math.ceil(WEBHOOKS / (2 * hooks));
    const expected = needed * 2 * hooks;
    await createWebhooks(api, fleet.organizationId, receiver.url, hooks);
    const finishedBefore = await finishedDeployments(metricsUrl);
    const before2 = pgDb ? await statementSnapshot(pgDb.url) : null;
    const probe2 = startProbe(named, { postgresDatabase: databaseName });
    const activity2 = pgDb ? await startActivitySampler(pgDb.url) : null;
    const rssAtStart = Object.fromEntries(figures1.processes.map((p) => [p.name, p.lastRssMiB]));
    await queueDeployments(api, fleet, needed);
    log(`queued ${needed} deployments for ${expected} deliveries (${hooks} webhooks × 2 events), receiver answers after ${RECEIVER_MS} ms`);
    const { peakBacklog } = await waitDelivered(receiver, expected, metricsUrl, (line) => log(`${line}; ${probe2.current()}`));
    const figures2 = probe2.stop();
    const activityOfWebhooks = (await activity2?.stop()) ?? null;
    const statements2 = topStatements(before2, pgDb ? await statementSnapshot(pgDb.url) : null);
    const seconds = (receiver.lastAt - receiver.firstAt) / 1000;
    const webhooks: WebhookPhase = {
      expected, hooks, deployments: needed, receiverMs: RECEIVER_MS, delivered: receiver.unique, requests: receiver.requests,
      seconds, perSecond: receiver.unique / seconds, maxInFlight: receiver.maxInFlight, peakBacklog, rssAtStart, figures: figures2, statements: statements2,
      activity: activityOfWebhooks,
    };
    log(`${receiver.unique} deliveries in ${seconds.toFixed(1)} s, at most ${receiver.maxInFlight} in flight, peak backlog ${peakBacklog}; ${(await finishedDeployments(metricsUrl)) - finishedBefore} deployments finished`);
    return { db, processes: named.map((p) => p.name), deployments, webhooks };
  } finally {
    for (const c of children.reverse()) await stop(c);
    await receiver.close();
    await pgDb?.drop().catch((err) => log(`could not drop the bench database: ${err}`));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const only = process.env.BENCH_SCALE_DB;
const dbs = (['pglite', ...(process.env.DATABASE_URL ? ['postgres'] : [])] as ScaleDb[]).filter((d) => !only || d === only);
const runs: ScaleRun[] = [];
for (const db of dbs) runs.push(await scaleRun(db));
process.stdout.write('\n' + formatScaleTable(runs));
if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(runs, null, 2));
