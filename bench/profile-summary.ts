// Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. BENCH_PROFILE=dir npm run bench):
// self time by function and by area (berth's own files by folder, node_modules by package).
// Usage: node bench/profile-summary.ts <file.cpuprofile> [top=30] [last=seconds: only the samples of the
// profile's final N seconds, e.g. the load of the last case run, leaving startup out]
import { readFileSync } from 'node:fs';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
const [file, topArg, lastArg] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/profile-summary.ts <file.cpuprofile> [top]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
const times: number[] = [];
profile.timeDeltas.reduce((t, d, i) => (times[i] = t + d), 0);
const from = lastArg ? times[times.length - 1]! - Number(lastArg) * 1e6 : -Infinity;
profile.samples.forEach((id, i) => {
  if (times[i]! >= from) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const IDLE = new Set(['(idle)', '(program)']);
// percentages are of busy time: idle and "program" samples are left out
const busyIds = [...self.keys()].filter((id) => !IDLE.has(byId.get(id)!.callFrame.functionName));
const total = busyIds.reduce((a, id) => a + self.get(id)!, 0);

function area(url: string): string {
  if (!url) return '(native/gc/idle)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  const own = /\/(src|bench)\/(.+)\/[^/]+$/.exec(url);
  if (own) return `${own[1]}/${own[2]}`;
  if (url.startsWith('node:')) return url.split('/')[0]!;
  return url;
}

const fns = new Map<string, number>();
const areas = new Map<string, number>();
for (const id of busyIds) {
  const t = self.get(id)!;
  const n = byId.get(id)!;
  const key = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + t);
  areas.set(area(n.callFrame.url), (areas.get(area(n.callFrame.url)) ?? 0) + t);
}
const pct = (t: number) => ((100 * t) / total).toFixed(1).padStart(5) + '%';
const top = Number(topArg ?? 30);
console.log(`busy ${(total / 1e6).toFixed(1)} s sampled\n\nby area:`);
for (const [k, t] of [...areas].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${pct(t)}  ${k}`);
console.log('\nby function (self time):');
for (const [k, t] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);
