// The printed table of bench/scale.ts: one row per figure and database (throughput, the queue
// rule's verdict, each worker's share, RSS peak and end of every process, CPU seconds of berth vs
// the PostgreSQL server and the server's share), then the top statements when pg_stat_statements
// was available.
import type { ActivityFigure, PhaseFigures, ScaleRun, StatementFigure } from './scale-types.ts';

function cpuRows(f: PhaseFigures): Array<[string, string]> {
  const rows: Array<[string, string]> = f.processes.map((p) => [`CPU s ${p.name}`, p.cpuSeconds.toFixed(1)]);
  if (f.postgresCpuSeconds === null) {
    rows.push(['CPU share of the database', 'in the berth process (PGlite): not separable']);
  } else {
    const total = f.berthCpuSeconds + f.postgresCpuSeconds;
    rows.push(['CPU s PostgreSQL backends of the bench database', f.postgresCpuSeconds.toFixed(1)]);
    rows.push(['CPU s PostgreSQL server processes (shared with other users)', (f.postgresServerCpuSeconds ?? 0).toFixed(1)]);
    rows.push(['CPU share of the database (backends)', `${((100 * f.postgresCpuSeconds) / total).toFixed(0)} % (berth ${f.berthCpuSeconds.toFixed(1)} s, backends ${f.postgresCpuSeconds.toFixed(1)} s, over ${f.seconds.toFixed(0)} s wall)`]);
  }
  return rows;
}

function rssRows(f: PhaseFigures, at?: Record<string, number>): Array<[string, string]> {
  return f.processes.map((p) => [
    `RSS ${p.name} (MiB, sampled each second)`,
    `${at ? `start ${at[p.name]?.toFixed(0)}, ` : ''}peak ${p.peakRssMiB.toFixed(0)}, end ${p.lastRssMiB.toFixed(0)}`,
  ]);
}

function activityLines(db: string, phase: string, a: ActivityFigure[] | null): string[] {
  if (!a || a.length === 0) return [];
  return [`\nWhat the database's backends were running (${db}, ${phase}; pg_stat_activity sampled every 100 ms, share of active samples):`,
    ...a.map((x) => `- ${(100 * x.share).toFixed(0)} % (${x.samples}): ${x.query}`)];
}

function statementLines(db: string, phase: string, s: StatementFigure[] | null): string[] {
  if (!s) return [];
  return [`\nTop statements (${db}, ${phase}; pg_stat_statements):`, ...s.map((x) => `- ${x.totalMs.toFixed(0)} ms, ${x.calls} calls: ${x.query}`)];
}

export function formatScaleTable(runs: ScaleRun[]): string {
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const run of runs) {
    const d = run.deployments;
    const w = run.webhooks;
    const add = (phase: string, label: string, value: string) => rows.push([run.db, phase, label, value]);
    const dep = (label: string, value: string) => add('deployments', label, value);
    dep('processes', run.processes.join(' + '));
    dep('queued (API)', `${d.queued} over ${d.environments} environments in ${d.queueSeconds.toFixed(1)} s (${(d.queued / d.queueSeconds).toFixed(0)}/s)`);
    dep('drain (first request to last finish)', `${d.drainSeconds.toFixed(1)} s, ${d.perSecond.toFixed(1)} deployments/s`);
    const broken = d.order.outOfOrder.length + d.order.overlapping.length + d.order.notDeployed.length;
    dep('queue rule (FIFO, one at a time per environment)', broken === 0
      ? `held: ${d.order.checked} checked`
      : `BROKEN: ${d.order.outOfOrder.length} envs out of order, ${d.order.overlapping.length} overlapping, ${d.order.notDeployed.length} not DEPLOYED`);
    const shareTotal = Object.values(d.shares).reduce((a, b) => a + b, 0);
    dep('ran by (worker log: deployment claimed)', Object.entries(d.shares).map(([n, c]) => `${n} ${c} (${((100 * c) / Math.max(1, shareTotal)).toFixed(0)} %)`).join(', '));
    for (const [l, v] of rssRows(d.figures)) dep(l, v);
    for (const [l, v] of cpuRows(d.figures)) dep(l, v);
    const hook = (label: string, value: string) => add('webhooks', label, value);
    hook('deliveries', `${w.delivered}/${w.expected} distinct (${w.requests} requests) from ${w.deployments} deployments × 2 events × ${w.hooks} webhooks`);
    hook('throughput (first to last receipt)', `${w.seconds.toFixed(1)} s, ${w.perSecond.toFixed(1)} deliveries/s, receiver answers after ${w.receiverMs} ms`);
    hook('in flight at once (at the receiver)', String(w.maxInFlight));
    hook('peak backlog (webhooks.deliver waiting)', String(w.peakBacklog));
    for (const [l, v] of rssRows(w.figures, w.rssAtStart)) hook(l, v);
    for (const [l, v] of cpuRows(w.figures)) hook(l, v);
    notes.push(...statementLines(run.db, 'deployments', d.statements), ...statementLines(run.db, 'webhooks', w.statements));
    notes.push(...activityLines(run.db, 'deployments', d.activity), ...activityLines(run.db, 'webhooks', w.activity));
    if (run.db === 'postgres' && !d.statements) notes.push('- postgres: pg_stat_statements not loaded on this server: no statement figures');
  }
  const header = ['db', 'phase', 'figure', 'value'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ') + ' |';
  const out = [line(header), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...rows.map(line)];
  return out.join('\n') + (notes.length ? '\n' + notes.join('\n') : '') + '\n';
}
