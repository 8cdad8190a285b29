// CPU time spent while a case runs, split by who spent it (issue 15: "the database's share"):
// the server process under load, every PostgreSQL process on the machine (the server of
// DATABASE_URL or berth's embedded one; PGlite runs inside berth), and this process (autocannon).
// Read from /proc (utime + stime, in clock ticks of 10 ms); on a machine without /proc every
// figure is NaN and the table shows a dash.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

export interface CpuSnapshot { server: number; database: number; load: number }

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

function postgresSeconds(): number {
  let total = 0;
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let comm: string;
      try {
        comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        continue; // gone meanwhile
      }
      if (comm === 'postgres') total += processSeconds(pid) || 0;
    }
  } catch {
    return NaN;
  }
  return total;
}

export function cpuSnapshot(serverPid: number | undefined): CpuSnapshot {
  const own = process.cpuUsage();
  return { server: serverPid ? processSeconds(serverPid) : NaN, database: postgresSeconds(), load: (own.user + own.system) / 1e6 };
}

/** microseconds of CPU per request between two snapshots */
export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): CpuSnapshot {
  const per = (k: keyof CpuSnapshot) => ((after[k] - before[k]) * 1e6) / requests;
  return { server: per('server'), database: per('database'), load: per('load') };
}
