// The engine observer (docker engine only; one process at a time through a lease): turns what
// the daemon does into berth's state — a replica that dies on its own makes its service ERROR
// with a failure event, a service Docker brought back is RUNNING again, replica output becomes
// RUNTIME log lines — and reconciles every few seconds, which is also how a restarted berth
// re-adopts the containers and ingress routes it finds by label.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import type { DockerDriver } from '../engine/docker/driver.ts';
import { isoOfMicros } from '../engine/docker/log-time.ts';
import { labelFilter, parseRoutes } from '../engine/docker/naming.ts';
import { observeDocker, type DockerObserver } from '../engine/docker/observer.ts';
import { publishedPorts } from '../engine/docker/replicas.ts';
import { livenessChecker } from '../engine/docker/liveness.ts';
import { scalingReplicaNames } from '../modules/services/autoscale.repo.ts';
import { insertLog } from '../modules/deployments/deployments.repo.ts';
import {
  holdLease, insertRuntimeLine, markRecovered, markRuntimeFailure, releaseLease, runtimeResumePoint, serviceStates,
} from '../modules/deployments/runtime-state.ts';

export const observerSettings = { leaseSeconds: 15, tickMs: 5000 };

const LEASE = 'engine-observer';

export interface EngineObserver { stop(): Promise<void>; reconcile(): Promise<void> }

export function startEngineObserver(ctx: AppContext): EngineObserver | null {
  if (ctx.engine.name !== 'docker') return null;
  const driver = ctx.engine as DockerDriver;
  const { docker } = driver;
  const holder = randomUUID();
  const deps = { queue: ctx.queue };
  let observer: DockerObserver | null = null;
  const liveness = livenessChecker(docker);
  let stopped = false;
  const onError = (err: unknown) => ctx.logger.warn({ err }, 'engine observer');

  async function reconcile(): Promise<void> {
    // replicas the autoscaler is starting or stopping are neither failures nor routed here (decision 0338)
    const scaling = await scalingReplicaNames(ctx.db);
    const replicas = (await docker.listContainers({ all: true, filters: labelFilter({ 'berth.role': 'replica' }) }))
      .filter((c) => !scaling.has(c.Names[0]?.replace(/^\//, '') ?? ''));
    const byService = new Map<string, typeof replicas>();
    for (const c of replicas) {
      const id = c.Labels['berth.service_id']!;
      byService.set(id, [...(byService.get(id) ?? []), c]);
    }
    const states = await serviceStates(ctx.db, [...byService.keys()]);
    const routes = driver.ingress ? await (driver.ingress as { list?: () => Promise<Array<{ id: string; upstreams: string[] }>> }).list?.() ?? [] : [];
    const routed = new Map(routes.map((r) => [r.id, r.upstreams.slice().sort().join(',')]));
    for (const [serviceId, containers] of byService) {
      const known = states.get(serviceId);
      const current = containers.filter((c) => c.Labels['berth.generation'] === known?.generation);
      if (!known) continue; // a service berth does not know (another berth on this daemon, or mid-deletion): left alone
      const running = current.filter((c) => c.State === 'running');
      if (known.state === 'RUNNING' && current.length > 0 && running.length < current.length) {
        const dead = current.find((c) => c.State !== 'running')!;
        await ctx.db.transaction((tx) => markRuntimeFailure(tx, deps, serviceId, known.generation, `Replica ${dead.Names[0]?.slice(1)} is not running: ${dead.Status}`));
      } else if (known.state === 'ERROR' && current.length > 0 && running.length === current.length) {
        await ctx.db.transaction((tx) => markRecovered(tx, serviceId));
      }
      // re-adoption: the ingress routes of running replicas (after a berth or proxy restart)
      if (driver.ingress && known.state === 'RUNNING' && running.length > 0) {
        for (const route of parseRoutes(running[0]!.Labels['berth.routes'])) {
          const upstreams = running.map((c) => publishedPorts(c).get(route.port)).filter((p): p is number => p !== undefined).map((p) => `127.0.0.1:${p}`);
          if (routed.get(route.id) !== upstreams.slice().sort().join(',')) await driver.ingress.upsert({ id: route.id, hosts: route.hosts, upstreams });
        }
      }
    }
    const runningServices = new Set([...states].filter(([, s]) => s.state === 'RUNNING').map(([id]) => id));
    await liveness.check(replicas.filter((c) => runningServices.has(c.Labels['berth.service_id']!) && c.Labels['berth.generation'] === states.get(c.Labels['berth.service_id']!)?.generation),
      (c, detail) => insertLog(ctx.db, states.get(c.Labels['berth.service_id']!)?.generation ?? null, c.Labels['berth.service_id']!, 'DEPLOY', detail));
    await observer?.followRunning();
  }

  async function lead(): Promise<void> {
    observer = observeDocker(docker, {
      async event(e) {
        if (e.role !== 'replica' || e.action === 'start') return;
        if ((await scalingReplicaNames(ctx.db)).has(e.name)) return; // stopped by the autoscaler, or a new replica it is starting (0338)
        const why = e.action === 'oom' ? 'ran out of memory' : `exited with code ${e.exitCode ?? '?'}`;
        const marked = await ctx.db.transaction((tx) => markRuntimeFailure(tx, deps, e.serviceId, e.generation, `A replica of the service ${why} (container ${e.containerId.slice(0, 12)})`));
        if (marked) ctx.logger.warn({ serviceId: e.serviceId, exitCode: e.exitCode }, 'a running service failed');
      },
      line: (serviceId, containerId, micros, text) => insertRuntimeLine(ctx.db, serviceId, containerId, isoOfMicros(micros), text),
      resumeFrom: (containerId, serviceId) => runtimeResumePoint(ctx.db, serviceId, containerId),
    }, onError);
    await reconcile().catch(onError);
  }

  const timer = setInterval(() => {
    void (async () => {
      if (stopped) return;
      const leader = await holdLease(ctx.db, LEASE, holder, observerSettings.leaseSeconds).catch(() => false);
      if (leader && !observer) await lead();
      else if (leader) await reconcile();
      else if (observer) { observer.stop(); observer = null; }
    })().catch(onError);
  }, observerSettings.tickMs);
  timer.unref();
  void (async () => {
    if (await holdLease(ctx.db, LEASE, holder, observerSettings.leaseSeconds).catch(() => false)) await lead();
  })().catch(onError);

  return {
    reconcile,
    async stop() {
      stopped = true;
      clearInterval(timer);
      observer?.stop();
      await releaseLease(ctx.db, LEASE, holder).catch(() => {});
    },
  };
}
