// Deploying a new version of a long-running service without downtime (the Kamal pattern): start
// the new replicas beside the old ones, wait until each passes readiness (probed from outside),
// switch the ingress to them, let the old ones' open connections finish (at most
// INGRESS_DRAIN_SECONDS, decision 0334), then stop the old replicas. A new
// version that never gets ready is removed and the old one keeps serving; the failure carries
// the reason and the container's last log lines. Services holding a volume (databases, storage)
// are recreated instead: two writers must never share one data directory. A database's port is
// published only when it is PUBLIC, at its reserved port on INGRESS_HOST (decision 0333); its
// readiness is then read from inside the container (health.ts).
import type Docker from 'dockerode';
import { publicLinks } from '../links.ts';
import type { LogSink } from '../engine.ts';
import { EngineFailure } from '../engine.ts';
import type { ProbePlan, RuntimePlan } from '../plan.ts';
import { replicaCreateOptions } from './containers.ts';
import { defaultReadiness, waitReady } from './health.ts';
import { copyFiles } from './files.ts';
import { containerName, replicaLabels, type OwnerIds, type RouteLabel } from './naming.ts';
import { freeLoopbackPort } from '../../lib/processes.ts';
import { lastLines, listReplicas, probeTarget, publishedPorts, removeContainer, stopAndRemove } from './replicas.ts';

export interface IngressLike {
  upsert(route: { id: string; hosts: string[]; upstreams: string[] }): Promise<void>;
  remove(id: string): Promise<void>;
  /** wait until no connection through the proxy to these upstreams is open, at most timeoutMs; how many still are */
  drain(upstreams: string[], timeoutMs: number, signal?: AbortSignal): Promise<number>;
}

export interface RolloutInput {
  docker: Docker;
  ingress: IngressLike | null;
  ingressSettings: { domain: string; port: number };
  ids: OwnerIds;
  slug: string;
  generation: string;
  image: string;
  plan: RuntimePlan;
  /** a PUBLIC database's reserved port, on INGRESS_HOST */
  publicPort?: { internalPort: number; hostIp: string; hostPort: number } | null;
  /** database image contract */
  extraEnv?: Record<string, string>;
  cmd?: string[] | null;
  dataDir?: string | null;
  /** how long the new version may take to become ready */
  readyTimeoutMs: number;
  /** after the switch, the longest the old replicas keep their open connections (INGRESS_DRAIN_SECONDS) */
  drainMs: number;
}

/** the ingress routes of a service: one per public port (its hosts from links.ts) */
export function routesOf(serviceId: string, slug: string, environmentId: string, plan: RuntimePlan, settings: RolloutInput['ingressSettings']): RouteLabel[] {
  const links = publicLinks(settings, {
    slug, environmentId,
    ports: plan.ports.map((p) => ({ internal_port: p.internalPort, publicly_accessible: p.publiclyAccessible, is_default: p.isDefault })),
  });
  const byPort = new Map<number, string[]>();
  for (const l of links) byPort.set(l.internal_port, [...(byPort.get(l.internal_port) ?? []), l.host]);
  return [...byPort].map(([port, hosts]) => ({ id: `${serviceId}-${port}`, hosts, port }));
}

/** the readiness probe of a plan: its own, or TCP on the first port (a database's, else the service's) */
export function readinessOf(plan: RuntimePlan): ProbePlan | null {
  return plan.readiness ?? defaultReadiness(plan.database?.port ?? plan.ports[0]?.internalPort ?? null);
}

async function createReplica(input: RolloutInput, replica: number, routes: RouteLabel[]): Promise<{ id: string; hostPorts: Map<number, number> }> {
  const ports = new Set(input.plan.ports.map((p) => p.internalPort));
  for (let attempt = 0; ; attempt++) {
    const hostPorts = new Map<number, number>();
    for (const p of ports) hostPorts.set(p, await freeLoopbackPort());
    const name = containerName(input.slug, input.ids.serviceId, input.generation, replica);
    await removeContainer(input.docker.getContainer(name)).catch(() => {});
    const container = await input.docker.createContainer(replicaCreateOptions({
      name, image: input.image, serviceId: input.ids.serviceId, environmentId: input.ids.environmentId,
      labels: replicaLabels(input.ids, input.generation, replica, routes, { readiness: readinessOf(input.plan), liveness: input.plan.liveness }), plan: input.plan, hostPorts,
      restart: 'unless-stopped', extraEnv: input.extraEnv, cmd: input.cmd, dataDir: input.dataDir, publicPort: input.publicPort ?? null,
    }));
    try {
      await copyFiles(input.docker, container.id, input.plan.files);
      await container.start();
      return { id: container.id, hostPorts };
    } catch (err) {
      await removeContainer(container).catch(() => {});
      const taken = /address already in use|port is already allocated/i.test(String((err as Error).message));
      const reserved = input.publicPort;
      if (taken && reserved && ports.size === 0) {
        throw new Error(`port ${reserved.hostPort} on ${reserved.hostIp}, reserved for this database (DATABASE_PUBLIC_PORTS), is taken by another program or container: free it, or make the database PRIVATE and PUBLIC again to be given another port`);
      }
      // a port taken between our probe and the daemon's bind: pick others
      if (attempt < 3 && taken) continue;
      throw err;
    }
  }
}

export async function switchIngress(input: Pick<RolloutInput, 'ingress'>, routes: RouteLabel[], replicas: Array<{ hostPorts: Map<number, number> }>, log: LogSink): Promise<void> {
  if (routes.length === 0) return;
  if (!input.ingress) {
    await log('DEPLOY', 'Public URLs are unavailable: no ingress proxy is running on this host (install haproxy); the service is reachable on its network only');
    return;
  }
  for (const r of routes) {
    const upstreams = replicas.map((x) => x.hostPorts.get(r.port)).filter((p): p is number => p !== undefined).map((p) => `127.0.0.1:${p}`);
    await input.ingress.upsert({ id: r.id, hosts: r.hosts, upstreams });
    await log('DEPLOY', `Routing http://${r.hosts[0]} to ${upstreams.length} replica(s)`);
  }
}

/**
 * The old replicas' open connections (WebSockets, streams, requests in flight) are let finish:
 * they are stopped as soon as none is left through the ingress, or once the drain period is over.
 */
async function drainPrevious(input: RolloutInput, routes: RouteLabel[], previous: Array<Parameters<typeof publishedPorts>[0]>, log: LogSink, signal: AbortSignal): Promise<void> {
  const ports = new Set(routes.map((r) => r.port));
  const upstreams = previous.flatMap((c) => [...publishedPorts(c)].filter(([port]) => ports.has(port)).map(([, host]) => `127.0.0.1:${host}`));
  const began = Date.now();
  try {
    const open = await input.ingress!.drain(upstreams, input.drainMs, signal);
    await log('DEPLOY', open === 0
      ? `No connection to the previous version is open through the ingress (after ${((Date.now() - began) / 1000).toFixed(1)} s)`
      : `The drain period of ${input.drainMs / 1000} s is over: closing ${open} connection(s) still open to the previous version`);
  } catch (err) {
    await log('DEPLOY', `Could not read the ingress's open connections (${(err as Error).message}): waiting 1.5 s for requests in flight`);
    await new Promise((r) => setTimeout(r, Math.min(1500, input.drainMs)));
  }
}

export async function rollout(input: RolloutInput, log: LogSink, signal: AbortSignal): Promise<void> {
  const { docker, plan } = input;
  const routes = routesOf(input.ids.serviceId, input.slug, input.ids.environmentId, plan, input.ingressSettings);
  const previous = (await listReplicas(docker, input.ids.serviceId)).filter((c) => c.Labels['berth.generation'] !== input.generation);
  const recreate = plan.volumes.length > 0 || plan.database !== null;
  if (recreate && previous.length > 0) {
    await log('DEPLOY', `Stopping the ${previous.length} running replica(s) first: the service keeps data on a volume`);
    await stopAndRemove(docker, previous.map((c) => c.Id));
  }
  const count = plan.database ? 1 : Math.max(1, plan.replicas);
  await log('DEPLOY', `Starting ${count} replica(s) of ${input.image}`);
  const started: Array<{ id: string; hostPorts: Map<number, number> }> = [];
  try {
    for (let i = 0; i < count; i++) started.push(await createReplica(input, i, routes));
    const probe = readinessOf(plan);
    await Promise.all(started.map(async (r, i) => {
      const target = probeTarget(docker, r.id, r.hostPorts);
      if (probe) await waitReady(probe, target, signal, input.readyTimeoutMs);
      else {
        await new Promise((res) => setTimeout(res, 1500));
        const stopped = await target.notRunning();
        if (stopped) throw new Error(`the container ${stopped}`);
      }
      await log('DEPLOY', `Replica ${i + 1}/${count} is ready`);
    }));
  } catch (err) {
    if (signal.aborted) {
      await stopAndRemove(docker, started.map((r) => r.id), 2);
      throw err;
    }
    const lines = started.length > 0 ? await lastLines(docker, started[started.length - 1]!.id) : [];
    for (const line of lines) await log('DEPLOY', `  | ${line}`);
    await stopAndRemove(docker, started.map((r) => r.id), 2);
    const reason = err instanceof Error ? err.message : String(err);
    const kept = !recreate && previous.length > 0 ? '; the previous version keeps serving' : '';
    throw new EngineFailure('deploy', `The new version did not become ready: ${reason}${kept}${lines.length ? `. Last log line: ${lines[lines.length - 1]}` : ''}`);
  }
  await switchIngress(input, routes, started, log);
  if (previous.length > 0) {
    if (routes.length > 0 && input.ingress) await drainPrevious(input, routes, previous, log, signal);
    await log('DEPLOY', `Stopping the ${previous.length} replica(s) of the previous version`);
    await stopAndRemove(docker, previous.map((c) => c.Id));
  }
  // routes of ports no longer public
  const keep = new Set(routes.map((r) => r.id));
  for (const c of previous) {
    for (const old of JSON.parse(c.Labels['berth.routes'] ?? '[]') as RouteLabel[]) {
      if (!keep.has(old.id)) await input.ingress?.remove(old.id).catch(() => {});
    }
  }
}
