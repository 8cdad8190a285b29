// CPU time spent while a case runs, split by who spent it (issue 15: "the database's share"):
// the server process under load, every PostgreSQL process on the machine (the server of
// DATABASE_URL or berth's embedded one; PGlite runs inside berth), and this process (autocannon).
// Read from /proc (utime + stime, in clock ticks of 10 ms); on a machine without /proc every
// figure is NaN and the table shows a dash.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

export interface CpuSnapshot {
  server: number; database: number; load: number;
  /** each PostgreSQL process's CPU seconds, so a delta counts only processes seen at its end */
  databaseByPid?: ReadonlyMap<string, number>;
}

/** CPU seconds of one process (utime + stime), NaN when it cannot be read */
function processSeconds(pid: number | string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces: fields are counted after its closing parenthesis
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** every PostgreSQL process's CPU seconds by pid, null without /proc */
function postgresByPid(): Map<string, number> | null {
  const out = new Map<string, number>();
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let comm: string;
      try {
        comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        continue; // gone meanwhile
      }
      if (comm === 'postgres') out.set(pid, processSeconds(pid) || 0);
    }
  } catch {
    return null;
  }
  return out;
}

export function cpuSnapshot(serverPid: number | undefined): CpuSnapshot {
  const own = process.cpuUsage();
  const byPid = postgresByPid();
  const database = byPid ? [...byPid.values()].reduce((a, b) => a + b, 0) : NaN;
  return { server: serverPid ? processSeconds(serverPid) : NaN, database, load: (own.user + own.system) / 1e6, ...(byPid ? { databaseByPid: byPid } : {}) };
}

/**
 * the database's CPU seconds between two snapshots: per process seen at the end, from 0 when it
 * started meanwhile. A sum over all processes went negative whenever one exited in between (an
 * autovacuum worker, another client's backend): the CPU of a process gone before the end is lost.
 */
function databaseSeconds(before: CpuSnapshot, after: CpuSnapshot): number {
  if (!before.databaseByPid || !after.databaseByPid) return after.database - before.database;
  let total = 0;
  for (const [pid, seconds] of after.databaseByPid) total += Math.max(0, seconds - (before.databaseByPid.get(pid) ?? 0));
  return total;
}

/** microseconds of CPU per request between two snapshots */
export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): CpuSnapshot {
  const per = (k: 'server' | 'load') => ((after[k] - before[k]) * 1e6) / requests;
  return { server: per('server'), database: (databaseSeconds(before, after) * 1e6) / requests, load: per('load') };
}
