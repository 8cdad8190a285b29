// What an agent run is once its two containers exist, wherever they run (a container on the Docker
// engine's daemon, a Swarm task on a node's daemon): the run container's stream-json output turned
// into log lines as it comes, the egress proxy's refusals and first passes as log lines, the kill
// at the timeout, on cancel or when the model refuses the key, and the outcome from the transcript,
// the exit code and an out-of-memory kill. What makes the containers is runner.ts's (Docker) or
// swarm/agent-runs.ts's.
import type Docker from 'dockerode';
import { PassThrough } from 'node:stream';
import type { LogSink } from '../engine.ts';
import { ownerLabels, type OwnerIds } from '../docker/naming.ts';
import { allowedHosts, parseProxyLine, PROXY_ALIAS, PROXY_PORT } from './egress.ts';
import { AGENT_USER } from './image.ts';
import type { AgentRunOutcome, AgentRunSpec } from './spec.ts';
import { dollars, redactor, Transcript } from './transcript.ts';
import { agentArgs, agentEnv } from './container-config.ts';

export const MiB = 1024 * 1024;

/** the proxy's command: its configuration and filter come through the environment */
export const PROXY_START = 'printf "%s\\n" "$BERTH_PROXY_CONF" > /tmp/berth-proxy.conf && printf "%s\\n" "$BERTH_PROXY_FILTER" > /tmp/berth-filter && exec tinyproxy -d -c /tmp/berth-proxy.conf';

/** the run container's process: claude, the prompt on stdin, after `waitFor` exists when given */
export function agentCommand(spec: AgentRunSpec, waitFor: string | null = null): { user: string; entrypoint: string[]; args: string[]; env: string[] } {
  const wait = waitFor ? `while [ ! -e ${waitFor} ]; do sleep 0.1; done; ` : '';
  return {
    user: AGENT_USER,
    entrypoint: ['sh', '-c', `${wait}exec claude "$@" < /berth/prompt.md`, 'claude'],
    args: agentArgs(spec),
    env: Object.entries(agentEnv(spec, `http://${PROXY_ALIAS}:${PROXY_PORT}`)).map(([k, v]) => `${k}=${v}`),
  };
}

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

/** what both engines start a run with: its clock, its redaction, its owner labels and what its proxy lets through */
export function runContext(spec: AgentRunSpec, log: LogSink) {
  const redact = redactor(spec.secrets);
  const ids: OwnerIds = { serviceId: spec.workflowId, environmentId: spec.environmentId, projectId: spec.projectId, organizationId: spec.organizationId };
  const hosts = allowedHosts(spec);
  const urls = spec.berthMcpUrl ? [spec.berthMcpUrl] : [];
  const say = (line: string) => log('DEPLOY', redact(line));
  return {
    started: Date.now(), redact, say, ids, labels: { ...ownerLabels(ids), 'berth.run_id': spec.runId }, hosts, urls,
    /** the log line saying where the run may go */
    sayEgress: () => say(`Egress through the proxy only, to: ${hosts.length ? hosts.join(', ') : 'no host'}${urls.length ? `; and berth's MCP server at ${urls.join(', ')} only` : ''}`),
  };
}

/** the outcome of a run that did not succeed */
export function failedOutcome(message: string, started: number, extra: Partial<AgentRunOutcome> = {}): AgentRunOutcome {
  return { status: 'FAILED', message, result: null, numTurns: null, inputTokens: null, outputTokens: null, costUsd: null, durationMs: Date.now() - started, ...extra };
}

export interface RunContainers {
  /** the daemon holding both containers */
  docker: Docker;
  agent: Docker.Container;
  proxy: Docker.Container;
  /** lets the agent begin (starts its container, or releases its wait) */
  begin(): Promise<void>;
}

/** follows the run to its end; the caller removes the containers */
export async function superviseRun(spec: AgentRunSpec, run: RunContainers, log: LogSink, signal: AbortSignal,
  ctx: { started: number; redact: (text: string) => string }): Promise<AgentRunOutcome> {
  const { docker, agent, proxy } = run;
  const { redact } = ctx;
  const seen = new Set<string>();
  const proxyLines = lineStream(async (line) => {
    const said = parseProxyLine(line);
    if (!said) return;
    if (said.kind === 'refused') await log('RUNTIME', `egress refused: ${said.host} is not in governance.host_allowlist`);
    else if (!seen.has(said.host)) { seen.add(said.host); await log('RUNTIME', `egress allowed: ${said.host}`); }
  });
  docker.modem.demuxStream(await proxy.attach({ stream: true, stdout: true, stderr: true }), proxyLines.sink, proxyLines.sink);

  const transcript = new Transcript(spec.secrets);
  let stopReason: string | null = null;
  const stop = (why: string) => { stopReason ??= why; agent.kill().catch(() => {}); };
  const out = lineStream(async (line) => {
    for (const l of transcript.lines(line)) await log('RUNTIME', l);
    if (transcript.summary.authRefused) stop(transcript.summary.authRefused);
  });
  const err = lineStream(async (line) => { if (line.trim()) await log('RUNTIME', `stderr: ${redact(line)}`); });
  docker.modem.demuxStream(await agent.attach({ stream: true, stdout: true, stderr: true }), out.sink, err.sink);
  const spend = typeof spec.maxCostUsd === 'number' ? `spend cap ${dollars(spec.maxCostUsd)}` : 'no spend cap';
  await log('DEPLOY', redact(`Starting the agent (max ${spec.maxTurns} turns, ${spend}, timeout ${spec.timeoutSeconds} s, ${spec.resources.cpuMilli} mCPU, ${spec.resources.ramMib} MiB)`));
  await run.begin();
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
  const failed = (message: string) => failedOutcome(redact(message), ctx.started, usage);
  if (stopReason) return failed(stopReason);
  if (oom) return failed(`The agent ran out of memory (resources.ram_mib ${spec.resources.ramMib})`);
  const harnessFailure = transcript.failureMessage({ maxTurns: spec.maxTurns, maxCostUsd: spec.maxCostUsd });
  if (harnessFailure) return failed(harnessFailure);
  if (exit.StatusCode !== 0 || !s.finished) return failed(`The agent exited with code ${exit.StatusCode}${s.finished ? '' : ' before giving a result'}`);
  return { status: 'SUCCEEDED', message: null, durationMs: Date.now() - ctx.started, ...usage };
}
