// The `docker` engine driver: real deployments on one host. Applications are cloned and built
// from their Dockerfile, containers pulled from their registry, databases run from the official
// image of their type on a named volume, jobs run to completion; long-running services roll out
// without downtime behind the ingress. It acts on the daemon only (never the database): log
// lines go to the sink, failures are EngineFailures with the tool's own words.
import type Docker from 'dockerode';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentRunSpec, BuildResult, DriverService, EngineDriver, IngressSettingsTarget, LogSink, RuntimeStatus } from '../engine.ts';
import { EngineFailure } from '../engine.ts';
import type { RuntimePlan } from '../plan.ts';
import { buildImage } from './build.ts';
import { createDatabaseBackups, replicaLocator } from './backups.ts';
import { databaseContainer } from './databases.ts';
import { ensureImage } from './images.ts';
import { runJobToCompletion } from './jobs.ts';
import { builtImageTag, labelFilter, networkName, ownerLabels, parseProbe, parseRoutes, volumeName, type OwnerIds } from './naming.ts';
import { listReplicas, publishedPorts, probeTarget, stopAndRemove } from './replicas.ts';
import { serviceSettings } from '../settings.ts';
import { terminate, terminationOf } from './termination.ts';
import { rollout, switchIngress, type IngressLike } from './rollout.ts';
import { applyIngressSettings, ingressWithSettings } from './ingress-settings.ts';
import { replicasForDeploy } from './autoscale.ts';
import { cloneRepository } from './source.ts';
import { waitReady } from './health.ts';
import { ensureEnvironmentNetwork } from './networks.ts';
import { runAgent } from '../agent/runner.ts';
import { publishAddress, redactUrls } from '../../lib/net.ts';

/** why links do not answer on a docker engine without its ingress proxy */
export const NO_INGRESS = 'public URLs are unavailable: haproxy, the ingress proxy, is not installed on the berth host and cannot run as a container there (install haproxy, or set HAPROXY_BIN; or let the local Docker daemon pull INGRESS_IMAGE: berth\'s start log says why it could not)';

export interface DockerDriverOptions {
  docker: Docker;
  ingress: IngressLike | null;
  ingressSettings: { domain: string; port: number };
  /** INGRESS_HOST: where PUBLIC databases' ports are published (default 127.0.0.1) */
  publicHost?: string;
  allowLocalGit: boolean;
  /** how long a new version may take to pass readiness */
  readyTimeoutMs?: number;
  /** INGRESS_DRAIN_SECONDS: the longest a replaced version keeps its open connections through the ingress */
  drainMs?: number;
  /** AGENT_BASE_IMAGE: what agent runs are built on */
  agentBaseImage?: string;
}

function planOf(service: DriverService): RuntimePlan {
  if (!service.plan) throw new EngineFailure('deploy', 'The service has no runtime plan (internal error)');
  return service.plan;
}

function idsOf(service: DriverService): OwnerIds {
  return { serviceId: service.id, environmentId: service.environmentId, projectId: service.projectId ?? '', organizationId: service.organizationId ?? '' };
}

/** the image a deployment runs: the built tag (git), the registry image, or the database's */
export function imageToRun(service: DriverService, plan: RuntimePlan): string {
  if (plan.database) return databaseContainer(plan.database).image;
  if (plan.source?.kind === 'image') return plan.source.ref;
  if (service.imageTag) return service.imageTag;
  if (service.gitCommitId) return builtImageTag(service.id, service.gitCommitId);
  throw new EngineFailure('deploy', 'No image was built for this deployment');
}

const lineLogger = (log: LogSink, kind: 'BUILD' | 'DEPLOY' | 'RUNTIME') => (text: string) => log(kind, text);

export type DockerDriver = EngineDriver & { name: 'docker'; docker: Docker; ingress: IngressLike | null; runJob: (service: DriverService, runId: string, command: 'cron' | 'start' | 'stop' | 'delete', line: (text: string) => Promise<void>, signal: AbortSignal) => ReturnType<typeof runJobToCompletion> };

export function createDockerDriver(options: DockerDriverOptions): DockerDriver {
  const { docker } = options;
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  const drainMs = options.drainMs ?? 30_000;

  const ensureNetwork = (service: DriverService) => ensureEnvironmentNetwork(docker, idsOf(service));

  async function pullIfNeeded(service: DriverService, plan: RuntimePlan, log: LogSink, signal: AbortSignal): Promise<string> {
    const image = imageToRun(service, plan);
    const auth = plan.source?.kind === 'image' ? plan.source.auth : null;
    await ensureImage(docker, image, auth, lineLogger(log, 'DEPLOY'), signal);
    return image;
  }

  async function runJob(service: DriverService, runId: string, command: 'cron' | 'start' | 'stop' | 'delete', line: (text: string) => Promise<void>, signal: AbortSignal) {
    const plan = planOf(service);
    const image = imageToRun(service, plan);
    await ensureImage(docker, image, plan.source?.kind === 'image' ? plan.source.auth : null, line, signal);
    await ensureNetwork(service);
    const job = plan.job!;
    const cmd = command === 'cron' ? job.cron : command === 'start' ? job.onStart : command === 'stop' ? job.onStop : job.onDelete;
    return runJobToCompletion({
      docker, ids: idsOf(service), slug: service.slug, runId, image, plan, command: cmd, settings: serviceSettings(service.advancedSettings), cron: command === 'cron',
    }, line, signal);
  }

  const driver = {
    name: 'docker' as const,
    real: true,
    docker,
    ingress: options.ingress,
    runJob,
    publicUrlsUnavailable: options.ingress ? null : NO_INGRESS,
    applyIngressSettings: (service: IngressSettingsTarget) => applyIngressSettings(docker, options.ingress, service),
    databaseBackups: createDatabaseBackups({ locate: replicaLocator(docker), canStopContainer: true }),
    runAgent(run: AgentRunSpec, log: LogSink, signal: AbortSignal) {
      return runAgent({ docker, baseImage: options.agentBaseImage ?? 'debian:bookworm-slim', allowLocalGit: options.allowLocalGit }, run, log, signal);
    },
    needsBuild(service: DriverService) {
      if (service.plan) return service.plan.source?.kind === 'git';
      const source = service.spec.source as { docker?: unknown } | undefined;
      return service.type === 'APPLICATION' || (service.type === 'JOB' && !!source?.docker);
    },
    async build(service: DriverService, log: LogSink, signal: AbortSignal): Promise<BuildResult> {
      const plan = planOf(service);
      if (plan.source?.kind !== 'git') throw new EngineFailure('build', 'Nothing to build: the service has no git source');
      const { git, dockerfilePath, dockerfileRaw, target } = plan.source;
      const limits = serviceSettings(service.advancedSettings).build;
      // build.timeout_max_sec bounds the clone and the build together (0: no limit)
      const timeout = limits.timeoutSeconds > 0 ? AbortSignal.timeout(limits.timeoutSeconds * 1000) : null;
      const stopped = timeout ? AbortSignal.any([signal, timeout]) : signal;
      const workDir = await mkdtemp(join(tmpdir(), 'berth-build-'));
      try {
        let contextDir = workDir;
        let commit: string | null = null;
        if (git) {
          await log('BUILD', `Cloning ${redactUrls(git.url)} (${service.gitCommitId ?? git.commit ? `commit ${service.gitCommitId ?? git.commit}` : `branch ${git.branch ?? 'main'}`})`);
          const source = { ...git, commit: service.gitCommitId ?? git.commit };
          const cloned = await cloneRepository(source, { allowLocal: options.allowLocalGit, workDir, submodules: !limits.skipSubmodules }, lineLogger(log, 'BUILD'), stopped);
          commit = cloned.commit;
          contextDir = cloned.contextDir;
        }
        let dockerfile = dockerfilePath;
        if (dockerfileRaw) {
          dockerfile = '.berth.Dockerfile';
          await writeFile(join(contextDir, dockerfile), dockerfileRaw);
        }
        const version = commit ?? createHash('sha256').update(dockerfileRaw ?? '').digest('hex');
        const tag = builtImageTag(service.id, version);
        await log('BUILD', `Building ${tag}${commit ? ` at ${commit.slice(0, 12)}` : ''} with ${dockerfile ?? 'Dockerfile'}`);
        await buildImage(docker, {
          contextDir, dockerfilePath: dockerfile, tag, buildArgs: plan.env, ...(target ? { target } : {}),
          labels: { ...ownerLabels(idsOf(service)), 'berth.version': version },
          cpuMilli: limits.cpuMilli, noCache: limits.noCache, ...(limits.ramGiB > 0 ? { memoryBytes: limits.ramGiB * 1024 ** 3 } : {}),
        }, lineLogger(log, 'BUILD'), stopped);
        await log('BUILD', `Built ${tag}`);
        return { gitCommitId: commit, imageTag: tag };
      } catch (err) {
        if (timeout?.aborted && !signal.aborted) {
          throw new EngineFailure('build', `The build took longer than build.timeout_max_sec (${limits.timeoutSeconds} s) and was stopped`);
        }
        throw err;
      } finally {
        await rm(workDir, { recursive: true, force: true }).catch(() => {});
      }
    },
    async apply(service: DriverService, log: LogSink, signal: AbortSignal) {
      const plan = planOf(service);
      if (plan.database?.mode === 'MANAGED') {
        throw new EngineFailure('deploy', 'MANAGED databases need a cloud provider, which the docker engine does not have: create the database in CONTAINER mode');
      }
      if (plan.database?.publicAccess && plan.database.publicPort === null) {
        throw new EngineFailure('deploy', 'This PUBLIC database has no reserved port: edit it (PUT /database/{id}) to reserve one');
      }
      await ensureNetwork(service);
      const image = await pullIfNeeded(service, plan, log, signal);
      if (plan.job) {
        if (plan.job.jobType === 'CRON') {
          await log('DEPLOY', `Cron job ready: ${image} runs on schedule "${plan.job.cron?.schedule}" (${plan.job.cron?.timezone})`);
          return;
        }
        if (!plan.job.onStart) {
          await log('DEPLOY', 'Lifecycle job has no on_start command: nothing to run at deploy');
          return;
        }
        const outcome = await runJob(service, service.deploymentId ?? 'deploy', 'start', lineLogger(log, 'RUNTIME'), signal);
        if (outcome.exitCode !== 0) throw new EngineFailure('deploy', `The job's on_start run ${outcome.reason} after ${outcome.attempts} attempt(s)`);
        await log('DEPLOY', `Job on_start finished with exit code 0 after ${outcome.attempts} attempt(s)`);
        return;
      }
      const database = plan.database ? databaseContainer(plan.database) : null;
      const publicPort = plan.database?.publicPort
        ? { internalPort: plan.database.port, hostIp: publishAddress(options.publicHost ?? '127.0.0.1'), hostPort: plan.database.publicPort } : null;
      for (const key of [...plan.volumes.map((v) => v.key), ...(database ? ['data'] : [])]) {
        await docker.createVolume({ Name: volumeName(service.id, key), Labels: ownerLabels(idsOf(service)) });
      }
      // an autoscaled service keeps the replicas it runs now, within its bounds (decision 0338)
      const replicas = await replicasForDeploy(docker, service.id, service.deploymentId ?? '', plan);
      if (replicas > Math.max(1, plan.replicas)) await log('DEPLOY', `Autoscaled: starting as many replicas as run now, ${replicas} (between ${Math.max(1, plan.replicas)} and ${plan.maxReplicas})`);
      await rollout({
        docker, ingress: await ingressWithSettings(options.ingress, service.advancedSettings, plan, log), ingressSettings: options.ingressSettings, ids: idsOf(service), slug: service.slug,
        generation: service.deploymentId ?? `${Date.now()}`, image, plan: { ...plan, replicas }, readyTimeoutMs, drainMs,
        extraEnv: database?.env, cmd: database?.cmd, dataDir: database?.dataDir, publicPort, settings: serviceSettings(service.advancedSettings),
      }, log, signal);
      if (publicPort) await log('DEPLOY', `Published on ${publicPort.hostIp}:${publicPort.hostPort} (PUBLIC)`);
      await log('DEPLOY', `${service.name} is running`);
    },
    async stop(service: DriverService, log: LogSink, signal: AbortSignal) {
      const job = service.plan?.job;
      if (job?.jobType === 'LIFECYCLE' && job.onStop) {
        const outcome = await runJob(service, service.deploymentId ?? 'stop', 'stop', lineLogger(log, 'RUNTIME'), signal);
        if (outcome.exitCode !== 0) throw new EngineFailure('stop', `The job's on_stop run ${outcome.reason} after ${outcome.attempts} attempt(s)`);
        await log('DEPLOY', `Job on_stop finished with exit code 0 after ${outcome.attempts} attempt(s)`);
      }
      const all = await listReplicas(docker, service.id);
      for (const route of new Set(all.flatMap((c) => parseRoutes(c.Labels['berth.routes']).map((r) => r.id)))) await options.ingress?.remove(route);
      const replicas = all.filter((c) => c.State === 'running' || c.State === 'restarting');
      await log('DEPLOY', `Stopping ${replicas.length} replica(s) (data and configuration kept)`);
      const termination = terminationOf(serviceSettings(service.advancedSettings));
      await terminate(docker, replicas, termination, log, { then: 'stop' });
      // job runs in progress get the grace period too (no pre-stop command: jobs have none)
      const runs = await docker.listContainers({ filters: labelFilter({ 'berth.service_id': service.id, 'berth.role': 'job-run' }) });
      await terminate(docker, runs, { ...termination, preStop: null }, log, { then: 'stop' });
      await log('DEPLOY', `${service.name} stopped`);
    },
    async restart(service: DriverService, log: LogSink, signal: AbortSignal) {
      const replicas = await listReplicas(docker, service.id);
      if (replicas.length === 0) throw new EngineFailure('restart', 'The service has no replicas to restart: deploy it first');
      // what runs is restarted: its own readiness probe (a label), not one edited since
      const termination = terminationOf(serviceSettings(service.advancedSettings));
      for (const c of replicas) {
        await log('DEPLOY', `Restarting ${c.Names[0]?.replace(/^\//, '') ?? c.Id.slice(0, 12)}`);
        await terminate(docker, [c], termination, log, { then: 'restart' });
        const fresh = (await listReplicas(docker, service.id)).find((x) => x.Id === c.Id);
        const ports = fresh ? publishedPorts(fresh) : new Map<number, number>();
        const probe = parseProbe(c.Labels['berth.readiness']);
        if (probe) {
          await waitReady(probe, probeTarget(docker, c.Id, ports), signal, readyTimeoutMs).catch((err: Error) => {
            throw new EngineFailure('restart', `The replica did not become ready after the restart: ${err.message}`);
          });
        }
      }
      const running = await listReplicas(docker, service.id, false);
      const routes = parseRoutes(running[0]?.Labels['berth.routes']);
      await switchIngress(options, routes, running.map((c) => ({ hostPorts: publishedPorts(c) })), log);
      await log('DEPLOY', `${service.name} restarted`);
    },
    async uninstall(service: DriverService, log: LogSink, signal: AbortSignal, opts: { purge?: boolean } = {}) {
      const job = service.plan?.job;
      if (job?.jobType === 'LIFECYCLE' && job.onDelete) {
        const outcome = await runJob(service, service.deploymentId ?? 'delete', 'delete', lineLogger(log, 'RUNTIME'), signal);
        await log('DEPLOY', `Job on_delete ${outcome.exitCode === 0 ? 'finished with exit code 0' : outcome.reason}`);
      }
      const all = await docker.listContainers({ all: true, filters: labelFilter({ 'berth.service_id': service.id }) });
      for (const route of new Set(all.flatMap((c) => parseRoutes(c.Labels['berth.routes']).map((r) => r.id)))) await options.ingress?.remove(route);
      const running = all.filter((c) => c.State === 'running' && c.Labels['berth.role'] === 'replica');
      await terminate(docker, running, terminationOf(serviceSettings(service.advancedSettings)), log, { then: 'remove' });
      await stopAndRemove(docker, all.filter((c) => !running.includes(c)).map((c) => c.Id), 5);
      await log('DEPLOY', `Removed ${all.length} container(s) of ${service.name}`);
      // an agent run interrupted here leaves its own network: it goes with the workflow
      const runNetworks = await docker.listNetworks({ filters: labelFilter({ 'berth.service_id': service.id, 'berth.role': 'agent-network' }) });
      await Promise.all(runNetworks.map((n) => docker.getNetwork(n.Id).remove().catch(() => {})));
      const left = await docker.listContainers({ all: true, filters: labelFilter({ 'berth.environment_id': service.environmentId }) });
      if (left.length === 0) {
        await docker.getNetwork(networkName(service.environmentId)).remove().catch(() => {});
      }
      if (opts.purge) {
        const volumes = await docker.listVolumes({ filters: labelFilter({ 'berth.service_id': service.id }) });
        const named = (volumes.Volumes ?? []).map((v) => v.Name);
        for (const name of new Set([...named, volumeName(service.id, 'data')])) await docker.getVolume(name).remove().catch(() => {});
        const images = await docker.listImages({ filters: labelFilter({ 'berth.service_id': service.id }) });
        for (const image of images) await docker.getImage(image.Id).remove({ force: true }).catch(() => {});
        await log('DEPLOY', `Removed the service's volumes and ${images.length} image(s) built for it`);
      }
    },
    async status(service: DriverService): Promise<RuntimeStatus> {
      const replicas = await listReplicas(docker, service.id);
      if (replicas.length === 0) return { state: 'UNKNOWN' };
      const running = replicas.filter((c) => c.State === 'running');
      if (running.length === replicas.length) return { state: 'RUNNING' };
      if (running.length === 0 && replicas.every((c) => c.State === 'exited')) return { state: 'STOPPED', detail: replicas[0]!.Status };
      return { state: 'ERROR', detail: replicas.filter((c) => c.State !== 'running').map((c) => c.Status).join('; ') };
    },
  };
  return driver;
}

