// Load generation with autocannon (10 connections) and the round structure: a warm-up pass, then
// rounds in which every case runs once (order rotated each round); each case's ratios to the bare
// route and to its raw counterpart are computed within its round, and the table shows medians.
import autocannon from 'autocannon';
import type { BenchCase } from './cases.ts';
import { cpuPerRequest, cpuSnapshot, type CpuSnapshot } from './cpu.ts';

const CONNECTIONS = 10;

export interface Sample { rps: number; p50: number; p99: number; non2xx: number; errors: number; cpu: CpuSnapshot }
export interface CaseResult {
  samples: Sample[];
  /** ÷ the bare route, per round */
  ratios: number[];
  /** ÷ the case's raw counterpart, per round (empty without one) */
  rawRatios: number[];
}

let uniqueCounter = 0;
const RUN_TAG = Date.now().toString(36);

export async function runOnce(baseUrl: string, token: string, c: BenchCase, seconds: number, amount?: number, serverPid?: number): Promise<Sample> {
  const req = c.request!;
  const headers: Record<string, string> = c.server === 'berth' ? { authorization: `Token ${token}` } : {};
  if (req.body !== undefined) headers['content-type'] = 'application/json';
  const template = req.body;
  const cpuBefore = cpuSnapshot(serverPid);
  const result = await autocannon({
    url: baseUrl,
    connections: CONNECTIONS,
    ...(amount ? { amount } : { duration: seconds }),
    timeout: 30,
    requests: [{
      method: req.method,
      path: req.path,
      headers,
      body: template,
      ...(c.unique && template
        ? { setupRequest: (r) => ({ ...r, body: template.replace('__NAME__', `bench-${RUN_TAG}-${++uniqueCounter}`) }) }
        : {}),
    }],
  });
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpu: cpuPerRequest(cpuBefore, cpuSnapshot(serverPid), Math.max(1, result.requests.total)),
  };
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export async function runRounds(
  cases: BenchCase[],
  urlOf: (c: BenchCase) => string,
  pidOf: (c: BenchCase) => number | undefined,
  token: string,
  options: { rounds: number; seconds: number; amount?: number | undefined; warmupSeconds: number; log: (line: string) => void },
): Promise<Map<string, CaseResult>> {
  // a raw case runs only when a berth case that is not skipped is divided by it or measured beside it
  const used = new Set(cases.filter((c) => !c.skip && c.request).flatMap((c) => [c.rawId, ...(c.diagnosticIds ?? [])]));
  const active = cases.filter((c) => !c.skip && c.request && (c.server !== 'raw' || used.has(c.id)));
  const results = new Map<string, CaseResult>(active.map((c) => [c.id, { samples: [], ratios: [], rawRatios: [] }]));
  if (options.warmupSeconds > 0) {
    options.log(`warm-up: ${active.length} cases × ${options.warmupSeconds} s`);
    for (const c of active) await runOnce(urlOf(c), token, c, options.warmupSeconds);
  }
  for (let round = 0; round < options.rounds; round++) {
    const order = active.map((_, i) => active[(i + round) % active.length]!);
    const inRound = new Map<string, Sample>();
    for (const c of order) {
      const s = await runOnce(urlOf(c), token, c, options.seconds, options.amount, pidOf(c));
      inRound.set(c.id, s);
      results.get(c.id)!.samples.push(s);
    }
    const bare = inRound.get('bare')!;
    for (const c of active) {
      const rps = inRound.get(c.id)!.rps;
      results.get(c.id)!.ratios.push(rps / bare.rps);
      const raw = c.rawId ? inRound.get(c.rawId) : undefined;
      if (raw) results.get(c.id)!.rawRatios.push(rps / raw.rps);
    }
    options.log(`round ${round + 1}/${options.rounds}: ` + active.map((c) => `${c.id} ${Math.round(inRound.get(c.id)!.rps)}/s`).join(', '));
  }
  return results;
}
