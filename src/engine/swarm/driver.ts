// The `swarm` engine driver (ENGINE=swarm, decision 0343): berth's services as Docker Swarm
// services on the manager at DOCKER_HOST. What is the same as on one host is the docker driver's:
// builds (on the manager), the image to run, databases' images, settings, links; an agent run is
// the docker engine's run as two Swarm tasks on one node (agent-runs.ts). What Swarm does is Swarm's: scheduling over the nodes, the
// rolling update and its rollback, restarts of failed tasks, rescheduling when a node is drained
// or dies. berth waits for convergence, keeps the ingress routes on the running tasks (node
// address : host-mode port) and reports.
import type Docker from 'dockerode';
import type { AgentRunSpec, BuildResult, DriverService, EngineDriver, EngineNode, IngressSettingsTarget, LogSink, RuntimeStatus } from '../engine.ts';
import { EngineFailure } from '../engine.ts';
import { createDockerDriver, imageToRun, NO_INGRESS } from '../docker/driver.ts';
import { databaseContainer } from '../docker/databases.ts';
import { ingressWithSettings } from '../docker/ingress-settings.ts';
import { routeSettingsOf } from '../ingress/settings.ts';
import { parseRoutes, type OwnerIds } from '../docker/naming.ts';
import { readinessOf, routesOf, type IngressLike } from '../docker/rollout.ts';
import { serviceSettings } from '../settings.ts';
import type { RuntimePlan } from '../plan.ts';
import { copyToNodes, nodeDaemons, pullAuthOf, pushAuthOf, pushToRegistry, type NodeDaemon } from './images.ts';
import { runSwarmJob } from './jobs.ts';
import { runSwarmAgent } from './agent-runs.ts';
import { swarmDatabaseBackups } from './backups.ts';
import { serviceSpec, swarmServiceName } from './spec.ts';
import { daemonMessage } from '../docker/stream.ts';
import { converge, inspectService, listNodes, listServices, listTasks, routeKeeper, type SwarmService } from './tasks.ts';
import { fileConfigs, removeConfigs } from './configs.ts';
import { ensureNetwork, pinnedNode, pinVolumes, purgeService, removeNetwork, sweepContainers } from './resources.ts';

export interface SwarmDriverOptions {
  /** the manager */
  docker: Docker;
  /** the nodes' own daemons berth can reach (SWARM_NODE_DOCKER_HOSTS): image copies without a registry, volume purge */
  nodes: Docker[];
  /** SWARM_REGISTRY: where built images are pushed for every node to pull; null: berth copies them */
  registry: string | null;
  ingress: IngressLike | null;
  ingressSettings: { domain: string; port: number };
  allowLocalGit: boolean;
  readyTimeoutMs?: number;
  agentBaseImage?: string;
  /** the nodes' addresses, shared with the ingress (the only hosts besides loopback its routes may dial); kept current here */
  nodeAddresses?: Set<string>;
}

export type SwarmDriver = EngineDriver & { name: 'swarm'; docker: Docker; ingress: IngressLike | null; nodes(): Promise<EngineNode[]>; syncAll(known: (serviceIds: string[]) => Promise<ReadonlySet<string>>): Promise<SwarmServiceHealth[]> };

/** what the observer needs per berth service on the Swarm */
interface SwarmServiceHealth {
  serviceId: string; generation: string | null; desired: number; running: number; detail: string;
  /** the Swarm service's own id (its logs are followed by it) */
  swarmId: string;
  /** tasks last seen running on a node that is down now (lost with it; Swarm starts replacements elsewhere) */
  lost: string[];
}

function planOf(service: DriverService): RuntimePlan {
  if (!service.plan) throw new EngineFailure('deploy', 'The service has no runtime plan');
  return service.plan;
}

const idsOf = (s: DriverService): OwnerIds => ({ serviceId: s.id, environmentId: s.environmentId, projectId: s.projectId ?? '', organizationId: s.organizationId ?? '' });

export function createSwarmDriver(options: SwarmDriverOptions): SwarmDriver {
  const { docker } = options;
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  const local = createDockerDriver({ docker, ingress: null, ingressSettings: options.ingressSettings, allowLocalGit: options.allowLocalGit, agentBaseImage: options.agentBaseImage });
  const routes = routeKeeper(options.ingress);
  let daemons: Promise<NodeDaemon[]> | null = null;
  const nodeClients = () => (daemons ??= nodeDaemons(options.nodes));
  const addresses = options.nodeAddresses ?? new Set<string>();
  /** the nodes, their addresses noted for the ingress first */
  const nodesNow = async () => {
    const nodes = await listNodes(docker);
    for (const n of nodes) if (n.address) addresses.add(n.address);
    return nodes;
  };
  /** the manager and every node daemon berth reaches */
  const everyDaemon = async () => [docker, ...(await nodeClients()).map((n) => n.docker)];
  const managerId = async () => ((await docker.info()) as { Swarm?: { NodeID?: string } }).Swarm?.NodeID ?? '';

  const inspect = (name: string) => inspectService(docker, name);

  async function deployService(service: DriverService, plan: RuntimePlan, image: string, log: LogSink, signal: AbortSignal, force: 'bump' | 'keep' = 'keep') {
    const ids = idsOf(service);
    const name = swarmServiceName(service.slug, service.id);
    const network = await ensureNetwork(docker, service.environmentId, ids);
    const settings = serviceSettings(service.advancedSettings);
    const database = plan.database ? databaseContainer(plan.database) : null;
    const pinned = plan.volumes.length > 0 || !!database;
    if (pinned) await pinVolumes(docker, service.id, log);
    const current = await inspect(name);
    const files = await fileConfigs(docker, name, ids, plan.files);
    const routeLabels = routesOf(service.id, service.slug, service.environmentId, plan, options.ingressSettings);
    const ingress = await ingressWithSettings(options.ingress, service.advancedSettings, plan, log);
    if (ingress && options.ingress) for (const r of routeLabels) routes.forget(r.id);
    await nodesNow();
    const generation = service.deploymentId ?? `${Date.now()}`;
    const forceUpdate = (current?.Spec?.TaskTemplate?.ForceUpdate ?? 0) + (force === 'bump' ? 1 : 0);
    const replicas = Math.max(1, plan.replicas);
    const spec = serviceSpec({
      name, ids, slug: service.slug, generation, image, plan, network, routes: routeLabels, readiness: readinessOf(plan), settings, replicas,
      extraEnv: database?.env, cmd: database?.cmd, dataDir: database?.dataDir, publicPort: plan.database?.publicAccess ? plan.database.publicPort : null,
      pinned, files, forceUpdate,
    });
    const auth = pullAuthOf(plan);
    if (current) {
      await log('DEPLOY', `Updating Swarm service ${name} (${replicas} replica(s), ${spec.UpdateConfig && (spec.UpdateConfig as { Order: string }).Order}, rollback on failure)`);
      await docker.getService(name).update({ ...(auth ? { authconfig: auth } : {}), version: current.Version.Index, ...spec } as never);
    } else {
      await log('DEPLOY', `Creating Swarm service ${name} (${replicas} replica(s) spread over the nodes, endpoint mode dnsrr)`);
      const create = () => docker.createService((auth ?? {}) as never, spec as never) as unknown as Promise<unknown>;
      // the environment's last service was just removed and its network is going with it (an uninstall
      // overlapping this deployment): wait until it is gone, make it again, and create the service then
      for (let attempt = 0; ; attempt++) {
        try {
          await create();
          break;
        } catch (err) {
          if (!/network .*not found/i.test(daemonMessage(err)) || attempt >= 40) throw err;
          if (attempt === 0) await log('DEPLOY', `The environment's network is being removed (${daemonMessage(err)}): creating it again`);
          await new Promise((r) => setTimeout(r, 250));
          await ensureNetwork(docker, service.environmentId, ids);
        }
      }
    }
    // the ingress routes carry the service's settings: the keeper upserts through the wrapped ingress
    const keeper = ingress ? routeKeeper(ingress) : routes;
    await converge({ docker, name, generation, forceUpdate, replicas, routes: keeper, timeoutMs: readyTimeoutMs, phase: force === 'bump' ? 'restart' : 'deploy' }, log, signal);
    await removeConfigs(docker, name, files.map((f) => f.id));
  }

  const driver: SwarmDriver = {
    name: 'swarm',
    real: true,
    docker,
    ingress: options.ingress,
    publicUrlsUnavailable: options.ingress ? null : NO_INGRESS,
    needsBuild: (service) => local.needsBuild(service),
    databaseBackups: swarmDatabaseBackups(docker, nodeClients),
    async build(service: DriverService, log: LogSink, signal: AbortSignal): Promise<BuildResult> {
      const built = await local.build(service, log, signal) as BuildResult;
      const line = (text: string) => log('BUILD', text);
      if (options.registry) return { ...built, imageTag: await pushToRegistry(docker, built.imageTag, options.registry, line, signal, pushAuthOf(service.plan)) };
      const nodes = await nodeClients();
      const all = await listNodes(docker);
      // the manager has it; a node that is down now gets it at the next build
      const skip = new Set([await managerId(), ...all.filter((n) => n.state !== 'ready').map((n) => n.id)]);
      await copyToNodes(docker, built.imageTag, nodes, skip, line);
      const missing = all.filter((n) => n.role !== 'manager' && !nodes.some((d) => d.nodeId === n.id));
      if (missing.length > 0) await line(`No registry (SWARM_REGISTRY) and no daemon address for ${missing.map((n) => n.hostname).join(', ')}: tasks placed there cannot find ${built.imageTag}`);
      return built;
    },
    async apply(service: DriverService, log: LogSink, signal: AbortSignal) {
      const plan = planOf(service);
      if (plan.database?.mode === 'MANAGED') throw new EngineFailure('deploy', 'MANAGED databases need a cloud provider, which the swarm engine does not have: create the database in CONTAINER mode');
      if (plan.database?.publicAccess && plan.database.publicPort === null) throw new EngineFailure('deploy', 'This PUBLIC database has no reserved port: edit it (PUT /database/{id}) to reserve one');
      const image = imageToRun(service, plan);
      if (plan.job) {
        await ensureNetwork(docker, service.environmentId, idsOf(service));
        if (plan.job.jobType === 'CRON') {
          await log('DEPLOY', `Cron job ready: ${image} runs on schedule "${plan.job.cron?.schedule}" (${plan.job.cron?.timezone}) as a Swarm job on any node`);
          return;
        }
        if (!plan.job.onStart) return void await log('DEPLOY', 'Lifecycle job has no on_start command: nothing to run at deploy');
        const outcome = await driver.runJob!(service, service.deploymentId ?? 'deploy', 'start', (t) => log('RUNTIME', t), signal);
        if (outcome.exitCode !== 0) throw new EngineFailure('deploy', `The job's on_start run ${outcome.reason} after ${outcome.attempts} attempt(s)`);
        return void await log('DEPLOY', `Job on_start finished with exit code 0 after ${outcome.attempts} attempt(s)`);
      }
      await deployService(service, plan, image, log, signal);
      if (plan.database?.publicAccess) {
        const node = await pinnedNode(docker, service.id);
        await log('DEPLOY', `Published on ${node?.address ?? 'its node'}:${plan.database.publicPort} (${node?.hostname ?? 'the node holding its volume'}, host mode, PUBLIC)`);
      }
      await log('DEPLOY', `${service.name} is running`);
    },
    async stop(service: DriverService, log: LogSink, signal: AbortSignal) {
      const job = service.plan?.job;
      if (job?.jobType === 'LIFECYCLE' && job.onStop) {
        const outcome = await driver.runJob!(service, service.deploymentId ?? 'stop', 'stop', (t) => log('RUNTIME', t), signal);
        if (outcome.exitCode !== 0) throw new EngineFailure('stop', `The job's on_stop run ${outcome.reason} after ${outcome.attempts} attempt(s)`);
      }
      const name = swarmServiceName(service.slug, service.id);
      const current = await inspect(name);
      if (!current) return void await log('DEPLOY', `${service.name} has no Swarm service: nothing to stop`);
      await routes.remove(current.Spec?.Labels?.['berth.routes']);
      await log('DEPLOY', `Scaling Swarm service ${name} to 0 (data and configuration kept)`);
      await docker.getService(name).update({ version: current.Version.Index, ...current.Spec, Mode: { Replicated: { Replicas: 0 } } } as never);
      const deadline = Date.now() + 60_000;
      while ((await listTasks(docker, name)).some((t) => ['running', 'starting', 'preparing', 'assigned', 'accepted', 'ready', 'pending', 'new'].includes(t.state) && t.state !== 'shutdown') && Date.now() < deadline && !signal.aborted) {
        await new Promise((r) => setTimeout(r, 250));
      }
      await log('DEPLOY', `${service.name} stopped`);
    },
    async restart(service: DriverService, log: LogSink, signal: AbortSignal) {
      const name = swarmServiceName(service.slug, service.id);
      const current = await inspect(name);
      if (!current) throw new EngineFailure('restart', 'The service has no Swarm service to restart: deploy it first');
      const forceUpdate = (current.Spec?.TaskTemplate?.ForceUpdate ?? 0) + 1;
      const generation = current.Spec?.TaskTemplate?.ContainerSpec?.Labels?.['berth.generation'] ?? null;
      await log('DEPLOY', `Restarting every task of ${name} (Swarm rolling update)`);
      await docker.getService(name).update({ version: current.Version.Index, ...current.Spec, TaskTemplate: { ...current.Spec.TaskTemplate, ForceUpdate: forceUpdate } } as never);
      await converge({ docker, name, generation, forceUpdate, replicas: current.Spec?.Mode?.Replicated?.Replicas ?? 1, routes, timeoutMs: readyTimeoutMs, phase: 'restart' }, log, signal);
      await log('DEPLOY', `${service.name} restarted`);
    },
    async uninstall(service: DriverService, log: LogSink, signal: AbortSignal, opts: { purge?: boolean } = {}) {
      const job = service.plan?.job;
      if (job?.jobType === 'LIFECYCLE' && job.onDelete) {
        const outcome = await driver.runJob!(service, service.deploymentId ?? 'delete', 'delete', (t) => log('RUNTIME', t), signal);
        await log('DEPLOY', `Job on_delete ${outcome.exitCode === 0 ? 'finished with exit code 0' : outcome.reason}`);
      }
      const owned = await listServices(docker, { 'berth.service_id': service.id });
      for (const s of owned) {
        await routes.remove(s.Spec?.Labels?.['berth.routes']);
        await docker.getService(s.ID).remove().catch(() => {});
      }
      // tasks leave their nodes after the service is gone: wait, so the network and volumes can go too
      // (tasks of a node that is down stay in Swarm's books until it is back: they are not waited for)
      const deadline = Date.now() + 60_000;
      const ready = new Set((await nodesNow()).filter((n) => n.state === 'ready').map((n) => n.id));
      for (const s of owned) {
        while ((await listTasks(docker, s.ID).catch(() => [])).some((t) => ready.has(t.nodeId)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      }
      await sweepContainers(await everyDaemon(), service.id);
      await removeConfigs(docker, swarmServiceName(service.slug, service.id), []);
      await log('DEPLOY', `Removed ${owned.length} Swarm service(s) of ${service.name}`);
      await removeNetwork(docker, service.environmentId);
      if (opts.purge) await purgeService(docker, (await nodeClients()).map((n) => n.docker), service.id, log);
      await local.uninstall(service, async () => {}, signal, opts).catch(() => {}); // what the docker engine left on the manager
    },
    async status(service: DriverService): Promise<RuntimeStatus> {
      const name = swarmServiceName(service.slug, service.id);
      const current = await inspect(name);
      if (!current) return { state: 'UNKNOWN' };
      const desired = current.Spec?.Mode?.Replicated?.Replicas ?? 1;
      if (desired === 0) return { state: 'STOPPED', detail: 'scaled to 0' };
      const tasks = (await listTasks(docker, name)).filter((t) => t.desired === 'running');
      const running = tasks.filter((t) => t.state === 'running');
      if (running.length >= desired) return { state: 'RUNNING' };
      return { state: 'ERROR', detail: `${running.length} of ${desired} task(s) running${tasks.find((t) => t.error)?.error ? `: ${tasks.find((t) => t.error)!.error}` : ''}` };
    },
    async publishedHost(service: DriverService) {
      // host mode: the port is on the node that runs the database, the one holding its volume
      return (await pinnedNode(docker, service.id))?.address || null;
    },
    async runJob(service, runId, command, line, signal) {
      const plan = planOf(service);
      const job = plan.job!;
      const cmd = command === 'cron' ? job.cron : command === 'start' ? job.onStart : command === 'stop' ? job.onStop : job.onDelete;
      const network = await ensureNetwork(docker, service.environmentId, idsOf(service));
      try {
        return await runSwarmJob({
          docker, ids: idsOf(service), slug: service.slug, runId, image: imageToRun(service, plan), plan, network, command: cmd,
          settings: serviceSettings(service.advancedSettings), cron: command === 'cron', auth: pullAuthOf(plan),
        }, line, signal);
      } finally {
        await sweepContainers(await everyDaemon(), service.id, { 'berth.run_id': runId });
      }
    },
    async applyIngressSettings(service: IngressSettingsTarget): Promise<string[]> {
      if (!options.ingress) return [];
      const owned = await listServices(docker, { 'berth.service_id': service.id, 'berth.role': 'replica' });
      const ids = new Set(owned.flatMap((s) => parseRoutes(s.Spec?.Labels?.['berth.routes']).map((r) => r.id)));
      const { settings, notes } = routeSettingsOf(service.advancedSettings, service.env);
      for (const id of ids) await options.ingress.updateSettings(id, settings);
      return notes;
    },
    runAgent(run: AgentRunSpec, log: LogSink, signal: AbortSignal) {
      return runSwarmAgent({ manager: docker, nodes: nodeClients, baseImage: options.agentBaseImage ?? 'debian:bookworm-slim', allowLocalGit: options.allowLocalGit }, run, log, signal);
    },
    async nodes(): Promise<EngineNode[]> {
      const [nodes, tasks] = await Promise.all([nodesNow(), listTasks(docker, { 'desired-state': ['running'] })]);
      return nodes.map((n) => ({
        id: n.id, hostname: n.hostname, address: n.address, role: n.role, leader: n.leader, state: n.state, availability: n.availability,
        running_tasks: tasks.filter((t) => t.nodeId === n.id && t.state === 'running').length,
      }));
    },
    async syncAll(known): Promise<SwarmServiceHealth[]> {
      const all = await listServices(docker, { 'berth.role': 'replica' });
      const serviceIdOf = (s: SwarmService) => s.Spec.Labels?.['berth.service_id'] ?? '';
      // services another berth runs on this Swarm (or mid-deletion here) are left alone: no route, no report
      const ours = await known(all.map(serviceIdOf).filter(Boolean));
      const services = all.filter((s) => ours.has(serviceIdOf(s)));
      const nodes = new Map((await nodesNow()).map((n) => [n.id, n]));
      const health: SwarmServiceHealth[] = [];
      for (const s of services) {
        const tasks = await listTasks(docker, s.ID);
        await routes.sync(s.Spec?.Labels?.['berth.routes'], tasks, nodes);
        const desired = s.Spec?.Mode?.Replicated?.Replicas ?? 1;
        const current = tasks.filter((t) => t.desired === 'running');
        const running = current.filter((t) => t.state === 'running' && nodes.get(t.nodeId)?.state === 'ready');
        const lost = tasks.filter((t) => t.state === 'running' && nodes.get(t.nodeId)?.state !== 'ready');
        const down = [...new Set(lost.map((t) => nodes.get(t.nodeId)?.hostname ?? t.nodeId))];
        health.push({
          swarmId: s.ID, lost: lost.map((t) => t.id),
          serviceId: serviceIdOf(s), generation: s.Spec?.Labels?.['berth.generation'] ?? null, desired, running: running.length,
          detail: `${running.length} of ${desired} task(s) running${down.length ? ` (node ${down.join(', ')} is down: ${lost.length} task(s) lost with it)` : ''}`,
        });
      }
      return health;
    },
    async close() { await local.close?.(); },
  };

  return driver;
}
