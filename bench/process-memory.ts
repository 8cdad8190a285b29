// Memory of a process and everything under it (berth, and for the embedded PostgreSQL the
// watchdog, the postmaster and its backends), read from /proc: the sum of RSS (counts shared
// pages once per process: an overestimate for PostgreSQL's shared buffers and binaries) and the
// sum of PSS from smaps_rollup (shared pages divided among the processes sharing them: fairer).
import { readdirSync, readFileSync } from 'node:fs';

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** pid and all its descendants */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const ppid = parentOf(pid);
    if (ppid !== undefined) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const walk = (pid: number) => { out.push(pid); for (const c of children.get(pid) ?? []) walk(c); };
  walk(root);
  return out;
}

function kB(text: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

export interface TreeMemory { processes: number; rssMiB: number; pssMiB: number }

/** `exclude`: pids left out (the raw server's backends on the same embedded server) */
export function treeMemory(root: number, exclude: ReadonlySet<number> = new Set()): TreeMemory {
  let rss = 0;
  let pss = 0;
  let processes = 0;
  for (const pid of processTree(root)) {
    if (exclude.has(pid)) continue;
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rss += kB(rollup, 'Rss');
      pss += kB(rollup, 'Pss');
      processes++;
    } catch { /* exited meanwhile */ }
  }
  return { processes, rssMiB: rss / 1024, pssMiB: pss / 1024 };
}

/** samples treeMemory every intervalMs; stop() returns the highest sums seen */
export function sampleTreePeak(root: number, exclude: () => Promise<ReadonlySet<number>> = async () => new Set(), intervalMs = 500): { stop(): Promise<TreeMemory> } {
  let peak: TreeMemory = treeMemory(root);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const now = treeMemory(root, await exclude().catch(() => new Set<number>()));
      peak = { processes: Math.max(peak.processes, now.processes), rssMiB: Math.max(peak.rssMiB, now.rssMiB), pssMiB: Math.max(peak.pssMiB, now.pssMiB) };
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return { async stop() { stopped = true; await loop; return peak; } };
}

/** the pids of backends whose application_name is `name`, on the server of `url` */
export function backendsOf(url: string, name: string): { pids(): Promise<ReadonlySet<number>>; close(): Promise<void> } {
  let client: Promise<import('pg').Client> | undefined;
  const connect = async () => {
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: url, application_name: name });
    await c.connect();
    return c;
  };
  return {
    async pids() {
      client ??= connect();
      const { rows } = await (await client).query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [name]);
      return new Set(rows.map((r) => r.pid));
    },
    async close() { if (client) await (await client).end().catch(() => {}); },
  };
}
