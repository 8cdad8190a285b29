// Deploying a new version of a long-running service (decision 0303, the Kamal pattern; the
// strategy from the service's advanced settings, decision 0336). RollingUpdate, the default:
// rounds that start new replicas beside the old ones (max surge) and stop old ones (max
// unavailable), a new replica taking traffic only once its post-start command succeeded and its
// readiness passed; with one replica and the default percentages, all new start, the ingress
// switches to them, the old ones' open connections finish (at most INGRESS_DRAIN_SECONDS,
// decision 0334) and they stop. Recreate: every old replica stops first (no route meanwhile),
// then the new ones start. Old replicas are terminated as a kubelet would (termination.ts: pre-stop
// command during the drain, then the rest of the grace period). A new version that never gets
// ready is removed, what is left of the old one keeps serving, and the failure carries the reason
// and the container's last log lines. Services holding a volume (databases, storage) are always
// recreated: two writers must never share one data directory. A database's port is published only
// when it is PUBLIC, at its reserved port on INGRESS_HOST (decision 0333); its readiness is then
// read from inside the container (health.ts).
import type Docker from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import { publicLinks } from '../links.ts';
import type { RouteSettings } from '../ingress/settings.ts';
import type { LogSink } from '../engine.ts';
import { EngineFailure } from '../engine.ts';
import type { ProbePlan, RuntimePlan } from '../plan.ts';
import type { ServiceSettings, UpdateStrategy } from '../settings.ts';
import { readOnlyFilesRefused, replicaCreateOptions } from './containers.ts';
import { defaultReadiness, waitReady } from './health.ts';
import { databaseReadiness } from './databases.ts';
import { copyFiles } from './files.ts';
import { containerName, replicaLabels, type OwnerIds, type RouteLabel } from './naming.ts';
import { freeLoopbackPort } from '../../lib/processes.ts';
import { lastLines, listReplicas, probeTarget, publishedPorts, removeContainer, stopAndRemove } from './replicas.ts';
import { nextRound, plannedRounds, rollingBounds } from './strategy.ts';
import { runPostStart, terminate, terminationOf } from './termination.ts';

export interface IngressLike {
  /** `settings` absent: the route keeps its own (decision 0337) */
  upsert(route: { id: string; hosts: string[]; upstreams: string[]; settings?: RouteSettings }): Promise<void>;
  /** an existing route's settings changed; false when there is no such route */
  updateSettings(id: string, settings: RouteSettings): Promise<boolean>;
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
  /** the service's advanced settings: strategy, grace period, lifecycle commands, read-only root */
  settings: ServiceSettings;
}

/** a new replica did not start, or its post-start command or readiness failed (rather than the ingress) */
class NewVersionFailed extends Error {
  readonly what: string;
  constructor(what: string, message: string) {
    super(message);
    this.what = what;
  }
}

/** a replica of the new version: its container, its published ports and its number in the generation */
type Replica = { id: string; hostPorts: Map<number, number>; index: number };

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

/** the readiness probe of a plan: its own, a database's (databases.ts), or TCP on the first port (a database's, else the service's) */
export function readinessOf(plan: RuntimePlan): ProbePlan | null {
  return plan.readiness ?? (plan.database && databaseReadiness(plan.database))
    ?? defaultReadiness(plan.database?.port ?? plan.ports[0]?.internalPort ?? null);
}

export async function createReplica(input: RolloutInput, replica: number, routes: RouteLabel[]): Promise<{ id: string; hostPorts: Map<number, number> }> {
  const ports = new Set(input.plan.ports.map((p) => p.internalPort));
  const readOnly = input.settings.security.readOnlyRootFilesystem;
  if (readOnly && input.plan.files.length > 0) throw new EngineFailure('deploy', readOnlyFilesRefused(input.plan.files));
  for (let attempt = 0; ; attempt++) {
    const hostPorts = new Map<number, number>();
    for (const p of ports) hostPorts.set(p, await freeLoopbackPort());
    const name = containerName(input.slug, input.ids.serviceId, input.generation, replica);
    await removeContainer(input.docker.getContainer(name)).catch(() => {});
    const container = await input.docker.createContainer(replicaCreateOptions({
      name, image: input.image, serviceId: input.ids.serviceId, environmentId: input.ids.environmentId,
      labels: replicaLabels(input.ids, input.generation, replica, routes, { readiness: readinessOf(input.plan), liveness: input.plan.liveness }), plan: input.plan, hostPorts,
      restart: 'unless-stopped', extraEnv: input.extraEnv, cmd: input.cmd, dataDir: input.dataDir, publicPort: input.publicPort ?? null,
      graceSeconds: input.settings.deployment.graceSeconds, readOnlyRootFilesystem: readOnly,
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
  const { docker, plan, settings } = input;
  const routes = routesOf(input.ids.serviceId, input.slug, input.ids.environmentId, plan, input.ingressSettings);
  const previous = (await listReplicas(docker, input.ids.serviceId)).filter((c) => c.Labels['berth.generation'] !== input.generation);
  const serving = previous.filter((c) => c.State === 'running');
  const volumes = plan.volumes.length > 0 || plan.database !== null;
  const strategy: UpdateStrategy = volumes ? 'Recreate' : settings.deployment.strategy;
  const desired = plan.database ? 1 : Math.max(1, plan.replicas);
  const bounds = rollingBounds(desired, settings.deployment.maxSurgePercent, settings.deployment.maxUnavailablePercent);
  const termination = terminationOf(settings);
  if (serving.length > 0) {
    await log('DEPLOY', volumes ? `Stopping the ${serving.length} running replica(s) first: the service keeps data on a volume`
      : strategy === 'Recreate' ? `Recreate: stopping the ${serving.length} replica(s) of the previous version before starting the new version`
        : `Rolling update in ${plannedRounds(strategy, desired, serving.length, bounds).length} round(s): at most ${bounds.surge} replica(s) above ${desired} and ${bounds.unavailable} unavailable at a time`);
  }
  // replicas of the previous version that do not run (stopped, exited, restarting): nothing to drain;
  // with a volume they go first (a restarting one could write again), else once the new version serves
  const idle = previous.filter((c) => !serving.includes(c));
  if (volumes && idle.length > 0) await stopAndRemove(docker, idle.map((c) => c.Id), 0);
  await log('DEPLOY', `Starting ${desired} replica(s) of ${input.image}`);

  const upstreamsOf = (replicas: Replica[]) => JSON.stringify(routes.map((r) => replicas.map((x) => x.hostPorts.get(r.port)).sort()));
  const asReplica = (c: ContainerInfo): Replica => ({ id: c.Id, hostPorts: publishedPorts(c), index: -1 });
  let routed = upstreamsOf(serving.map(asReplica));
  /** the ingress to these replicas (no route while none serves), when that changes what it routes to */
  const route = async (replicas: Replica[]) => {
    if (!input.ingress || routes.length === 0 || upstreamsOf(replicas) === routed) return;
    routed = upstreamsOf(replicas);
    if (replicas.length > 0) return switchIngress(input, routes, replicas, log);
    for (const r of routes) await input.ingress.remove(r.id);
    await log('DEPLOY', `No replica serves ${routes.map((r) => `http://${r.hosts[0]}`).join(', ')} until the new version is ready`);
  };
  const retire = async (victims: ContainerInfo[]) => {
    await log('DEPLOY', `Stopping the ${victims.length} replica(s) of the previous version`);
    const drain = routes.length > 0 && input.ingress ? drainPrevious(input, routes, victims, log, signal) : undefined;
    await terminate(docker, victims, termination, log, { then: 'remove', drain });
  };
  const becomeReady = async (r: Replica) => {
    if (settings.deployment.postStart.length > 0) {
      await runPostStart(docker, r.id, settings.deployment.postStart, input.readyTimeoutMs);
      await log('DEPLOY', `Replica ${r.index + 1}/${desired}: its post-start command succeeded`);
    }
    const probe = readinessOf(plan);
    const target = probeTarget(docker, r.id, r.hostPorts);
    if (probe) await waitReady(probe, target, signal, input.readyTimeoutMs);
    else {
      await new Promise((res) => setTimeout(res, 1500));
      const stopped = await target.notRunning();
      if (stopped) throw new Error(`the container ${stopped}`);
    }
    await log('DEPLOY', `Replica ${r.index + 1}/${desired} is ready`);
  };

  const oldLeft = [...serving];
  const ready: Replica[] = [];
  const started: Replica[] = [];
  try {
    for (;;) {
      const round = nextRound(strategy, desired, oldLeft.length, ready.length, bounds);
      if (round.start === 0 && round.stop === 0) break;
      const victims = oldLeft.splice(0, round.stop);
      await route([...oldLeft.map(asReplica), ...ready]);
      const stopping = victims.length > 0 ? retire(victims) : Promise.resolve();
      const fresh: Replica[] = [];
      const starting = (async () => {
        for (let i = 0; i < round.start; i++) {
          const created = await createReplica(input, started.length, routes).catch((err: Error) => {
            throw new NewVersionFailed('The new version did not start', err.message);
          });
          const replica = { ...created, index: started.length };
          started.push(replica);
          fresh.push(replica);
        }
        await Promise.all(fresh.map((r) => becomeReady(r).catch((err: Error) => {
          throw new NewVersionFailed('The new version did not become ready', err.message);
        })));
      })();
      const [stopped, came] = await Promise.allSettled([stopping, starting]);
      if (came.status === 'rejected') throw came.reason;
      if (stopped.status === 'rejected') throw stopped.reason;
      ready.push(...fresh);
    }
  } catch (err) {
    const lines = started.length > 0 && !signal.aborted ? await lastLines(docker, started[started.length - 1]!.id) : [];
    for (const line of lines) await log('DEPLOY', `  | ${line}`);
    await stopAndRemove(docker, started.map((r) => r.id), 2);
    // the ingress back to what is left of the previous version
    await route(oldLeft.map(asReplica)).catch(() => {});
    if (signal.aborted) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    const kept = serving.length === 0 ? ''
      : oldLeft.length === serving.length ? '; the previous version keeps serving'
        : oldLeft.length > 0 ? `; ${oldLeft.length} of the previous version's ${serving.length} replica(s) keep serving`
          : `; the previous version was stopped before (${volumes ? 'the service keeps data on a volume' : strategy})`;
    const what = err instanceof NewVersionFailed ? err.what : 'The rollout failed';
    throw new EngineFailure('deploy', `${what}: ${reason}${kept}${lines.length ? `. Last log line: ${lines[lines.length - 1]}` : ''}`);
  }
  if (input.ingress) await route(ready);
  else await switchIngress(input, routes, ready, log);
  if (!volumes && idle.length > 0) await stopAndRemove(docker, idle.map((c) => c.Id), 0);
  // routes of ports no longer public
  const keep = new Set(routes.map((r) => r.id));
  for (const c of previous) {
    for (const old of JSON.parse(c.Labels['berth.routes'] ?? '[]') as RouteLabel[]) {
      if (!keep.has(old.id)) await input.ingress?.remove(old.id).catch(() => {});
    }
  }
}
