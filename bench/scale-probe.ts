// What bench/scale.ts reads from the outside while a phase runs: the RSS of every berth process
// sampled each second (peak and last), CPU time (utime + stime from /proc/<pid>/stat) of the berth
// processes and of every `postgres` process on the machine (the server's backends are children of
// the postmaster; processes that come and go during the phase are counted while seen), and the
// top statements of pg_stat_statements when the server has it loaded (never required).
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { pidMemoryMiB } from './servers.ts';
import type { ActivityFigure, PhaseFigures, ProcessFigures, StatementFigure } from './scale-types.ts';

const TICKS_PER_SECOND = 100; // USER_HZ; `getconf CLK_TCK` is 100 on Linux

/** utime + stime of a process in seconds, or null when it is gone */
function cpuSeconds(pid: number): number | null {
  let stat: string;
  try { stat = readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch { return null; }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd (state) on
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // 14th and 15th of the line
}

/**
 * pids of the processes named `postgres` that work for the bench: the backends connected to its
 * database (their title reads `postgres: 15/main: user <database> 127.0.0.1(port) …`) and the
 * server's own processes (checkpointer, WAL writer, autovacuum…, shared with anyone else using
 * the server); backends of other databases (other people's tests) are left out
 */
function postgresPids(database: string): Array<{ pid: number; backend: boolean }> {
  const pids: Array<{ pid: number; backend: boolean }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const backend = /\(\d+\)|\[local\]/.test(title);
      if (!backend || title.includes(` ${database} `)) pids.push({ pid: Number(entry), backend });
    } catch { /* gone */ }
  }
  return pids;
}

/**
 * samples the named processes every `everyMs` until stop(); CPU is the delta between start and
 * stop (postgres: per pid, from the first sight of it, so backends that exit mid-phase still count
 * up to their last sample)
 */
export function startProbe(processes: Array<{ name: string; pid: number }>, options: { postgresDatabase?: string | undefined; everyMs?: number }) {
  const startedAt = performance.now();
  const cpuAtStart = new Map(processes.map((p) => [p.pid, cpuSeconds(p.pid) ?? 0]));
  const series = new Map<number, number[]>(processes.map((p) => [p.pid, []]));
  const pgFirst = new Map<number, number>();
  const pgBackend = new Map<number, boolean>();
  const pgLast = new Map<number, number>();
  const samplePostgres = () => {
    for (const { pid, backend } of postgresPids(options.postgresDatabase!)) {
      pgBackend.set(pid, backend);
      const cpu = cpuSeconds(pid);
      if (cpu === null) continue;
      if (!pgFirst.has(pid)) pgFirst.set(pid, cpu);
      pgLast.set(pid, cpu);
    }
  };
  const sample = () => {
    for (const p of processes) {
      const rss = pidMemoryMiB(p.pid, 'VmRSS');
      if (!Number.isNaN(rss)) series.get(p.pid)!.push(rss);
    }
    if (options.postgresDatabase) samplePostgres();
  };
  sample();
  const timer = setInterval(sample, options.everyMs ?? 1000);
  return {
    /** the newest RSS sample of each process (for the progress line) */
    current(): string {
      return processes.map((p) => `${p.name} ${Math.round(series.get(p.pid)!.at(-1) ?? NaN)} MiB`).join(', ');
    },
    stop(): PhaseFigures {
      clearInterval(timer);
      sample();
      const figures = processes.map((p): ProcessFigures => {
        const rssSeries = series.get(p.pid)!;
        return {
          name: p.name, pid: p.pid, rssSeries,
          peakRssMiB: Math.max(...rssSeries), lastRssMiB: rssSeries.at(-1) ?? NaN,
          cpuSeconds: (cpuSeconds(p.pid) ?? 0) - cpuAtStart.get(p.pid)!,
        };
      });
      let postgresCpu: number | null = null;
      let serverCpu: number | null = null;
      if (options.postgresDatabase) {
        postgresCpu = 0;
        serverCpu = 0;
        for (const [pid, first] of pgFirst) {
          if (pgBackend.get(pid)) postgresCpu += pgLast.get(pid)! - first;
          else serverCpu += pgLast.get(pid)! - first;
        }
      }
      return {
        seconds: (performance.now() - startedAt) / 1000,
        processes: figures,
        berthCpuSeconds: figures.reduce((s, p) => s + p.cpuSeconds, 0),
        postgresCpuSeconds: postgresCpu,
        postgresServerCpuSeconds: serverCpu,
      };
    },
  };
}

/** pg_stat_statements of the bench's database, when the server loaded it; null otherwise */
export async function statementSnapshot(databaseUrl: string): Promise<Map<string, StatementFigure> | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const loaded = await client.query(`select 1 from pg_extension where extname = 'pg_stat_statements'`);
    if (loaded.rowCount === 0) return null;
    const rows = await client.query<{ queryid: string; query: string; calls: string; total_ms: number }>(
      `select queryid::text, query, calls::text, total_exec_time as total_ms from pg_stat_statements
        where dbid = (select oid from pg_database where datname = current_database())`);
    return new Map(rows.rows.map((r) => [r.queryid, { query: r.query, calls: Number(r.calls), totalMs: r.total_ms }]));
  } catch {
    return null; // listed but not loaded (shared_preload_libraries), or no permission
  } finally {
    await client.end();
  }
}

/** the statements that took the most execution time between two snapshots */
export function topStatements(before: Map<string, StatementFigure> | null, after: Map<string, StatementFigure> | null, count = 8): StatementFigure[] | null {
  if (!before || !after) return null;
  const deltas: StatementFigure[] = [];
  for (const [id, a] of after) {
    const b = before.get(id);
    const calls = a.calls - (b?.calls ?? 0);
    if (calls > 0) deltas.push({ query: a.query.replace(/\s+/g, ' ').slice(0, 110), calls, totalMs: a.totalMs - (b?.totalMs ?? 0) });
  }
  return deltas.sort((x, y) => y.totalMs - x.totalMs).slice(0, count);
}

/**
 * a sampling profile of the database when pg_stat_statements is not there: every `everyMs`, the
 * statements the bench database's backends are running (pg_stat_activity, state active); stop()
 * gives the most seen, with their share of all active samples
 */
export async function startActivitySampler(databaseUrl: string, everyMs = 100) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const seen = new Map<string, number>();
  let total = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const rows = await client.query<{ query: string }>(
        `select query from pg_stat_activity where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`).catch(() => ({ rows: [] }));
      for (const r of rows.rows) {
        const key = r.query.replace(/\s+/g, ' ').trim().slice(0, 110);
        seen.set(key, (seen.get(key) ?? 0) + 1);
        total++;
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop(count = 6): Promise<ActivityFigure[]> {
      running = false;
      await loop;
      await client.end();
      return [...seen].sort((a, b) => b[1] - a[1]).slice(0, count).map(([query, samples]) => ({ query, samples, share: samples / Math.max(1, total) }));
    },
  };
}
