// The printed table: one row per case and database (median req/s, p50/p99 latency, median ratios
// berth ÷ raw and ÷ bare, target on ÷ raw and verdict), then startup time and memory rows, notes.
import { targetKind, type BenchCase, type DbKind } from './cases.ts';
import type { TreeMemory } from './process-memory.ts';
import { median, type CaseResult } from './measure.ts';

export interface DbRun {
  db: DbKind;
  cases: BenchCase[];
  results: Map<string, CaseResult>;
  startupEmptyMs: number;
  startupExistingMs: number;
  idleRssMiB: number;
  idleAfterSeconds: number;
  peakRssMiB: number;
  /** berth and every process under it (the embedded PostgreSQL server's too) */
  idleTree: TreeMemory;
  peakTree: TreeMemory;
  notes: string[];
}

function verdict(c: BenchCase, r: CaseResult | undefined, db: DbKind): string {
  if (c.skip) return `skipped: ${c.skip}`;
  if (!r) return 'not run';
  const non2xx = r.samples.reduce((n, s) => n + s.non2xx + s.errors, 0);
  if (non2xx > 0) return `INVALID: ${non2xx} non-2xx/errors`;
  const target = c.target?.[targetKind(db)];
  if (target === undefined) return '';
  if (r.rawRatios.length === 0) return 'no raw run';
  return median(r.rawRatios) >= target ? 'met' : 'MISSED';
}

export function formatTable(runs: DbRun[]): string {
  const header = ['db', 'case', 'req/s', 'p50 ms', 'p99 ms', '÷ raw', '÷ bare', 'CPU µs/req server / db / load', 'target', 'result'];
  const numeric = (i: number) => i >= 2 && i <= 7;
  const rows: string[][] = [];
  for (const run of runs) {
    for (const c of run.cases) {
      const r = run.results.get(c.id);
      if (c.server === 'raw' && !r) continue; // raw counterpart of skipped cases
      const med = (f: (s: CaseResult['samples'][number]) => number) => (r ? median(r.samples.map(f)) : NaN);
      const num = (v: number, digits = 0) => (Number.isNaN(v) ? '—' : v.toFixed(digits));
      rows.push([
        run.db, c.label, num(med((s) => s.rps)), num(med((s) => s.p50)), num(med((s) => s.p99)),
        r && r.rawRatios.length ? median(r.rawRatios).toFixed(3) : '', r ? median(r.ratios).toFixed(3) : '—',
        [med((s) => s.cpu.server), med((s) => s.cpu.database), med((s) => s.cpu.load)].map((v) => num(v)).join(' / '), c.target ? `≥ ${c.target[targetKind(run.db)]}` : '', verdict(c, r, run.db),
      ]);
    }
    const fact = (label: string, value: string) => rows.push([run.db, label, '', '', '', '', '', '', '', value]);
    fact('startup to /readyz 200, empty data dir', `${run.startupEmptyMs.toFixed(0)} ms`);
    fact('startup to /readyz 200, existing data dir', `${run.startupExistingMs.toFixed(0)} ms`);
    fact(`idle RSS (VmRSS ${run.idleAfterSeconds} s after start)`, `${run.idleRssMiB.toFixed(0)} MiB`);
    fact('peak RSS (VmHWM after the load)', `${run.peakRssMiB.toFixed(0)} MiB`);
    const tree = (m: TreeMemory) => `RSS ${m.rssMiB.toFixed(0)} MiB, PSS ${m.pssMiB.toFixed(0)} MiB (${m.processes} processes)`;
    fact('idle, berth + all its processes', tree(run.idleTree));
    fact('peak under load, berth + all its processes (sampled)', tree(run.peakTree));
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => (numeric(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ') + ' |';
  const out = [line(header), '|' + widths.map((w, i) => (numeric(i) ? '-'.repeat(w + 1) + ':' : '-'.repeat(w + 2))).join('|') + '|', ...rows.map(line)];
  const notes = runs.flatMap((run) => [...run.notes, ...run.cases.filter((c) => c.note).map((c) => `${c.id}: ${c.note}`)].map((n) => `- ${run.db}: ${n}`));
  return out.join('\n') + (notes.length ? '\n\nNotes:\n' + notes.join('\n') : '') + '\n';
}
