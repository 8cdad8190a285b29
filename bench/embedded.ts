// `node bench/embedded.ts`: the embedded databases side by side outside the load bench (decision
// 0703): for EMBEDDED_DATABASE=pglite and =postgres, alternating, BENCH_EMBEDDED_REPEAT times (3):
// first start on an empty DATA_DIR and a later start, to /readyz 200; idle memory of berth and
// every process under it 10 s after the later start (RSS and PSS sums); DATA_DIR's size right
// after the first start; then kill -9 of berth: what is still running, how long until the
// embedded server is gone, and how long the next start takes. Prints one JSON line per run and a
// median table. BENCH_EMBEDDED_DIR: where the data directories go (default: the temp dir).
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive as alive } from '../src/lib/processes.ts';
import { processTree, treeMemory } from './process-memory.ts';
import { embeddedServerGone, randomSecret, startBerth, stop, waitReady, type Child } from './servers.ts';

const REPEAT = Number(process.env.BENCH_EMBEDDED_REPEAT ?? 3);
const IDLE_MS = Number(process.env.BENCH_IDLE_SECONDS ?? 10) * 1000;
const kinds = ['pglite', 'postgres'] as const;

function duMiB(path: string): number {
  return Number(execFileSync('du', ['-sk', path], { encoding: 'utf8' }).split('\t')[0]) / 1024;
}

async function once(kind: typeof kinds[number]) {
  const dataDir = mkdtempSync(join(process.env.BENCH_EMBEDDED_DIR ?? tmpdir(), 'berth-embedded-'));
  chmodSync(dataDir, 0o755);
  const env = { dataDir, bootstrapToken: randomSecret(32), embedded: kind };
  const children: Child[] = [];
  try {
    const first = await startBerth(env);
    children.push(first);
    const firstStartMs = await waitReady(first, '/readyz');
    const diskMiB = duMiB(dataDir);
    await stop(first);
    const later = await startBerth(env);
    children.push(later);
    const laterStartMs = await waitReady(later, '/readyz');
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idle = treeMemory(later.proc.pid!);
    const berthOnly = treeMemory(later.proc.pid!, new Set(processTree(later.proc.pid!).slice(1)));

    // kill -9 of berth: what is left, and how the next start copes
    const tree = processTree(later.proc.pid!).slice(1);
    const killedAt = performance.now();
    later.proc.kill('SIGKILL');
    await new Promise((r) => later.proc.once('exit', r));
    const leftRightAfter = tree.filter(alive).length;
    while (tree.some(alive) && performance.now() - killedAt < 30_000) await new Promise((r) => setTimeout(r, 5));
    const goneAfterMs = tree.some(alive) ? NaN : performance.now() - killedAt;
    const pidFileLeft = existsSync(join(dataDir, 'postgres', 'postmaster.pid'));
    const lockLeft = existsSync(join(dataDir, 'berth.lock'));
    const afterKill = await startBerth(env);
    children.push(afterKill);
    const afterKillStartMs = await waitReady(afterKill, '/readyz');
    await stop(afterKill);
    return {
      kind, firstStartMs, laterStartMs, afterKillStartMs, diskMiB,
      idleRssMiB: idle.rssMiB, idlePssMiB: idle.pssMiB, idleProcesses: idle.processes, berthRssMiB: berthOnly.rssMiB,
      killed: { childProcesses: tree.length, leftRightAfter, goneAfterMs, pidFileLeft, lockLeft },
    };
  } finally {
    for (const c of children) await stop(c);
    await embeddedServerGone(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const runs: Awaited<ReturnType<typeof once>>[] = [];
process.stderr.write(`load average at start: ${readFileSync('/proc/loadavg', 'utf8').trim()}\n`);
for (let i = 0; i < REPEAT; i++) {
  for (const kind of i % 2 ? [...kinds].reverse() : kinds) {
    const r = await once(kind);
    runs.push(r);
    process.stdout.write(JSON.stringify(r) + '\n');
  }
}
process.stderr.write(`load average at end: ${readFileSync('/proc/loadavg', 'utf8').trim()}\n`);
const fields = ['firstStartMs', 'laterStartMs', 'afterKillStartMs', 'diskMiB', 'idleRssMiB', 'idlePssMiB', 'idleProcesses', 'berthRssMiB'] as const;
process.stdout.write(`\n| median of ${REPEAT} | ${kinds.join(' | ')} |\n|---|---|---|\n`);
for (const f of fields) process.stdout.write(`| ${f} | ${kinds.map((k) => median(runs.filter((r) => r.kind === k).map((r) => r[f])).toFixed(0)).join(' | ')} |\n`);
