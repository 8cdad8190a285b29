// Autoscaling decisions on the Docker engine (decision 0338), pure: which services are autoscaled
// and between which bounds, a replica's CPU and memory use over the window from Docker's
// counters, and the Kubernetes HorizontalPodAutoscaler's rules on them — desired =
// ceil(replicas × utilization / target) per metric, the larger wins; a tolerance of 0.1; replicas
// not measured over a whole window count as idle on a scale-up and as fully used on a scale-down;
// a scale-down only to the highest recommendation of the stabilization window; never below min or
// above max — with one step of one replica per decision. The worker (src/workers/autoscale.ts)
// samples, keeps the state and acts; nothing here reads a clock or the daemon.

/** the HPA's default tolerance: a ratio within 10% of the target changes nothing */
const HPA_TOLERANCE = 0.1;

/** max_running_instances -1 ("no limit") on the docker engine, whose replicas share one host */
export const UNLIMITED_MAX_REPLICAS = 10;

export interface AutoscalePolicy {
  min: number;
  max: number;
  /** hpa.cpu.average_utilization_percent; null: CPU does not drive scaling (0) */
  cpuTarget: number | null;
  /** hpa.memory.average_utilization_percent; null: memory does not drive scaling */
  memoryTarget: number | null;
}

const intOr = (value: unknown, fallback: number): number => (Number.isInteger(value) ? value as number : fallback);
const percent = (value: unknown): number | null => (Number.isInteger(value) && (value as number) > 0 && (value as number) <= 100 ? value as number : null);

/** the upper bound of a service's replicas: max_running_instances, -1 read as UNLIMITED_MAX_REPLICAS, never below min */
export function replicaBounds(spec: Readonly<Record<string, unknown>>): { min: number; max: number } {
  const min = Math.max(1, intOr(spec.min_running_instances, 1));
  const raw = intOr(spec.max_running_instances, min);
  return { min, max: Math.max(min, raw === -1 ? UNLIMITED_MAX_REPLICAS : raw) };
}

/**
 * How a service scales, or null when it does not: its max is not above its min, no metric has a
 * target, or it keeps data on a volume (its replicas would share one data directory).
 */
export function autoscalePolicy(spec: Readonly<Record<string, unknown>>, advanced: Readonly<Record<string, unknown>>): AutoscalePolicy | null {
  const { min, max } = replicaBounds(spec);
  if (max <= min) return null;
  if (Array.isArray(spec.storage) && spec.storage.length > 0) return null;
  const cpuTarget = percent(advanced['hpa.cpu.average_utilization_percent'] === undefined ? 60 : advanced['hpa.cpu.average_utilization_percent']);
  const memoryTarget = percent(advanced['hpa.memory.average_utilization_percent']);
  if (cpuTarget === null && memoryTarget === null) return null;
  return { min, max, cpuTarget, memoryTarget };
}

/** one reading of a replica's counters (Docker's stats) */
export interface ReplicaSample {
  /** when Docker read them, ms since the epoch */
  at: number;
  /** CPU time used since the container started, ns */
  cpuNanos: number;
  /** CPUs the replica may use (NanoCpus / 1e9) */
  cpuLimit: number;
  memoryBytes: number;
  memoryLimitBytes: number;
}

export interface ReplicaUsage { cpuPercent: number; memoryPercent: number; spanMs: number }

/**
 * A replica's use over the window ending at its last sample: CPU time over that span as a share
 * of its CPU limit, memory averaged over the samples. Null when it has not been sampled over
 * (nine tenths of) a whole window yet, or its counters went back (Docker restarted it).
 */
export function replicaUsage(samples: readonly ReplicaSample[], windowMs: number): ReplicaUsage | null {
  const last = samples[samples.length - 1];
  if (!last) return null;
  let base: ReplicaSample | undefined;
  for (let i = samples.length - 2; i >= 0; i--) {
    if (last.at - samples[i]!.at >= windowMs * 0.9) { base = samples[i]; break; }
  }
  if (!base || last.cpuNanos < base.cpuNanos || last.cpuLimit <= 0) return null;
  const spanMs = last.at - base.at;
  const inWindow = samples.filter((s) => s.at >= base!.at);
  const memory = inWindow.reduce((sum, s) => sum + (s.memoryLimitBytes > 0 ? s.memoryBytes / s.memoryLimitBytes : 0), 0) / inWindow.length;
  return { cpuPercent: ((last.cpuNanos - base.cpuNanos) / (spanMs * 1e6 * last.cpuLimit)) * 100, memoryPercent: memory * 100, spanMs };
}

/** the samples still needed: those of the last two windows */
export function keptSamples(samples: readonly ReplicaSample[], windowMs: number): ReplicaSample[] {
  const last = samples[samples.length - 1];
  return last ? samples.filter((s) => last.at - s.at <= windowMs * 2) : [];
}

/**
 * The HPA's replica count for one metric (replica_calculator.go, GetResourceReplicas): `measured`
 * holds the utilization (% of the limit) of each replica measured over the window, `missing`
 * how many serving replicas were not.
 */
export function metricReplicas(current: number, measured: readonly number[], missing: number, target: number, tolerance = HPA_TOLERANCE): number {
  if (measured.length === 0) return current;
  const ratioOf = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length / target;
  const ratio = ratioOf(measured);
  if (missing === 0) return Math.abs(ratio - 1) <= tolerance ? current : Math.ceil(ratio * measured.length);
  // not measured yet: idle on a scale-up, fully used (at least the target) on a scale-down
  const assumed = ratio < 1 ? Math.max(100, target) : ratio > 1 ? 0 : null;
  const all = assumed === null ? [...measured] : [...measured, ...Array.from({ length: missing }, () => assumed)];
  const next = ratioOf(all);
  if (Math.abs(next - 1) <= tolerance || (ratio < 1 && next > 1) || (ratio > 1 && next < 1)) return current;
  const replicas = Math.ceil(next * all.length);
  if ((next < 1 && replicas > current) || (next > 1 && replicas < current)) return current;
  return replicas;
}

export interface MetricReading { name: 'CPU' | 'memory'; averagePercent: number; targetPercent: number; replicas: number }

/** each metric's recommendation and the larger one; null when no replica was measured over a whole window */
export function recommend(policy: AutoscalePolicy, current: number, usages: readonly ReplicaUsage[]): { replicas: number; metrics: MetricReading[] } | null {
  if (usages.length === 0) return null;
  const missing = Math.max(0, current - usages.length);
  const metrics: MetricReading[] = [];
  const read = (name: MetricReading['name'], target: number | null, values: number[]) => {
    if (target === null) return;
    const averagePercent = values.reduce((a, b) => a + b, 0) / values.length;
    metrics.push({ name, averagePercent, targetPercent: target, replicas: metricReplicas(current, values, missing, target) });
  };
  read('CPU', policy.cpuTarget, usages.map((u) => u.cpuPercent));
  read('memory', policy.memoryTarget, usages.map((u) => u.memoryPercent));
  return { replicas: Math.max(...metrics.map((m) => m.replicas)), metrics };
}

/** what the decisions of one service remember: since when they are made, and the recent recommendations */
export interface ScaleHistory { since: number; recommendations: Array<{ at: number; replicas: number }> }

export interface Decision {
  /** the replica count to reach now: the current one, or one step towards the stabilized recommendation */
  next: number;
  /** the recommendation after stabilization and bounds */
  target: number;
  /** what decided: the metrics, or a bound the current count is outside of */
  why: 'metrics' | 'min' | 'max';
  history: ScaleHistory;
}

/**
 * The HPA controller's step (normalizeDesiredReplicasWithBehaviors with the default scale-up
 * behaviour and a scale-down stabilization window), then one replica at a time: a scale-up
 * follows the recommendation at once; a scale-down goes to the highest recommendation of the last
 * `downWindowMs`, and not before decisions have been made for a whole window (a process that just
 * took over knows no history).
 */
export function decide(policy: AutoscalePolicy, current: number, recommended: number | null, history: ScaleHistory, now: number, downWindowMs: number): Decision {
  const recommendations = history.recommendations.filter((r) => now - r.at <= downWindowMs);
  if (recommended !== null) recommendations.push({ at: now, replicas: recommended });
  const kept: ScaleHistory = { since: history.since, recommendations };
  let stabilized = current;
  if (recommended !== null && recommended > current) stabilized = recommended;
  else if (recommended !== null && now - history.since >= downWindowMs) stabilized = Math.min(current, Math.max(...recommendations.map((r) => r.replicas)));
  const target = Math.min(policy.max, Math.max(policy.min, stabilized));
  const why = current < policy.min ? 'min' : current > policy.max ? 'max' : 'metrics';
  const next = target > current ? current + 1 : target < current ? current - 1 : current;
  return { next, target, why, history: kept };
}

const rounded = (n: number) => `${Math.round(n)}%`;

/** the log line of a scale event, e.g. "Scaled up to 2 replicas: CPU 87% of limit over 30 s (target 60%)" */
export function scaleMessage(from: number, to: number, decision: Pick<Decision, 'why'>, metrics: readonly MetricReading[], windowSeconds: number, policy: AutoscalePolicy, downWindowSeconds: number): string {
  const head = `Scaled ${to > from ? 'up' : 'down'} to ${to} replica${to === 1 ? '' : 's'}`;
  if (decision.why === 'min') return `${head}: min_running_instances is ${policy.min}`;
  if (decision.why === 'max') return `${head}: max_running_instances is ${policy.max}`;
  const parts = metrics.map((m) => `${m.name} ${rounded(m.averagePercent)} of limit`);
  const targets = metrics.map((m) => `${metrics.length > 1 ? `${m.name} ` : ''}target ${m.targetPercent}%`).join(', ');
  const why = `${parts.join(', ')} over ${windowSeconds} s (${targets})`;
  return to > from ? `${head}: ${why}` : `${head}: ${why}; lower for the last ${downWindowSeconds} s`;
}
