// One agent run on a Docker daemon: the run's image, an `--internal` network of its own (its bridge
// holds no host address, so the host's services are out of reach too), the egress proxy joined to
// it and to the environment's network (services by their internal names, the internet by DNS),
// the run container with the workflow's limits and the credentials as environment only, its
// stream-json output turned into log lines as it comes, killed at the timeout or on cancel; and
// nothing left behind: both containers and the network are removed whatever happened.
import type Docker from 'dockerode';
import { PassThrough } from 'node:stream';
import { EngineFailure, type LogSink } from '../engine.ts';
import { ownerLabels, type OwnerIds } from '../docker/naming.ts';
import { ensureEnvironmentNetwork } from '../docker/networks.ts';
import { removeContainer } from '../docker/replicas.ts';
import { allowedHosts, filterLines, parseProxyLine, proxyConfig, PROXY_ALIAS, PROXY_PORT } from './egress.ts';
import { AGENT_USER, ensureAgentImage } from './image.ts';
import type { AgentRunOutcome, AgentRunSpec } from './spec.ts';
import { redactor, Transcript } from './transcript.ts';
import { agentArgs, agentEnv, contextFile, mcpConfigFile } from './container-config.ts';
import { prepareWorkspace } from './workspace.ts';

export interface AgentRunnerOptions {
  docker: Docker;
  /** AGENT_BASE_IMAGE */
  baseImage: string;
  allowLocalGit: boolean;
}

const MiB = 1024 * 1024;
const PROXY_START = 'printf "%s\\n" "$BERTH_PROXY_CONF" > /tmp/berth-proxy.conf && printf "%s\\n" "$BERTH_PROXY_FILTER" > /tmp/berth-filter && exec tinyproxy -d -c /tmp/berth-proxy.conf';

/** splits a demultiplexed Docker stream into lines, handing each to `onLine` in order */
function lineStream(onLine: (line: string) => Promise<void>): { sink: PassThrough; flushed: () => Promise<void> } {
  const sink = new PassThrough();
  let pending = '';
  let writing: Promise<void> = Promise.resolve();
  sink.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const l of lines) writing = writing.then(() => onLine(l)).catch(() => {});
  });
  return {
    sink,
    flushed: async () => {
      if (pending) { const last = pending; pending = ''; writing = writing.then(() => onLine(last)).catch(() => {}); }
      await writing;
    },
  };
}

export function runContainerName(runId: string): string { return `berth-run-${runId}`; }
export function egressContainerName(runId: string): string { return `berth-egress-${runId}`; }

/** removes what a run left (containers by its run label, its network): idempotent */
export async function removeRunObjects(docker: Docker, runId: string): Promise<void> {
  const containers = await docker.listContainers({ all: true, filters: { label: [`berth.run_id=${runId}`] } });
  await Promise.all(containers.map((c) => removeContainer(docker.getContainer(c.Id)).catch(() => {})));
  const networks = await docker.listNetworks({ filters: { label: [`berth.run_id=${runId}`] } });
  await Promise.all(networks.map((n) => docker.getNetwork(n.Id).remove().catch(() => {})));
}

/** the egress proxy of a run: on the run's network (alias `egress`) and the environment's; its refusals become log lines */
async function startProxy(docker: Docker, p: { runId: string; image: string; internal: string; environmentNetwork: string; hosts: string[]; urls: string[]; labels: Record<string, string> },
  log: LogSink): Promise<{ flushed: () => Promise<void> }> {
  const proxy = await docker.createContainer({
    name: egressContainerName(p.runId), Image: p.image, User: 'root', Entrypoint: ['sh', '-c', PROXY_START], Cmd: [],
    Env: [`BERTH_PROXY_CONF=${proxyConfig('/tmp/berth-filter')}`, `BERTH_PROXY_FILTER=${filterLines(p.hosts, p.urls).join('\n')}`],
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
  const seen = new Set<string>();
  const lines = lineStream(async (line) => {
    const said = parseProxyLine(line);
    if (!said) return;
    if (said.kind === 'refused') await log('RUNTIME', `egress refused: ${said.host} is not in governance.host_allowlist`);
    else if (!seen.has(said.host)) { seen.add(said.host); await log('RUNTIME', `egress allowed: ${said.host}`); }
  });
  const stream = await proxy.attach({ stream: true, stdout: true, stderr: true });
  docker.modem.demuxStream(stream, lines.sink, lines.sink);
  await proxy.start();
  return lines;
}

export async function runAgent(opts: AgentRunnerOptions, spec: AgentRunSpec, log: LogSink, signal: AbortSignal): Promise<AgentRunOutcome> {
  const { docker } = opts;
  const started = Date.now();
  const redact = redactor(spec.secrets);
  const say = (line: string) => log('DEPLOY', redact(line));
  const ids: OwnerIds = { serviceId: spec.workflowId, environmentId: spec.environmentId, projectId: spec.projectId, organizationId: spec.organizationId };
  const labels = { ...ownerLabels(ids), 'berth.run_id': spec.runId };
  const failed = (message: string, extra: Partial<AgentRunOutcome> = {}): AgentRunOutcome => ({
    status: 'FAILED', message: redact(message), result: null, numTurns: null, inputTokens: null, outputTokens: null, costUsd: null, durationMs: Date.now() - started, ...extra,
  });
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

    const hosts = allowedHosts(spec);
    const urls = spec.berthMcpUrl ? [spec.berthMcpUrl] : [];
    await say(`Egress through the proxy only, to: ${hosts.length ? hosts.join(', ') : 'no host'}${urls.length ? `; and berth's MCP server at ${urls.join(', ')} only` : ''}`);
    // the proxy starts while the run container is made and filled: both are on the way to the first request
    const [proxyLines, agent] = await Promise.all([
      startProxy(docker, { runId: spec.runId, image, internal, environmentNetwork, hosts, urls, labels }, log),
      (async () => {
        const created = await docker.createContainer({
          name: runContainerName(spec.runId), Image: image, User: AGENT_USER, WorkingDir: '/workspace',
          Entrypoint: ['sh', '-c', 'exec claude "$@" < /berth/prompt.md', 'claude'], Cmd: agentArgs(spec),
          Env: Object.entries(agentEnv(spec, `http://${PROXY_ALIAS}:${PROXY_PORT}`)).map(([k, v]) => `${k}=${v}`),
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
    const transcript = new Transcript(spec.secrets);

    let stopReason: string | null = null;
    const stop = (why: string) => { stopReason ??= why; agent.kill().catch(() => {}); };
    const out = lineStream(async (line) => {
      for (const l of transcript.lines(line)) await log('RUNTIME', l);
      if (transcript.summary.authRefused) stop(transcript.summary.authRefused);
    });
    const err = lineStream(async (line) => { if (line.trim()) await log('RUNTIME', `stderr: ${redact(line)}`); });
    const agentStream = await agent.attach({ stream: true, stdout: true, stderr: true });
    docker.modem.demuxStream(agentStream, out.sink, err.sink);
    await say(`Starting the agent (max ${spec.maxTurns} turns, timeout ${spec.timeoutSeconds} s, ${spec.resources.cpuMilli} mCPU, ${spec.resources.ramMib} MiB)`);
    await agent.start();
    const timer = setTimeout(() => stop(`The run timed out after ${spec.timeoutSeconds} s (model.settings timeout_seconds)`), spec.timeoutSeconds * 1000);
    const onAbort = () => stop('canceled');
    signal.addEventListener('abort', onAbort, { once: true });
    let exit: { StatusCode: number };
    try {
      exit = await agent.wait() as { StatusCode: number };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
    await new Promise((r) => setTimeout(r, 50));
    await out.flushed();
    await err.flushed();
    await proxyLines.flushed();
    signal.throwIfAborted();
    const oom = await agent.inspect().then((i) => i.State?.OOMKilled === true, () => false);
    const s = transcript.summary;
    const usage = { result: s.result, numTurns: s.numTurns, inputTokens: s.inputTokens, outputTokens: s.outputTokens, costUsd: s.costUsd };
    if (stopReason) return failed(stopReason, usage);
    if (oom) return failed(`The agent ran out of memory (resources.ram_mib ${spec.resources.ramMib})`, usage);
    const harnessFailure = transcript.failureMessage();
    if (harnessFailure) return failed(harnessFailure, usage);
    if (exit.StatusCode !== 0 || !s.finished) {
      return failed(`The agent exited with code ${exit.StatusCode}${s.finished ? '' : ' before giving a result'}`, usage);
    }
    return { status: 'SUCCEEDED', message: null, durationMs: Date.now() - started, ...usage };
  } catch (err) {
    if (err instanceof EngineFailure && !signal.aborted) return failed(err.message);
    throw err;
  } finally {
    await removeRunObjects(docker, spec.runId).catch(() => {});
  }
}
