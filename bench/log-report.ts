// The figures of the log retention bench (bench/log-retention.ts) and the table it prints: what
// the table's rows and size did once the service reached its count (flat: the second half of the
// run against its middle), and the log endpoint's latency at the end against the start.
// `node bench/log-report.ts <BENCH_JSON file>` prints the table again from a saved run.
import { readFileSync } from 'node:fs';

export interface Sample { second: number; written: number; rows: number; serviceRows: number; tableBytes: number; totalBytes: number }
export interface Probe { path: string; requests: number; lines: number; p50: number; p90: number; p99: number; mean: number }
export interface LogBenchRun {
  db: string; seconds: number; rate: number; keep: number; interval: number; batch: number; replicas: number;
  written: number; achievedRate: number; samples: Sample[]; start: Probe[]; end: Probe[]; otherServiceUntouched: boolean;
}

const MiB = (bytes: number) => (bytes / 1_048_576).toFixed(1);
const ratio = (a: number, b: number) => (a / b).toFixed(2);

export function formatLogReport(r: LogBenchRun): string {
  const last = r.samples.at(-1)!;
  const bound = r.samples.find((s) => r.keep > 0 && s.serviceRows >= r.keep) ?? r.samples[0]!;
  const middle = r.samples.find((s) => s.second >= r.seconds / 2) ?? last;
  const half = r.samples.filter((s) => s.second >= r.seconds / 2);
  const spread = (f: (s: Sample) => number) => ratio(Math.max(...half.map(f)), Math.min(...half.map(f)));
  const sizes = (f: (s: Sample) => number) => `${MiB(f(bound))} at ${bound.second} s → ${MiB(f(middle))} at ${middle.second} s → ${MiB(f(last))} MiB at the end`;
  const rows: Array<[string, string]> = [
    ['settings', `${r.rate} lines/s for ${r.seconds} s from ${r.replicas} replicas; keep ${r.keep || 'all'}, prune every ${r.interval} s, ${r.batch} a statement`],
    ['lines written (achieved rate)', `${r.written} (${r.achievedRate.toFixed(0)}/s)`],
    ['the service\'s rows at the end', `${last.serviceRows}`],
    ['table rows: end ÷ halfway', `${ratio(last.rows, middle.rows)} (${middle.rows} → ${last.rows})`],
    ['table size', sizes((s) => s.tableBytes)],
    ['  end ÷ halfway', ratio(last.tableBytes, middle.tableBytes)],
    ['with indexes', sizes((s) => s.totalBytes)],
    ['  end ÷ halfway', ratio(last.totalBytes, middle.totalBytes)],
    ['second half, max ÷ min: rows, size, with indexes', `${spread((s) => s.rows)}, ${spread((s) => s.tableBytes)}, ${spread((s) => s.totalBytes)}`],
    ['without retention the table would hold', `${r.written + 100} rows (${ratio(r.written + 100, last.rows)}× these)`],
    ['another service\'s log unchanged', r.otherServiceUntouched ? 'yes' : 'NO'],
  ];
  for (const [i, s] of r.start.entries()) {
    const e = r.end[i]!;
    const f = (p: Probe) => `${p.p50.toFixed(1)} / ${p.p99.toFixed(1)} / ${p.mean.toFixed(1)}`;
    rows.push([`GET ${s.path} (${s.lines} lines) p50 / p99 / mean ms`, `${f(s)} → ${f(e)} (${s.requests}, ${e.requests} requests)`]);
    rows.push(['  end ÷ start: p50, p99, mean', `${ratio(e.p50, s.p50)}, ${ratio(e.p99, s.p99)}, ${ratio(e.mean, s.mean)}`]);
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  return [`| ${'figure'.padEnd(width)} | ${r.db} |`, `|${'-'.repeat(width + 2)}|---|`, ...rows.map(([k, v]) => `| ${k.padEnd(width)} | ${v} |`)].join('\n') + '\n';
}

if (import.meta.main) {
  for (const run of JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LogBenchRun[]) process.stdout.write(formatLogReport(run));
}
