// The `simulated` engine driver (tests, Docker-less hosts): walks the real state machine with short
// step times, each driver its own (`createSimulatedDriver({ stepMs })`, `driver.configure(…)`), and
// writes believable build, deploy and runtime log lines. Failure
// marker: a service whose name or spec contains `fail-build` fails its build (BUILD_ERROR), one
// containing `fail-deploy` fails its deployment (DEPLOYMENT_ERROR); so does a variable
// BERTH_SIMULATE_FAILURE=build|deploy on the service. See README "Simulated engine".
import type { DriverService, EngineDriver, LogSink, RuntimeStatus } from './engine.ts';
import { EngineFailure } from './engine.ts';
import { simulatedBackups } from './simulated-backups.ts';

export interface SimulatedSettings {
  /** duration of each simulated step (tests use ~50 ms) */
  stepMs: number;
}

/** the simulated driver: an engine driver whose settings are its own, changed through `configure` */
export interface SimulatedDriver extends EngineDriver {
  readonly name: 'simulated';
  /** this driver's current settings */
  readonly settings: Readonly<SimulatedSettings>;
  /** tests change the step time mid-flow (a slower step to catch a deployment running, and back) */
  configure(settings: Partial<SimulatedSettings>): void;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason ?? new Error('aborted'));
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason ?? new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function failureMarker(service: DriverService): 'build' | 'deploy' | null {
  const variable = service.simulateFailure?.trim().toLowerCase();
  if (variable === 'build' || variable === 'deploy') return variable;
  const text = `${service.name} ${JSON.stringify(service.spec)}`.toLowerCase();
  if (text.includes('fail-build')) return 'build';
  if (text.includes('fail-deploy')) return 'deploy';
  return null;
}

function labelled(sink: LogSink): LogSink {
  return (kind, message) => sink(kind, SIMULATED_PREFIX + message);
}

function gitSource(spec: Record<string, unknown>): Record<string, unknown> | null {
  const direct = spec.git_repository;
  if (direct && typeof direct === 'object') return direct as Record<string, unknown>;
  const source = spec.source as Record<string, unknown> | undefined;
  const docker = source?.docker as Record<string, unknown> | undefined;
  const nested = docker?.git_repository;
  return nested && typeof nested === 'object' ? nested as Record<string, unknown> : null;
}

function imageOf(service: DriverService): string {
  const s = service.spec;
  const image = (s.image_name as string | undefined) ?? ((s.source as Record<string, any> | undefined)?.image?.image_name as string | undefined);
  const tag = service.imageTag ?? (s.tag as string | undefined) ?? ((s.source as Record<string, any> | undefined)?.image?.tag as string | undefined) ?? 'latest';
  if (image) return `${image}:${tag}`;
  if (service.type === 'DATABASE') return `${String(s.type ?? 'postgresql').toLowerCase()}:${String(s.version ?? 'latest')}`;
  return `registry.berth.local/${service.slug}:${service.gitCommitId?.slice(0, 12) ?? 'latest'}`;
}

/** every line the simulated engine writes says so */
const SIMULATED_PREFIX = '[simulated] ';

/** `initial`: this driver's step time (400 ms by default; tests shorten it) */
export function createSimulatedDriver(initial: Partial<SimulatedSettings> = {}): SimulatedDriver {
  const settings: SimulatedSettings = { stepMs: 400, ...initial };
  const step = (signal: AbortSignal) => sleep(settings.stepMs, signal);
  return {
    name: 'simulated',
    get settings() { return { ...settings }; },
    configure(changes) { Object.assign(settings, changes); },
    real: false,
    publicUrlsUnavailable: 'the simulated engine runs nothing; they answer once a real engine (docker) serves the service',
    needsBuild(service) {
      return (service.type === 'APPLICATION' || service.type === 'JOB') && gitSource(service.spec) !== null;
    },
    async build(service, sink, signal) {
      const log = labelled(sink);
      const git = gitSource(service.spec) ?? {};
      const commit = service.gitCommitId ?? 'HEAD';
      await log('BUILD', `Cloning ${String(git.url ?? 'repository')} (branch ${String(git.branch ?? 'main')}) at ${commit}`);
      await step(signal);
      await log('BUILD', `Building image with ${String(service.spec.build_mode ?? 'DOCKER')} (${String(service.spec.dockerfile_path ?? 'Dockerfile')})`);
      await log('BUILD', 'Step 1/4 : FROM node:24-alpine');
      await log('BUILD', 'Step 2/4 : COPY . /app');
      if (failureMarker(service) === 'build') {
        await log('BUILD', 'error: build step 3/4 exited with code 1 (simulated failure: fail-build marker)');
        throw new EngineFailure('build', 'Build failed (simulated failure marker fail-build)');
      }
      await log('BUILD', 'Step 3/4 : RUN npm ci');
      await log('BUILD', 'Step 4/4 : CMD ["node", "server.js"]');
      await step(signal);
      await log('BUILD', `Pushed ${imageOf(service)}`);
    },
    async apply(service, sink, signal) {
      const log = labelled(sink);
      await log('DEPLOY', `Applying ${service.type.toLowerCase()} ${service.name} with image ${imageOf(service)}`);
      await step(signal);
      if (failureMarker(service) === 'deploy') {
        await log('DEPLOY', 'error: pod crashed during start: CrashLoopBackOff (simulated failure: fail-deploy marker)');
        throw new EngineFailure('deploy', 'Deployment failed: the service did not become ready (simulated failure marker fail-deploy)');
      }
      const instances = Number(service.spec.min_running_instances ?? 1);
      await log('DEPLOY', `Waiting for ${instances} instance(s) to be ready`);
      await step(signal);
      await log('DEPLOY', `${service.name} is ready (${instances}/${instances} instances running)`);
      const port = (service.spec.ports as Array<Record<string, unknown>> | undefined)?.[0]?.internal_port ?? 8080;
      await log('RUNTIME', `Starting ${service.name}`);
      await log('RUNTIME', service.type === 'DATABASE' ? 'database system is ready to accept connections' : `Listening on port ${String(port)}`);
    },
    async stop(service, sink, signal) {
      const log = labelled(sink);
      await log('DEPLOY', `Scaling ${service.name} down to 0 instances`);
      await step(signal);
      await log('RUNTIME', `Received SIGTERM, shutting down ${service.name}`);
      await log('DEPLOY', `${service.name} stopped`);
    },
    async restart(service, sink, signal) {
      const log = labelled(sink);
      await log('DEPLOY', `Restarting the instances of ${service.name}`);
      await step(signal);
      await log('RUNTIME', `Starting ${service.name}`);
      await log('DEPLOY', `${service.name} restarted`);
    },
    async uninstall(service, sink, signal) {
      const log = labelled(sink);
      await log('DEPLOY', `Removing the Kubernetes objects of ${service.name} (configuration kept)`);
      await step(signal);
      await log('DEPLOY', `${service.name} uninstalled`);
    },
    async runJob(service, _runId, command, line, signal) {
      await line(`${SIMULATED_PREFIX}Running the ${command} command of ${service.name} (nothing is executed)`);
      await step(signal);
      const fails = failureMarker(service) === 'deploy';
      await line(`${SIMULATED_PREFIX}${fails ? 'Exited with code 1 (fail-deploy marker)' : 'Exited with code 0'}`);
      return { exitCode: fails ? 1 : 0, attempts: 1, reason: fails ? 'exited with code 1' : null };
    },
    async runAgent(run, sink, signal) {
      const log = labelled(sink);
      const started = Date.now();
      await log('DEPLOY', `Starting an agent run of ${run.workflowSlug}: no container starts and no model is called`);
      await step(signal);
      await log('RUNTIME', `Agent started: model ${run.model.modelId ?? 'default'}, MCP servers: ${Object.keys(run.mcpServers).join(', ') || 'none'}`);
      const fails = run.workflowSlug.includes('fail-deploy');
      const result = fails ? null : 'No agent ran: the simulated engine calls no model';
      await log('RUNTIME', fails ? 'Agent failed (simulated failure marker fail-deploy)' : `result: ${result}`);
      return {
        status: fails ? 'FAILED' : 'SUCCEEDED', message: fails ? `${SIMULATED_PREFIX}The agent failed (simulated failure marker fail-deploy)` : null,
        result: result ? `${SIMULATED_PREFIX}${result}` : null, numTurns: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, durationMs: Date.now() - started,
      };
    },
    /** a dump is a labelled text document; restore and drill accept only such a one of the same type */
    databaseBackups: simulatedBackups(),
    /** there is no ingress: nothing to apply */
    async applyIngressSettings() { return []; },
    async status(): Promise<RuntimeStatus> {
      return { state: 'UNKNOWN' };
    },
  };
}

