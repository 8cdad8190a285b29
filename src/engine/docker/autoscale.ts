// Autoscaling's actions on the daemon (decision 0338): reading a replica's CPU and memory
// counters from Docker's stats, adding a replica of the running version exactly as a rollout
// creates one (createReplica: same image, plan, labels, limits; its post-start command, then its
// readiness) before the ingress routes to it, and taking one out — out of the ingress first, its
// open connections drained while its pre-stop command runs, then stopped and removed as a rollout
// retires a replica. Also how many replicas a deployment of an autoscaled service starts. The
// decisions are the services module's (autoscale.rules.ts), the database the worker's.
import type Docker from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import type { LogSink } from '../engine.ts';
import type { RuntimePlan } from '../plan.ts';
import type { ServiceSettings } from '../settings.ts';
import { waitReady } from './health.ts';
import { parseRoutes, type RouteLabel } from './naming.ts';
import { lastLines, listReplicas, probeTarget, publishedPorts, stopAndRemove } from './replicas.ts';
import { createReplica, readinessOf, type IngressLike, type RolloutInput } from './rollout.ts';
import { runPostStart, terminate, terminationOf } from './termination.ts';

/** a replica's counters at one instant (the shape of autoscale.rules.ts's ReplicaSample) */
export interface ReplicaCounters { at: number; cpuNanos: number; cpuLimit: number; memoryBytes: number; memoryLimitBytes: number }

interface StatsJson {
  read?: string;
  cpu_stats?: { cpu_usage?: { total_usage?: number }; online_cpus?: number };
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number> };
}

/** CPUs a container may use: NanoCpus (what berth sets), else its CFS quota, else null (no limit) */
async function cpuLimitOf(docker: Docker, id: string): Promise<number | null> {
  const host = (await docker.getContainer(id).inspect()).HostConfig as { NanoCpus?: number; CpuQuota?: number; CpuPeriod?: number };
  if (host.NanoCpus && host.NanoCpus > 0) return host.NanoCpus / 1e9;
  if (host.CpuQuota && host.CpuQuota > 0) return host.CpuQuota / (host.CpuPeriod || 100_000);
  return null;
}

/**
 * One reading of a running replica (one-shot stats: the daemon answers at once instead of waiting
 * a second for a second reading; berth keeps its own readings and computes rates over its
 * window). Memory is what the docker CLI shows: usage without the inactive page cache. `limits`
 * caches each container's CPU limit, which never changes.
 */
export async function sampleReplica(docker: Docker, id: string, limits: Map<string, number>): Promise<ReplicaCounters> {
  const stats = await docker.getContainer(id).stats({ stream: false, 'one-shot': true } as { stream: false }) as unknown as StatsJson;
  const cpuNanos = stats.cpu_stats?.cpu_usage?.total_usage;
  if (cpuNanos === undefined) throw new Error(`no CPU counters for container ${id.slice(0, 12)} (not running)`);
  let cpuLimit = limits.get(id);
  if (cpuLimit === undefined) {
    cpuLimit = await cpuLimitOf(docker, id) ?? stats.cpu_stats?.online_cpus ?? 1;
    limits.set(id, cpuLimit);
  }
  const memory = stats.memory_stats ?? {};
  const inactive = memory.stats?.total_inactive_file ?? memory.stats?.inactive_file ?? 0;
  const read = stats.read ? Date.parse(stats.read) : NaN;
  return {
    at: Number.isFinite(read) && read > 0 ? read : Date.now(),
    cpuNanos, cpuLimit,
    memoryBytes: Math.max(0, (memory.usage ?? 0) - inactive),
    memoryLimitBytes: memory.limit ?? 0,
  };
}

/** the number in its generation a replica was created with (berth.replica) */
export function replicaIndex(c: Pick<ContainerInfo, 'Labels'>): number {
  const n = Number(c.Labels['berth.replica']);
  return Number.isInteger(n) && n >= 0 ? n : -1;
}

/** the replicas of a service's running version that run, and the first free replica number of that version */
export async function versionReplicas(docker: Docker, serviceId: string, generation: string): Promise<{ running: ContainerInfo[]; nextIndex: number }> {
  const all = (await listReplicas(docker, serviceId)).filter((c) => c.Labels['berth.generation'] === generation);
  return { running: all.filter((c) => c.State === 'running'), nextIndex: Math.max(-1, ...all.map(replicaIndex)) + 1 };
}

/**
 * Starts replica `index` of the running version as the rollout does and waits until it is ready:
 * its post-start command, then its readiness probe (none: it must still run 1.5 s later). A
 * replica that does not get ready is removed; the error says why, with its last log line.
 */
export async function startReplica(input: RolloutInput, index: number, routes: RouteLabel[], signal: AbortSignal): Promise<{ id: string; hostPorts: Map<number, number> }> {
  const { docker, plan, settings } = input;
  const replica = await createReplica(input, index, routes);
  try {
    if (settings.deployment.postStart.length > 0) await runPostStart(docker, replica.id, settings.deployment.postStart, input.readyTimeoutMs);
    const probe = readinessOf(plan);
    const target = probeTarget(docker, replica.id, replica.hostPorts);
    if (probe) await waitReady(probe, target, signal, input.readyTimeoutMs);
    else {
      await new Promise((r) => setTimeout(r, 1500));
      const stopped = await target.notRunning();
      if (stopped) throw new Error(`the container ${stopped}`);
    }
    return replica;
  } catch (err) {
    const lines = signal.aborted ? [] : await lastLines(docker, replica.id);
    await stopAndRemove(docker, [replica.id], 2);
    throw new Error(`${(err as Error).message}${lines.length > 0 ? `. Last log line: ${lines[lines.length - 1]}` : ''}`, { cause: err });
  }
}

/** the service's ingress routes switched to exactly these replicas (no route: nothing to do) */
export async function routeTo(ingress: IngressLike | null, routes: RouteLabel[], replicas: ReadonlyArray<{ hostPorts: Map<number, number> }>): Promise<void> {
  if (!ingress) return;
  for (const r of routes) {
    const upstreams = replicas.map((x) => x.hostPorts.get(r.port)).filter((p): p is number => p !== undefined).map((p) => `127.0.0.1:${p}`);
    // no settings: the route keeps its own (decision 0337)
    await ingress.upsert({ id: r.id, hosts: r.hosts, upstreams });
  }
}

/**
 * Takes a replica out of service: the ingress routes to the `remaining` ones only, then its open
 * connections through the ingress drain (at most `drainMs`) while its pre-stop command runs, then
 * it gets the rest of its grace period to stop and is removed (termination.ts, as a rollout).
 */
export async function retireReplica(docker: Docker, ingress: IngressLike | null, victim: ContainerInfo, remaining: readonly ContainerInfo[],
  settings: ServiceSettings, drainMs: number, log: LogSink, signal: AbortSignal): Promise<void> {
  const routes = parseRoutes(victim.Labels['berth.routes']);
  await routeTo(ingress, routes, remaining.map((c) => ({ hostPorts: publishedPorts(c) })));
  const ports = publishedPorts(victim);
  const upstreams = routes.map((r) => ports.get(r.port)).filter((p): p is number => p !== undefined).map((p) => `127.0.0.1:${p}`);
  const drain = ingress && upstreams.length > 0
    ? ingress.drain(upstreams, drainMs, signal).catch(() => new Promise((r) => setTimeout(r, Math.min(1500, drainMs))))
    : undefined;
  await terminate(docker, [victim], terminationOf(settings), log, { then: 'remove', drain });
}

/** how many replicas a deployment starts: as many as run now, within [min, max]; min when none runs */
export function keptReplicas(running: number, min: number, max: number): number {
  return Math.min(Math.max(min, max), Math.max(min, running));
}

/**
 * The replica count a deployment of the service starts (decision 0338): an autoscaled service
 * (plan.maxReplicas above plan.replicas) keeps the count it runs now, within its bounds, so a
 * redeploy under load does not drop to min; anything else starts plan.replicas.
 */
export async function replicasForDeploy(docker: Docker, serviceId: string, generation: string, plan: RuntimePlan): Promise<number> {
  const min = Math.max(1, plan.replicas);
  const max = plan.maxReplicas ?? min;
  if (max <= min || plan.database !== null || plan.volumes.length > 0) return plan.replicas;
  const running = (await listReplicas(docker, serviceId, false)).filter((c) => c.Labels['berth.generation'] !== generation).length;
  return keptReplicas(running, min, max);
}
