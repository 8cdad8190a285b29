// The engine observer (docker engine only; one process at a time through a lease): turns what
// the daemon does into berth's state — a replica that dies on its own makes its service ERROR
// with a failure event, a service Docker brought back is RUNNING again, replica output becomes
// RUNTIME log lines — and reconciles every few seconds, which is also how a restarted berth
// re-adopts the containers and ingress routes it finds by label. The lease, the timer and the
// first round at start are periodic.ts's.
import type { AppContext } from '../context.ts';
import {
  isoOfMicros, labelFilter, livenessChecker, observeDocker, parseRoutes, publishedPorts, type DockerDriver, type DockerObserver,
} from '../engine/index.ts';
import { scalingReplicaNames } from '../modules/services/autoscale.service.ts';
import { insertRuntimeLine, markRecovered, markRuntimeFailure, runtimeResumePoint, serviceStates } from '../modules/deployments/runtime-state.ts';
import { startPeriodic } from './periodic.ts';

const observerSettings = { leaseSeconds: 15, tickMs: 5000 };

const LEASE = 'engine-observer';

export interface EngineObserver { stop(): Promise<void>; reconcile(): Promise<void> }

export function startEngineObserver(ctx: AppContext): EngineObserver | null {
  if (ctx.engine.name !== 'docker') return null;
  const driver = ctx.engine as DockerDriver;
  const { docker } = driver;
  const deps = { queue: ctx.queue, services: ctx.services.services };
  let observer: DockerObserver | null = null;
  const liveness = livenessChecker(docker);
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
        await ctx.db.transaction((tx) => markRecovered(tx, deps, serviceId));
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
      (c, detail) => ctx.services.deployments.appendLog(ctx.db, states.get(c.Labels['berth.service_id']!)?.generation ?? null, c.Labels['berth.service_id']!, 'DEPLOY', detail));
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

  /** the event stream and the replicas' output are followed by the lease holder alone */
  function stopObserving(): void {
    observer?.stop();
    observer = null;
  }

  const { stop } = startPeriodic({
    lease: LEASE, everySeconds: observerSettings.tickMs / 1000, leaseSeconds: observerSettings.leaseSeconds, immediately: true,
    round: () => (observer ? reconcile() : lead()),
    failure: 'engine observer', db: ctx.db, logger: ctx.logger,
    notHeld: stopObserving, drain: stopObserving,
  });
  return { reconcile, stop };
}
