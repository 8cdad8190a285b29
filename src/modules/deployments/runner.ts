// The deployment runner: runs one deployment step by step through the engine driver, recording
// each step so a re-run (pg-boss retry after a crash, or the sweep) resumes from it; waits its
// turn in the environment's queue; and the sweep that resumes or fails deployments whose worker
// went silent (kill -9). A service type whose APPLY is not the driver's (an agentic workflow's
// agent run) has its own step, given by the composition root (`applyByType`). The workers
// (src/workers/deployments.ts) subscribe `run` and `sweep` to their task kinds.
import { EngineFailure, type BuildResult, type DriverService, type EngineDriver, type LogSink } from '../../engine/index.ts';
import type { Platform } from '../../platform.ts';
import type { TaskContext } from '../../queue/queue.ts';
import { recordPublishedHost } from '../services/databases/public-access.ts';
import { completeAdvancedSettings } from '../services/advanced-settings/index.ts';
import { ADVANCED_SETTINGS_KINDS } from '../services/services.service.ts';
import * as repo from './deployments.repo.ts';
import { advance, settle, start, wakeQueue, type LifecycleDeps } from './deployments.lifecycle.ts';
import { SUCCESS_STATUS, errorStatus, runningStatus, stepOfStatus, stepsOf, type Step } from './deployments.rules.ts';
import { buildRuntimePlan } from './runtime-plan.ts';

export interface DeploymentWorkerSettings {
  /** a running deployment whose heartbeat is older than this is considered abandoned */
  staleSeconds: number;
  /** resumes of an abandoned deployment before it is failed explicitly */
  maxRecoveries: number;
}

const DEFAULT_WORKER_SETTINGS: Readonly<DeploymentWorkerSettings> = Object.freeze({ staleSeconds: 60, maxRecoveries: 3 });

/** what a step of its own gets of the deployment it runs in */
export interface RunningDeployment {
  /** refreshes the deployment's heartbeat; true when a cancel has been requested meanwhile */
  beat(): Promise<boolean>;
}

/** a service type's own APPLY step in place of the driver's */
type ApplyStep = (target: DriverService, log: LogSink, signal: AbortSignal, deployment: RunningDeployment) => Promise<BuildResult | void>;

export interface RunnerDeps extends Pick<Platform, 'db' | 'queue' | 'config' | 'logger' | 'engine' | 'sealer'> {
  /** the deployments service's lifecycle (its settled-deployment calls and running controllers included) */
  lifecycle: LifecycleDeps;
  applyByType: Readonly<Record<string, ApplyStep>>;
  /** the stale period and recoveries (the defaults unless given; tests shorten them) */
  settings?: Partial<DeploymentWorkerSettings>;
}

/** what the runner's functions share: the deps and this runner's settings */
interface RunnerState extends RunnerDeps { settings: DeploymentWorkerSettings }

export interface DeploymentRunner {
  /** runs (or resumes) one deployment; returns quietly when it is not its turn or not ours */
  run(deploymentId: string, task: Pick<TaskContext, 'id'>): Promise<void>;
  /** resumes (re-enqueues) deployments whose worker went silent, or fails them after maxRecoveries */
  sweep(): Promise<{ resumed: number; failed: number }>;
  /** this runner's settings now */
  readonly settings: Readonly<DeploymentWorkerSettings>;
  /** changes this runner's settings (tests shorten the stale period mid-flow) */
  configure(settings: Partial<DeploymentWorkerSettings>): void;
}

export function createDeploymentRunner(deps: RunnerDeps): DeploymentRunner {
  const state: RunnerState = { ...deps, settings: { ...DEFAULT_WORKER_SETTINGS, ...deps.settings } };
  return {
    run: (id, task) => runDeployment(state, id, task),
    sweep: () => sweepAbandonedDeployments(state),
    settings: state.settings,
    configure(settings) { Object.assign(state.settings, settings); },
  };
}

function running(db: RunnerDeps['db'], deploymentId: string): RunningDeployment {
  return {
    async beat() {
      await repo.heartbeat(db, deploymentId);
      const d = await repo.findDeployment(db, deploymentId);
      return !d || d.cancel_requested;
    },
  };
}

function driverService(svc: repo.ServiceRow, d: repo.DeploymentRow, simulateFailure: string | null): DriverService {
  return {
    simulateFailure,
    id: svc.id, type: svc.type, name: svc.name, slug: svc.slug, environmentId: svc.environment_id, spec: svc.spec ?? {},
    // complete (defaults included): the engine applies every key, not only those that differ from the defaults
    advancedSettings: ADVANCED_SETTINGS_KINDS[svc.type] ? completeAdvancedSettings(ADVANCED_SETTINGS_KINDS[svc.type]!, svc.advanced_settings) : {},
    gitCommitId: d.git_commit_id, imageTag: d.image_tag,
    projectId: svc.project_id, organizationId: svc.organization_id, deploymentId: d.id,
  };
}

/** settles a deployment unless it is gone (environment deleted) or already final */
async function settleIfOpen(db: RunnerDeps['db'], deps: LifecycleDeps, id: string, status: string, message: string | null): Promise<void> {
  await db.transaction(async (tx) => {
    const d = await repo.findDeployment(tx, id);
    if (d && !d.finished) await settle(tx, deps, d, status, message);
  });
}

/** runs (or resumes) one deployment; returns quietly when it is not its turn or not ours */
async function runDeployment(ctx: RunnerState, deploymentId: string, task: Pick<TaskContext, 'id'>): Promise<void> {
  const { db } = ctx;
  const deps = ctx.lifecycle;
  const driver = ctx.engine;
  const claimed = await db.transaction(async (tx) => {
    const d = await repo.findDeployment(tx, deploymentId);
    if (!d || d.finished) return null;
    await repo.lockEnvironment(tx, d.environment_id);
    if (await repo.queueHead(tx, d.environment_id) !== d.id) return null; // waits: woken when the one before settles
    if (!await repo.claim(tx, d.id, task.id, ctx.settings.staleSeconds)) return null;
    const svc = await repo.findService(tx, d.service_id);
    if (!svc) return null;
    const simulateFailure = driver.real ? null : await repo.simulateFailureVariable(tx, svc);
    const resumed = d.status !== 'QUEUED';
    if (!resumed) {
      if (d.cancel_requested) {
        await settle(tx, deps, d, 'CANCELED', 'Canceled before it started');
        return null;
      }
      const first = stepsOf(d.action, driver.needsBuild(driverService(svc, d, simulateFailure)))[0]!;
      await repo.setEngine(tx, d.id, driver.name);
      await start(tx, deps, d, runningStatus(first));
    }
    return { d: (await repo.findDeployment(tx, d.id))!, svc, simulateFailure, resumed };
  });
  if (!claimed) return;
  const { svc } = claimed;
  let d = claimed.d;
  // operators (and bench/scale.ts) read from the worker's log which process ran which deployment
  ctx.logger.info({ deploymentId: d.id, environmentId: d.environment_id, action: d.action, resumed: claimed.resumed }, 'deployment claimed');
  const settleAs = async (status: string, message: string | null) => {
    await settleIfOpen(db, deps, d.id, status, message);
    ctx.logger.info({ deploymentId: d.id, environmentId: d.environment_id, status }, 'deployment settled');
  };
  let target: DriverService;
  try {
    target = await withPlan(ctx, driverService(svc, d, claimed.simulateFailure));
  } catch (err) {
    await settleAs(errorStatus(d.action, 'APPLY'), `The service's configuration could not be read: ${(err as Error).message}`);
    return;
  }
  const steps = stepsOf(d.action, driver.needsBuild(target));
  const current = stepOfStatus(d.status);
  let index = current ? Math.max(0, steps.indexOf(current)) : 0;
  const controller = new AbortController();
  ctx.lifecycle.running.set(d.id, controller);
  const log = (kind: 'BUILD' | 'DEPLOY' | 'RUNTIME', message: string) => repo.insertLog(db, d.id, d.service_id, kind, message);
  // alive while it runs, log lines or not (a silent build step or a long readiness wait is not abandoned)
  const beat = setInterval(() => { repo.heartbeat(db, d.id).catch(() => {}); }, heartbeatMs(ctx.settings));
  try {
    for (; index < steps.length; index++) {
      const step: Step = steps[index]!;
      if (runningStatus(step) !== d.status) {
        await db.transaction(async (tx) => {
          const open = await repo.findDeployment(tx, d.id);
          if (open && !open.finished) await advance(tx, ctx.lifecycle, open, runningStatus(step));
        });
      }
      const fresh = await repo.findDeployment(db, d.id);
      if (!fresh || fresh.finished) return;
      d = fresh;
      if (d.cancel_requested) throw new Error('canceled');
      try {
        const own = step === 'APPLY' ? ctx.applyByType[target.type] : undefined;
        const built = own
          ? await own(target, log, controller.signal, running(db, d.id))
          : await runStep(driver, step, target, log, controller.signal);
        if (step === 'APPLY' && target.plan?.database?.publicAccess && driver.publishedHost) {
          await recordPublishedHost(db, target.id, await driver.publishedHost(target));
        }
        if (built) {
          await repo.recordBuild(db, d.id, built.gitCommitId, built.imageTag);
          target = { ...target, gitCommitId: built.gitCommitId ?? target.gitCommitId, imageTag: built.imageTag };
        }
      } catch (err) {
        if (err instanceof EngineFailure) {
          await log('DEPLOY', `${errorStatus(d.action, step)}: ${err.message}`);
          await settleAs(errorStatus(d.action, step), err.message);
          return;
        }
        throw err;
      }
    }
    const last = await repo.findDeployment(db, d.id);
    await settleAs(last?.cancel_requested ? 'CANCELED' : SUCCESS_STATUS[d.action], null);
  } catch (err) {
    const fresh = await repo.findDeployment(db, d.id);
    if (!fresh) return; // gone with its environment
    if (!fresh.finished && (fresh.cancel_requested || controller.signal.aborted)) {
      await log('DEPLOY', 'Deployment canceled');
      await settleAs('CANCELED', 'Canceled by a user');
      return;
    }
    throw err; // unexpected (e.g. database): the task is retried and resumes from the recorded step
  } finally {
    clearInterval(beat);
    ctx.lifecycle.running.delete(d.id);
  }
}

/** four heartbeats per stale period (at most four a second) */
const heartbeatMs = (settings: DeploymentWorkerSettings) => Math.max(250, (settings.staleSeconds * 1000) / 4);

/** a real engine needs the runtime plan (variables with secrets opened, credentials); the simulated one does not */
async function withPlan(ctx: RunnerDeps, s: DriverService): Promise<DriverService> {
  if (!ctx.engine.real || s.plan) return s;
  return { ...s, plan: await buildRuntimePlan(ctx, s.id) };
}

async function runStep(driver: EngineDriver, step: Step, s: DriverService, log: LogSink, signal: AbortSignal) {
  switch (step) {
    case 'BUILD': return driver.build(s, log, signal);
    case 'APPLY': return driver.apply(s, log, signal);
    case 'STOP': return driver.stop(s, log, signal);
    case 'RESTART': return driver.restart(s, log, signal);
    case 'UNINSTALL': return driver.uninstall(s, log, signal);
  }
}

/** resumes (re-enqueues) deployments whose worker went silent, or fails them after maxRecoveries */
async function sweepAbandonedDeployments(ctx: RunnerState): Promise<{ resumed: number; failed: number }> {
  const stale = await repo.staleRunning(ctx.db, ctx.settings.staleSeconds);
  let resumed = 0;
  let failed = 0;
  for (const s of stale) {
    await ctx.db.transaction(async (tx) => {
      const d = await repo.findDeployment(tx, s.id);
      if (!d || d.finished) return;
      if (d.recoveries >= ctx.settings.maxRecoveries) {
        await settle(tx, ctx.lifecycle, d, d.status === 'BUILDING' ? 'BUILD_ERROR' : errorStatus(d.action, stepOfStatus(d.status) ?? 'APPLY'),
          'The worker running this deployment stopped responding; the deployment was abandoned');
        failed++;
        return;
      }
      await repo.countRecovery(tx, d.id);
      await ctx.queue.enqueue(tx, 'deployments.run', { deploymentId: d.id });
      resumed++;
    });
  }
  // queues whose wake-up was lost (defensive): wake environments whose head waited too long
  for (const environmentId of await repo.environmentsWaitingLong(ctx.db, ctx.settings.staleSeconds)) {
    await ctx.db.transaction((tx) => wakeQueue(tx, ctx.lifecycle, environmentId));
  }
  return { resumed, failed };
}
