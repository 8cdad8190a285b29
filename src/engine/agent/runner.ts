// One agent run on a Docker daemon: the run's image, an `--internal` network of its own (its bridge
// holds no host address, so the host's services are out of reach too), the egress proxy joined to
// it and to the environment's network (services by their internal names, the internet by DNS),
// the run container with the workflow's limits and the credentials as environment only, its
// output, timeout and outcome followed by supervise.ts; and
// nothing left behind: both containers and the network are removed whatever happened.
import type Docker from 'dockerode';
import { EngineFailure, type LogSink } from '../engine.ts';
import { ensureEnvironmentNetwork } from '../docker/networks.ts';
import { removeContainer } from '../docker/replicas.ts';
import { filterLines, proxyConfig, PROXY_ALIAS } from './egress.ts';
import { ensureAgentImage } from './image.ts';
import type { AgentRunOutcome, AgentRunSpec } from './spec.ts';
import { contextFile, mcpConfigFile } from './container-config.ts';
import { agentCommand, failedOutcome, MiB, PROXY_START, runContext, superviseRun } from './supervise.ts';
import { prepareWorkspace } from './workspace.ts';

export interface AgentRunnerOptions {
  docker: Docker;
  /** AGENT_BASE_IMAGE */
  baseImage: string;
  allowLocalGit: boolean;
}

export function runContainerName(runId: string): string { return `berth-run-${runId}`; }
export function egressContainerName(runId: string): string { return `berth-egress-${runId}`; }

/** removes what a run left (containers by its run label, its network): idempotent */
async function removeRunObjects(docker: Docker, runId: string): Promise<void> {
  const containers = await docker.listContainers({ all: true, filters: { label: [`berth.run_id=${runId}`] } });
  await Promise.all(containers.map((c) => removeContainer(docker.getContainer(c.Id)).catch(() => {})));
  const networks = await docker.listNetworks({ filters: { label: [`berth.run_id=${runId}`] } });
  await Promise.all(networks.map((n) => docker.getNetwork(n.Id).remove().catch(() => {})));
}

/** the proxy's environment: its configuration and the hosts (and URLs) it lets through */
export function proxyEnv(hosts: string[], urls: string[]): string[] {
  return [`BERTH_PROXY_CONF=${proxyConfig('/tmp/berth-filter')}`, `BERTH_PROXY_FILTER=${filterLines(hosts, urls).join('\n')}`];
}

/** the egress proxy of a run: on the run's network (alias `egress`) and the environment's */
async function startProxy(docker: Docker, p: { runId: string; image: string; internal: string; environmentNetwork: string; hosts: string[]; urls: string[]; labels: Record<string, string> }): Promise<Docker.Container> {
  const proxy = await docker.createContainer({
    name: egressContainerName(p.runId), Image: p.image, User: 'root', Entrypoint: ['sh', '-c', PROXY_START], Cmd: [],
    Env: proxyEnv(p.hosts, p.urls),
    Labels: { ...p.labels, 'berth.role': 'agent-egress' },
    HostConfig: {
      NetworkMode: p.internal, Memory: 128 * MiB, MemorySwap: 128 * MiB, NanoCpus: 500_000_000, PidsLimit: 256,
      RestartPolicy: { Name: 'no' }, CapDrop: ['ALL'], CapAdd: ['SETUID', 'SETGID'], SecurityOpt: ['no-new-privileges'],
      // the Docker host by name, for an AGENT_BERTH_URL that points there; reached only when allowed
      ExtraHosts: ['host.docker.internal:host-gateway'],
    },
    NetworkingConfig: { EndpointsConfig: { [p.internal]: { Aliases: [PROXY_ALIAS] } } },
  });
  await docker.getNetwork(p.environmentNetwork).connect({ Container: proxy.id });
  await proxy.start();
  return proxy;
}

export async function runAgent(opts: AgentRunnerOptions, spec: AgentRunSpec, log: LogSink, signal: AbortSignal): Promise<AgentRunOutcome> {
  const { docker } = opts;
  const { started, redact, say, ids, labels, hosts, urls, sayEgress } = runContext(spec, log);
  const failed = (message: string) => failedOutcome(redact(message), started);
  try {
    let image: string;
    try {
      image = await ensureAgentImage(docker, { baseImage: opts.baseImage, dockerFragment: spec.dockerFragment }, (l) => log('BUILD', redact(l)), signal);
    } catch (err) {
      if (err instanceof EngineFailure) return failed(err.message);
      throw err;
    }
    signal.throwIfAborted();
    const environmentNetwork = await ensureEnvironmentNetwork(docker, ids);
    const internal = runContainerName(spec.runId);
    await docker.createNetwork({
      Name: internal, Driver: 'bridge', Internal: true, CheckDuplicate: true,
      // no address of the host on this bridge: a run cannot reach the host's own services (Docker filters FORWARD, not INPUT)
      Options: { 'com.docker.network.bridge.inhibit_ipv4': 'true' },
      Labels: { ...labels, 'berth.role': 'agent-network' },
    });

    await sayEgress();
    // the proxy starts while the run container is made and filled: both are on the way to the first request
    const [proxy, agent] = await Promise.all([
      startProxy(docker, { runId: spec.runId, image, internal, environmentNetwork, hosts, urls, labels }),
      (async () => {
        const run = agentCommand(spec);
        const created = await docker.createContainer({
          name: runContainerName(spec.runId), Image: image, User: run.user, WorkingDir: '/workspace',
          Entrypoint: run.entrypoint, Cmd: run.args, Env: run.env,
          Labels: { ...labels, 'berth.role': 'agent-run' },
          HostConfig: {
            NetworkMode: internal, NanoCpus: Math.max(1, spec.resources.cpuMilli) * 1_000_000,
            Memory: Math.max(64, spec.resources.ramMib) * MiB, MemorySwap: Math.max(64, spec.resources.ramMib) * MiB,
            PidsLimit: 4096, RestartPolicy: { Name: 'no' }, CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'], Init: true,
          },
        });
        await prepareWorkspace(docker, created.id, spec, { prompt: spec.prompt, mcpConfig: mcpConfigFile(spec), context: contextFile(spec) },
          { allowLocalGit: opts.allowLocalGit }, say, signal);
        return created;
      })(),
    ]);
    return await superviseRun(spec, { docker, agent, proxy, begin: () => agent.start() }, log, signal, { started, redact });
  } catch (err) {
    if (err instanceof EngineFailure && !signal.aborted) return failed(err.message);
    throw err;
  } finally {
    await removeRunObjects(docker, spec.runId).catch(() => {});
  }
}
