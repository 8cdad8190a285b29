// Unit tests of the autoscaling rules (autoscale.rules.ts): which services scale, a replica's use
// over the window from Docker's counters, the HPA's replica calculation and behaviour, the
// messages, and how many replicas a deployment keeps (src/engine/docker/autoscale.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../config/config.ts';
import { keptReplicas } from '../../engine/index.ts';
import {
  UNLIMITED_MAX_REPLICAS, autoscalePolicy, decide, keptSamples, metricReplicas, recommend, replicaBounds, replicaUsage, scaleMessage,
  type AutoscalePolicy, type ReplicaSample, type ScaleHistory,
} from './autoscale.rules.ts';

const CPU60: AutoscalePolicy = { min: 1, max: 3, cpuTarget: 60, memoryTarget: null };
const GiB = 1024 ** 3;

test('config: AUTOSCALE_INTERVAL_SECONDS 15 and AUTOSCALE_DOWN_STABILIZATION_SECONDS 300 (the HPA\'s) by default', () => {
  const c = loadConfig({});
  assert.equal(c.autoscaleIntervalSeconds, 15);
  assert.equal(c.autoscaleDownStabilizationSeconds, 300);
  const set = loadConfig({ AUTOSCALE_INTERVAL_SECONDS: '1', AUTOSCALE_DOWN_STABILIZATION_SECONDS: '0' });
  assert.deepEqual([set.autoscaleIntervalSeconds, set.autoscaleDownStabilizationSeconds], [1, 0]);
  assert.throws(() => loadConfig({ AUTOSCALE_INTERVAL_SECONDS: '0' }), /AUTOSCALE_INTERVAL_SECONDS must be between 1 and 3600/);
});

test('policy: autoscaled when max is above min and a metric has a target', () => {
  assert.deepEqual(autoscalePolicy({ min_running_instances: 1, max_running_instances: 3 }, { 'hpa.cpu.average_utilization_percent': 60, 'hpa.memory.average_utilization_percent': null }), CPU60);
  assert.equal(autoscalePolicy({ min_running_instances: 2, max_running_instances: 2 }, {}), null, 'max = min');
  assert.equal(autoscalePolicy({ min_running_instances: 0, max_running_instances: 1 }, {}), null, 'min 0 runs one replica all the same');
  assert.deepEqual(autoscalePolicy({ min_running_instances: 1, max_running_instances: -1 }, {}), { ...CPU60, max: UNLIMITED_MAX_REPLICAS }, '-1: no limit, on one host 10; the CPU target defaults to 60');
  assert.deepEqual(autoscalePolicy({ min_running_instances: 1, max_running_instances: 3 }, { 'hpa.cpu.average_utilization_percent': 0, 'hpa.memory.average_utilization_percent': 80 }),
    { min: 1, max: 3, cpuTarget: null, memoryTarget: 80 }, 'CPU 0 turns CPU off');
  assert.equal(autoscalePolicy({ min_running_instances: 1, max_running_instances: 3 }, { 'hpa.cpu.average_utilization_percent': 0 }), null, 'no metric');
  assert.equal(autoscalePolicy({ min_running_instances: 1, max_running_instances: 3, storage: [{ id: 'x' }] }, {}), null, 'a volume is never shared');
  assert.deepEqual(replicaBounds({ min_running_instances: 12, max_running_instances: -1 }), { min: 12, max: 12 });
});

const sample = (at: number, cpuSeconds: number, memoryGiB = 0.25, cpuLimit = 0.5): ReplicaSample =>
  ({ at, cpuNanos: cpuSeconds * 1e9, cpuLimit, memoryBytes: memoryGiB * GiB, memoryLimitBytes: GiB });

test('a replica\'s use over the window: CPU time over the span as a share of its limit, memory averaged', () => {
  // 0.5 CPU for 30 s is 15 CPU-seconds: 13.05 used is 87%
  const usage = replicaUsage([sample(0, 100), sample(15_000, 106, 0.5), sample(30_000, 113.05, 0.75)], 30_000);
  assert.ok(usage);
  assert.equal(Math.round(usage.cpuPercent), 87);
  assert.equal(usage.memoryPercent, 50);
  assert.equal(usage.spanMs, 30_000);
  assert.equal(replicaUsage([sample(0, 1), sample(15_000, 2)], 30_000), null, 'not observed over a whole window yet');
  assert.ok(replicaUsage([sample(0, 1), sample(27_500, 2)], 30_000), 'nine tenths of the window will do (sampling jitter)');
  assert.equal(replicaUsage([sample(0, 50), sample(30_000, 2)], 30_000), null, 'counters went back: Docker restarted it');
  // the newest sample covering the window is the base: older ones do not dilute a change
  const recent = replicaUsage([sample(0, 0), sample(15_000, 0), sample(30_000, 0), sample(45_000, 15)], 30_000);
  assert.equal(Math.round(recent!.cpuPercent), 100);
  assert.deepEqual(keptSamples([sample(0, 0), sample(10_000, 0), sample(70_000, 0)], 30_000).map((s) => s.at), [10_000, 70_000]);
});

test('the HPA\'s replica count: ceil(replicas × utilization / target), within 10% nothing changes', () => {
  assert.equal(metricReplicas(1, [87], 0, 60), 2);
  assert.equal(metricReplicas(1, [100], 0, 60), 2, 'a saturated replica at 60%: 1.67 → 2');
  assert.equal(metricReplicas(2, [100, 100], 0, 60), 4);
  assert.equal(metricReplicas(1, [65], 0, 60), 1, 'ratio 1.08: within the tolerance');
  assert.equal(metricReplicas(3, [55, 54, 56], 0, 60), 3, 'ratio 0.92: within the tolerance');
  assert.equal(metricReplicas(3, [10, 5, 15], 0, 60), 1);
  assert.equal(metricReplicas(3, [0, 0, 0], 0, 60), 0, 'idle: 0, and min applies (decide)');
});

test('replicas not measured over a window: idle on a scale-up, fully used on a scale-down; no change of direction', () => {
  // one just added (missing) and one at 90%: 45% on average, a scale-down, not an up: stay
  assert.equal(metricReplicas(2, [90], 1, 60), 2);
  // both saturated and a third starting: (100 + 100 + 0) / 3 = 67%, ratio 1.11 → ceil(3.33) = 4
  assert.equal(metricReplicas(3, [100, 100], 1, 60), 4);
  // scale-down with one not measured: (10 + 10 + 100) / 3 = 40%, 0.67 → 2 rather than 1
  assert.equal(metricReplicas(3, [10, 10], 1, 60), 2);
  // would go down with the missing one counted at 100% but that crosses the target: stay
  assert.equal(metricReplicas(2, [50], 1, 60), 2);
  assert.equal(metricReplicas(2, [], 2, 60), 2, 'nothing measured: no opinion');
});

test('recommend: the larger metric wins; null before any replica was measured', () => {
  const both: AutoscalePolicy = { min: 1, max: 5, cpuTarget: 60, memoryTarget: 50 };
  const r = recommend(both, 2, [{ cpuPercent: 30, memoryPercent: 90, spanMs: 30_000 }, { cpuPercent: 30, memoryPercent: 110, spanMs: 30_000 }]);
  assert.ok(r);
  assert.deepEqual(r.metrics.map((m) => [m.name, m.averagePercent, m.replicas]), [['CPU', 30, 1], ['memory', 100, 4]]);
  assert.equal(r.replicas, 4);
  assert.equal(recommend(both, 2, []), null);
});

const history = (since: number, recommendations: Array<[number, number]> = []): ScaleHistory =>
  ({ since, recommendations: recommendations.map(([at, replicas]) => ({ at, replicas })) });

test('decide: up at once, one replica at a time, never above max', () => {
  const d = decide(CPU60, 1, 3, history(0), 1000, 300_000);
  assert.deepEqual([d.next, d.target, d.why], [2, 3, 'metrics']);
  const capped = decide(CPU60, 3, 6, history(0), 1000, 300_000);
  assert.deepEqual([capped.next, capped.target], [3, 3], 'max 3');
  assert.deepEqual(decide(CPU60, 2, 2, history(0), 1000, 300_000).next, 2);
});

test('decide: down only to the highest recommendation of the stabilization window, and only once the window is covered', () => {
  const W = 300_000;
  // a process that has decided for 10 s only knows no window: it holds
  assert.equal(decide(CPU60, 3, 1, history(0), 10_000, W).next, 3);
  // lower for the whole window, but 3 was recommended 200 s ago: hold
  const held = decide(CPU60, 3, 1, history(0, [[200_000, 3], [300_000, 1]]), 400_000, W);
  assert.deepEqual([held.next, held.target], [3, 3]);
  // 2 within the window: down to 2, one step
  const two = decide(CPU60, 3, 1, history(0, [[200_000, 2], [300_000, 1]]), 400_000, W);
  assert.deepEqual([two.next, two.target], [2, 2]);
  // every recommendation of the window is 1: one step down (3 → 2), the next decision 2 → 1
  const one = decide(CPU60, 3, 1, history(0, [[50_000, 3], [200_000, 1]]), 400_000, W);
  assert.deepEqual([one.next, one.target], [2, 1]);
  assert.deepEqual(one.history.recommendations.map((r) => r.at), [200_000, 400_000], 'older recommendations are forgotten');
  // a stabilization window of 0 follows the recommendation at once
  assert.equal(decide(CPU60, 3, 1, history(0), 0, 0).next, 2);
});

test('decide: a count outside [min, max] goes back within, whatever the metrics say', () => {
  const p: AutoscalePolicy = { min: 2, max: 4, cpuTarget: 60, memoryTarget: null };
  const low = decide(p, 1, null, history(0), 1000, 300_000);
  assert.deepEqual([low.next, low.why], [2, 'min']);
  const high = decide(p, 6, 6, history(0), 1000, 300_000);
  assert.deepEqual([high.next, high.why], [5, 'max']);
  assert.equal(decide(p, 3, null, history(0), 1000, 300_000).next, 3, 'no measurement, within bounds: hold');
});

test('messages: what scaled, on which metric, over which window', () => {
  const cpu = [{ name: 'CPU' as const, averagePercent: 87.2, targetPercent: 60, replicas: 2 }];
  assert.equal(scaleMessage(1, 2, { why: 'metrics' }, cpu, 30, CPU60, 300), 'Scaled up to 2 replicas: CPU 87% of limit over 30 s (target 60%)');
  assert.equal(scaleMessage(2, 1, { why: 'metrics' }, [{ ...cpu[0]!, averagePercent: 4 }], 30, CPU60, 300),
    'Scaled down to 1 replica: CPU 4% of limit over 30 s (target 60%); lower for the last 300 s');
  const both = [...cpu, { name: 'memory' as const, averagePercent: 40, targetPercent: 80, replicas: 1 }];
  assert.equal(scaleMessage(1, 2, { why: 'metrics' }, both, 30, CPU60, 300),
    'Scaled up to 2 replicas: CPU 87% of limit, memory 40% of limit over 30 s (CPU target 60%, memory target 80%)');
  assert.equal(scaleMessage(1, 2, { why: 'min' }, [], 30, { ...CPU60, min: 2 }, 300), 'Scaled up to 2 replicas: min_running_instances is 2');
  assert.equal(scaleMessage(4, 3, { why: 'max' }, [], 30, CPU60, 300), 'Scaled down to 3 replicas: max_running_instances is 3');
});

test('a deployment keeps the replicas that run, within [min, max]; min when none runs', () => {
  assert.equal(keptReplicas(0, 1, 3), 1);
  assert.equal(keptReplicas(2, 1, 3), 2);
  assert.equal(keptReplicas(5, 1, 3), 3);
  assert.equal(keptReplicas(1, 2, 4), 2);
});
