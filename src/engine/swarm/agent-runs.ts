// An agentic workflow run on a Swarm (decision 0343): the run and its egress proxy are two Swarm
// services, each one task, on one node: the ready, active node berth reaches (the manager, or a
// node of SWARM_NODE_DOCKER_HOSTS) running the fewest tasks, because the workspace is copied into
// the run's task and its output read there. The run's image is built on the manager and copied to
// that node when it lacks it (docker save | docker load: berth reaches it anyway). The run's network
// is an internal overlay of its own (the proxy, alias `egress`, is its only way out, through the
// environment's overlay). The run task waits for its workspace, then supervise.ts follows it as on
// the docker engine. Both services and the network are removed whatever happened.
import type Docker from 'dockerode';
import { EngineFailure, type LogSink } from '../engine.ts';
import { labelFilter } from '../docker/naming.ts';
import { execIn } from '../docker/replicas.ts';
import { daemonMessage } from '../docker/stream.ts';
import { contextFile, mcpConfigFile } from '../agent/container-config.ts';
import { PROXY_ALIAS } from '../agent/egress.ts';
import { ensureAgentImage } from '../agent/image.ts';
import { egressContainerName, proxyEnv, runContainerName } from '../agent/runner.ts';
import type { AgentRunOutcome, AgentRunSpec } from '../agent/spec.ts';
import { agentCommand, failedOutcome, MiB, PROXY_START, runContext, superviseRun } from '../agent/supervise.ts';
import { prepareWorkspace } from '../agent/workspace.ts';
import { copyToNodes, type NodeDaemon } from './images.ts';
import { ensureNetwork } from './resources.ts';
import { listNodes, listServices, listTasks } from './tasks.ts';

const SECOND = 1_000_000_000;
/** the run task starts claude once this exists (the workspace is in place) */
const START_MARKER = '/berth/.start';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface SwarmAgentOptions {
  manager: Docker;
  /** the node daemons berth reaches (SWARM_NODE_DOCKER_HOSTS) */
  nodes: () => Promise<NodeDaemon[]>;
  baseImage: string;
  allowLocalGit: boolean;
}

interface Placement { nodeId: string; hostname: string; docker: Docker; manager: boolean }

/** the specs of the run's two services, pinned to `nodeId`: pure */
export function agentRunSpecs(spec: AgentRunSpec, p: { image: string; nodeId: string; internal: string; environmentNetwork: string; hosts: string[]; urls: string[]; labels: Record<string, string> }) {
  const placement = { Constraints: [`node.id==${p.nodeId}`] };
  const run = agentCommand(spec, START_MARKER);
  const cpu = Math.max(1, spec.resources.cpuMilli) * 1_000_000;
  const memory = Math.max(64, spec.resources.ramMib) * MiB;
  const runLabels = { ...p.labels, 'berth.role': 'agent-run' };
  const proxyLabels = { ...p.labels, 'berth.role': 'agent-egress' };
  return {
    proxy: {
      Name: egressContainerName(spec.runId), Labels: proxyLabels,
      TaskTemplate: {
        ContainerSpec: {
          Image: p.image, User: 'root', Command: ['sh', '-c', PROXY_START], Env: proxyEnv(p.hosts, p.urls), Labels: proxyLabels,
          CapabilityDrop: ['ALL'], CapabilityAdd: ['SETUID', 'SETGID'], StopGracePeriod: SECOND,
        },
        Resources: { Limits: { NanoCPUs: 500_000_000, MemoryBytes: 128 * MiB, Pids: 256 } },
        RestartPolicy: { Condition: 'none' }, Placement: placement,
        Networks: [{ Target: p.internal, Aliases: [PROXY_ALIAS] }, { Target: p.environmentNetwork }],
      },
      Mode: { Replicated: { Replicas: 1 } }, EndpointSpec: { Mode: 'dnsrr' },
    },
    run: {
      Name: runContainerName(spec.runId), Labels: runLabels,
      TaskTemplate: {
        ContainerSpec: {
          Image: p.image, User: run.user, Dir: '/workspace', Command: run.entrypoint, Args: run.args, Env: run.env, Labels: runLabels,
          Init: true, CapabilityDrop: ['ALL'], StopGracePeriod: SECOND,
        },
        Resources: { Limits: { NanoCPUs: cpu, MemoryBytes: memory, Pids: 4096 }, Reservations: { NanoCPUs: cpu, MemoryBytes: memory } },
        RestartPolicy: { Condition: 'none' }, Placement: placement, Networks: [{ Target: p.internal }],
      },
      Mode: { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } }, EndpointSpec: { Mode: 'dnsrr' },
    },
  };
}

/** the ready, active node berth reaches with the fewest running tasks (the manager on a tie) */
async function placeRun(o: SwarmAgentOptions): Promise<Placement> {
  const [nodes, daemons, tasks, info] = await Promise.all([
    listNodes(o.manager), o.nodes(), listTasks(o.manager, { 'desired-state': ['running'] }),
    o.manager.info() as Promise<{ Swarm?: { NodeID?: string } }>,
  ]);
  const managerId = info.Swarm?.NodeID ?? '';
  const reach = new Map<string, Docker>([...daemons.map((d) => [d.nodeId, d.docker] as const), [managerId, o.manager]]);
  const load = (id: string) => tasks.filter((t) => t.nodeId === id).length;
  const candidates = nodes.filter((n) => n.state === 'ready' && n.availability === 'active' && reach.has(n.id))
    .sort((a, b) => load(a.id) - load(b.id) || Number(b.id === managerId) - Number(a.id === managerId));
  const chosen = candidates[0];
  if (!chosen) throw new EngineFailure('deploy', 'No node can take the run: none berth reaches (the manager, SWARM_NODE_DOCKER_HOSTS) is ready and active');
  return { nodeId: chosen.id, hostname: chosen.hostname, docker: reach.get(chosen.id)!, manager: chosen.id === managerId };
}

/** the container of the service's one task once it runs; Swarm's reason when it cannot start */
async function taskContainer(manager: Docker, service: string, placement: Placement, signal: AbortSignal, timeoutMs = 180_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no task yet';
  for (;;) {
    signal.throwIfAborted();
    const [task] = await listTasks(manager, service);
    const state = task?.state ?? 'new';
    if (state === 'running' && task?.containerId) return task.containerId;
    if (['failed', 'rejected', 'complete', 'shutdown', 'orphaned'].includes(state)) {
      throw new EngineFailure('deploy', `Swarm could not start ${service} on ${placement.hostname}: ${state}${task?.error ? ` (${task.error})` : ''}`);
    }
    const said = task?.error ?? task?.message;
    last = `${state}${said ? `: ${said}` : ''}`;
    if (Date.now() > deadline) throw new EngineFailure('deploy', `${service} did not start on ${placement.hostname} within ${timeoutMs / 1000} s (${last})`);
    await sleep(200);
  }
}

/** removes the run's services, waits for their tasks to leave, then its network and containers */
async function removeSwarmRun(manager: Docker, daemons: Docker[], runId: string): Promise<void> {
  const services = await listServices(manager, { 'berth.run_id': runId }).catch(() => []);
  await Promise.all(services.map((s) => manager.getService(s.ID).remove().catch(() => {})));
  for (const d of daemons) {
    for (let i = 0; i < 40; i++) {
      const left = await d.listContainers({ all: true, filters: labelFilter({ 'berth.run_id': runId }) }).catch(() => []);
      if (left.length === 0) break;
      await Promise.all(left.filter((c) => c.State !== 'running').map((c) => d.getContainer(c.Id).remove({ force: true }).catch(() => {})));
      await sleep(250);
    }
  }
  for (const n of await manager.listNetworks({ filters: labelFilter({ 'berth.run_id': runId }) }).catch(() => [])) {
    for (let i = 0; i < 20; i++) {
      try { await manager.getNetwork(n.Id).remove(); break; } catch (err) {
        if ((err as { statusCode?: number }).statusCode === 404) break;
        await sleep(250); // a removed task's endpoint lingers a moment
      }
    }
  }
}

export async function runSwarmAgent(o: SwarmAgentOptions, spec: AgentRunSpec, log: LogSink, signal: AbortSignal): Promise<AgentRunOutcome> {
  const { manager } = o;
  const { started, redact, say, ids, labels, hosts, urls, sayEgress } = runContext(spec, log);
  let placement: Placement | null = null;
  try {
    const image = await ensureAgentImage(manager, { baseImage: o.baseImage, dockerFragment: spec.dockerFragment }, (l) => log('BUILD', redact(l)), signal);
    signal.throwIfAborted();
    placement = await placeRun(o);
    await say(`Running as Swarm tasks on ${placement.hostname} (the node berth reaches with the fewest running tasks)`);
    // the node is one berth reaches: a copy (when it lacks the image) needs no registry credentials
    if (!placement.manager) await copyToNodes(manager, image, [{ nodeId: placement.nodeId, hostname: placement.hostname, docker: placement.docker }], new Set(), say);

    const environmentNetwork = await ensureNetwork(manager, spec.environmentId, ids);
    const internal = runContainerName(spec.runId);
    // internal: no gateway, so the proxy is the run's only way out
    await manager.createNetwork({ Name: internal, Driver: 'overlay', Internal: true, Attachable: true, CheckDuplicate: true, Labels: { ...labels, 'berth.role': 'agent-network' } });
    await sayEgress();
    const specs = agentRunSpecs(spec, { image, nodeId: placement.nodeId, internal, environmentNetwork, hosts, urls, labels });
    await manager.createService(specs.proxy as never);
    await manager.createService(specs.run as never);
    const [proxyId, agentId] = await Promise.all([
      taskContainer(manager, specs.proxy.Name, placement, signal), taskContainer(manager, specs.run.Name, placement, signal),
    ]);
    const node = placement.docker;
    await prepareWorkspace(node, agentId, spec, { prompt: spec.prompt, mcpConfig: mcpConfigFile(spec), context: contextFile(spec) },
      { allowLocalGit: o.allowLocalGit }, say, signal);
    const agent = node.getContainer(agentId);
    const begin = async () => {
      const { exitCode, output } = await execIn(agent, ['touch', START_MARKER], 30_000);
      if (exitCode !== 0) throw new EngineFailure('deploy', `Could not start the agent: ${output.trim()}`);
    };
    return await superviseRun(spec, { docker: node, agent, proxy: node.getContainer(proxyId), begin }, log, signal, { started, redact });
  } catch (err) {
    if (signal.aborted) throw err;
    if (err instanceof EngineFailure) return failedOutcome(redact(err.message), started);
    if ((err as { statusCode?: number }).statusCode) return failedOutcome(redact(`The Swarm refused the run: ${daemonMessage(err)}`), started);
    throw err;
  } finally {
    await removeSwarmRun(manager, [...new Set([manager, ...(placement ? [placement.docker] : [])])], spec.runId).catch(() => {});
  }
}
