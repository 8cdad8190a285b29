// The autoscaler (docker engine only; decision 0338): every AUTOSCALE_INTERVAL_SECONDS, in one
// worker process at a time (the lease and timer of periodic.ts), samples the CPU
// and memory of each replica of the RUNNING applications and containers whose max is above their
// min, decides with the HPA's rules (src/modules/services/autoscale.rules.ts) and adds or removes
// one replica (src/engine/docker/autoscale.ts). A replica being added or removed is marked
// (autoscale.repo.ts) so the engine observer takes neither for a failure nor routes to it; each
// scale event is a RUNTIME line of the service and a SERVICE_SCALED event. What a decision
// remembers (samples, recent recommendations) lives in the process holding the lease.
import type { ContainerInfo } from 'dockerode';
import type { AppContext } from '../context.ts';
import {
  containerName, parseRoutes, publishedPorts, replicaIndex, retireReplica, routeTo, sampleReplica, serviceSettings, startReplica, stopAndRemove,
  versionReplicas, type DockerDriver,
} from '../engine/index.ts';
import { buildRuntimePlan } from '../modules/deployments/runtime-plan.ts';
import { completeAdvancedSettings } from '../modules/services/advanced-settings/index.ts';
import {
  autoscaleCandidates, autoscaleNote, dropExpiredMarks, markScaling, recordScale, scalingReplicaNames, stillScalable, unmarkScaling,
  type AutoscaleCandidate,
} from '../modules/services/autoscale.service.ts';
import {
  autoscalePolicy, decide, keptSamples, recommend, replicaUsage, scaleMessage,
  type AutoscalePolicy, type Decision, type MetricReading, type ReplicaSample, type ScaleHistory,
} from '../modules/services/autoscale.rules.ts';
import { ADVANCED_SETTINGS_KINDS } from '../modules/services/services.service.ts';
import { startPeriodic } from './periodic.ts';

const AUTOSCALE_LEASE = 'autoscaler';

export interface AutoscaleSettings {
  intervalSeconds: number;
  downStabilizationSeconds: number;
  /** INGRESS_DRAIN_SECONDS: the longest a removed replica keeps its open connections */
  drainSeconds: number;
  /** how long a new replica may take to get ready */
  readyTimeoutMs: number;
}

type Ctx = Pick<AppContext, 'db' | 'queue' | 'sealer' | 'logger' | 'config' | 'engine'> & { services: { deployments: Pick<AppContext['services']['deployments'], 'appendLog'> } };

function autoscaleSettings(config: Ctx['config']): AutoscaleSettings {
  return {
    intervalSeconds: config.autoscaleIntervalSeconds, downStabilizationSeconds: config.autoscaleDownStabilizationSeconds,
    drainSeconds: config.ingressDrainSeconds, readyTimeoutMs: 120_000,
  };
}

interface ServiceState {
  history: ScaleHistory;
  samples: Map<string, ReplicaSample[]>;
  acting: Promise<void> | null;
  /** no action before then (after one failed) */
  backoffUntil: number;
  /** a scale-up held because the configuration changed since the deploy was said once */
  heldSaid: boolean;
}

export interface Autoscaler {
  /** one round now, if this process holds the lease: how many services it looked at (null when another process holds it) */
  tick(): Promise<number | null>;
  stop(): Promise<void>;
}

const nameOf = (c: Pick<ContainerInfo, 'Names' | 'Id'>) => c.Names?.[0]?.replace(/^\//, '') ?? c.Id;

export function startAutoscaler(ctx: Ctx, settings: AutoscaleSettings = autoscaleSettings(ctx.config)): Autoscaler | null {
  if (ctx.engine.name !== 'docker') return null;
  const driver = ctx.engine as DockerDriver;
  const { docker, ingress } = driver;
  const { db } = ctx;
  const states = new Map<string, ServiceState>();
  const cpuLimits = new Map<string, number>();
  const windowMs = settings.intervalSeconds * 2000;
  const downWindowMs = settings.downStabilizationSeconds * 1000;
  const drainMs = settings.drainSeconds * 1000;
  const backoffMs = Math.max(60_000, settings.intervalSeconds * 4000);

  const warn = (err: unknown, serviceId?: string) => ctx.logger.warn({ err, serviceId }, 'autoscaler');
  const advancedOf = (s: AutoscaleCandidate) => completeAdvancedSettings(ADVANCED_SETTINGS_KINDS[s.type]!, s.advanced_settings) as Record<string, unknown>;

  async function record(s: AutoscaleCandidate, policy: AutoscalePolicy, from: number, to: number, decision: Decision, metrics: MetricReading[]): Promise<void> {
    const message = scaleMessage(from, to, decision, metrics, windowMs / 1000, policy, settings.downStabilizationSeconds);
    await db.transaction((tx) => recordScale(tx, { queue: ctx.queue, appendLog: ctx.services.deployments.appendLog }, {
      service: s, from, to, min: policy.min, max: policy.max, reason: decision.why === 'metrics' ? 'METRICS' : decision.why === 'min' ? 'MIN' : 'MAX',
      metrics, windowSeconds: windowMs / 1000, message,
    }));
    ctx.logger.info({ serviceId: s.id, from, to }, message);
  }

  /** one replica more, of the running version, routed once ready */
  async function scaleUp(s: AutoscaleCandidate, policy: AutoscalePolicy, serving: ContainerInfo[], index: number, decision: Decision, metrics: MetricReading[],
    signal: AbortSignal): Promise<void> {
    if (!await stillScalable(db, s.id, s.generation)) return;
    const source = serving[0]!;
    const routes = parseRoutes(source.Labels['berth.routes']);
    const name = containerName(s.slug, s.id, s.generation, index);
    await markScaling(db, name, Math.ceil(settings.readyTimeoutMs / 1000) + 120);
    try {
      const plan = await buildRuntimePlan(ctx, s.id);
      const replica = await startReplica({
        docker, ingress, ingressSettings: { domain: ctx.config.ingressDomain, port: ctx.config.ingressPort },
        ids: { serviceId: s.id, environmentId: s.environment_id, projectId: s.project_id, organizationId: s.organization_id },
        slug: s.slug, generation: s.generation, image: source.Image, plan, readyTimeoutMs: settings.readyTimeoutMs, drainMs,
        settings: serviceSettings(advancedOf(s)),
      }, index, routes, signal);
      if (!await stillScalable(db, s.id, s.generation)) {
        // a deployment, stop or restart began meanwhile: it decides what runs
        await stopAndRemove(docker, [replica.id], 2);
        await markScaling(db, name, 60);
        return;
      }
      await unmarkScaling(db, name);
      const { running: now } = await versionReplicas(docker, s.id, s.generation);
      const marked = await scalingReplicaNames(db);
      await routeTo(ingress, routes, now.filter((c) => !marked.has(nameOf(c))).map((c) => ({ hostPorts: publishedPorts(c) })));
    } catch (err) {
      await markScaling(db, name, 60).catch(() => {});
      throw new Error(`Could not scale up to ${serving.length + 1} replicas: ${(err as Error).message}`, { cause: err });
    }
    await record(s, policy, serving.length, serving.length + 1, decision, metrics).catch((err: unknown) => warn(err, s.id));
  }

  /** the newest replica out: out of the ingress, drained, stopped and removed */
  async function scaleDown(s: AutoscaleCandidate, policy: AutoscalePolicy, serving: ContainerInfo[], decision: Decision, metrics: MetricReading[],
    signal: AbortSignal): Promise<void> {
    if (!await stillScalable(db, s.id, s.generation)) return;
    const victim = serving.reduce((a, b) => (replicaIndex(b) > replicaIndex(a) ? b : a));
    const service = serviceSettings(advancedOf(s));
    await markScaling(db, nameOf(victim), settings.drainSeconds + service.deployment.graceSeconds + 120);
    try {
      await retireReplica(docker, ingress, victim, serving.filter((c) => c !== victim), service, drainMs,
        (_kind, message) => autoscaleNote(db, ctx.services.deployments.appendLog, s, message), signal);
    } catch (err) {
      throw new Error(`Could not scale down to ${serving.length - 1} replicas: ${(err as Error).message}`, { cause: err });
    } finally {
      // kept a minute: Docker's events about it may reach the observer after this
      await markScaling(db, nameOf(victim), 60).catch(() => {});
    }
    await record(s, policy, serving.length, serving.length - 1, decision, metrics).catch((err: unknown) => warn(err, s.id));
  }

  /** samples the service's replicas, decides, and starts an action when the decision is to scale */
  async function observe(s: AutoscaleCandidate, scaling: Set<string>, signal: AbortSignal): Promise<void> {
    const policy = autoscalePolicy(s.spec, advancedOf(s));
    if (!policy) { states.delete(s.id); return; }
    let state = states.get(s.id);
    if (!state) states.set(s.id, state = { history: { since: Date.now(), recommendations: [] }, samples: new Map(), acting: null, backoffUntil: 0, heldSaid: false });
    const { running, nextIndex } = await versionReplicas(docker, s.id, s.generation);
    const serving = running.filter((c) => !scaling.has(nameOf(c)));
    if (serving.length === 0) return;
    const samples = new Map<string, ReplicaSample[]>();
    await Promise.all(serving.map(async (c) => {
      const previous = state.samples.get(c.Id) ?? [];
      try {
        samples.set(c.Id, keptSamples([...previous, await sampleReplica(docker, c.Id, cpuLimits)], windowMs));
      } catch {
        samples.set(c.Id, previous); // gone or restarting: measured again next round
      }
    }));
    state.samples = samples;
    const usages = serving.map((c) => replicaUsage(samples.get(c.Id) ?? [], windowMs)).filter((u) => u !== null);
    const recommendation = recommend(policy, serving.length, usages);
    const now = Date.now();
    const decision = decide(policy, serving.length, recommendation?.replicas ?? null, state.history, now, downWindowMs);
    state.history = decision.history;
    if (s.deployment_status === 'UP_TO_DATE') state.heldSaid = false;
    // one action at a time: its outcome is a later round's input
    if (state.acting || decision.next === serving.length || now < state.backoffUntil) return;
    const metrics = recommendation?.metrics ?? [];
    if (decision.next > serving.length && s.deployment_status !== 'UP_TO_DATE') {
      // a new replica is made from the configuration: it must be the one the running version was deployed with
      if (!state.heldSaid) {
        state.heldSaid = true;
        await autoscaleNote(db, ctx.services.deployments.appendLog, s, `Not scaling up to ${decision.next} replicas: the configuration changed since the running version was deployed; deploy it to let autoscaling add replicas again`);
      }
      return;
    }
    const up = decision.next > serving.length;
    const current = state;
    current.acting = (up ? scaleUp(s, policy, serving, nextIndex, decision, metrics, signal) : scaleDown(s, policy, serving, decision, metrics, signal))
      .catch(async (err: Error) => {
        current.backoffUntil = Date.now() + backoffMs;
        if (signal.aborted) return;
        warn(err, s.id);
        await autoscaleNote(db, ctx.services.deployments.appendLog, s, `${err.message}; trying again in ${Math.round(backoffMs / 1000)} s at the earliest`).catch(warn);
      })
      .finally(() => { current.acting = null; });
  }

  async function round(signal: AbortSignal): Promise<number> {
    const services = await autoscaleCandidates(db);
    const scaling = await scalingReplicaNames(db);
    const seen = new Set(services.map((s) => s.id));
    for (const id of states.keys()) if (!seen.has(id) && !states.get(id)!.acting) states.delete(id);
    await Promise.all(services.map((s) => observe(s, scaling, signal).catch((err: unknown) => warn(err, s.id))));
    await dropExpiredMarks(db);
    return services.length;
  }

  const { tick, stop } = startPeriodic({
    lease: AUTOSCALE_LEASE, everySeconds: settings.intervalSeconds, round, failure: 'autoscaler', db, logger: ctx.logger,
    // another process decides; this one's history is stale when it takes over again
    notHeld: () => { for (const [id, state] of states) if (!state.acting) states.delete(id); },
    // an action under way (it was given the aborted signal) ends before another process may act
    drain: () => Promise.all([...states.values()].map((s) => s.acting)),
  });
  return { tick, stop };
}
