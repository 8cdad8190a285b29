// Health probes run by berth from outside the container (so images need no curl): HTTP GET
// against the replica's port published on loopback, TCP connect to the container's own address
// on its bridge network (refused at once when nothing listens; decision 0335), exec through the
// Docker API. Where berth cannot reach container addresses (its daemon's bridge is not on this
// host's network), TCP goes to the published loopback port, held open a moment because Docker's
// userland proxy accepts before it knows; an unpublished port (a PRIVATE database's, decision
// 0333) is then probed by reading the container's listening sockets (/proc/net/tcp, tcp6).
// waitReady applies a probe's timing (initial delay, period, thresholds), polls fast at first,
// and gives up early when the container exits.
import { connect } from 'node:net';
import type { ProbePlan } from '../plan.ts';

export interface ProbeTarget {
  /** the loopback port publishing an internal port, or null when it is not published */
  hostPort(internalPort: number): number | null;
  /** runs a command in the container; resolves with its exit code */
  exec(command: string[], timeoutMs: number): Promise<number>;
  /** the text of the container's /proc/net/tcp and /proc/net/tcp6 (its own network namespace) */
  socketTable(timeoutMs: number): Promise<string>;
  /** null while running, else why it is not (exited with code N, …) */
  notRunning(): Promise<string | null>;
  /** the container's address on its network (once notRunning has read it) and whether this process reaches such addresses */
  direct?: { address(): string | null; reach: DirectReach };
}

/**
 * Whether berth reaches a daemon's container addresses: unknown until a connection was tried,
 * false for good once one could be neither made nor refused (a daemon whose bridge is in a VM).
 */
export interface DirectReach { known?: boolean }

/** how long a TCP probe's connection must stay open to count as accepted */
const TCP_HOLD_MS = 50;

const DIRECT_CONNECT_MS = 250;

/** a TCP connection straight to the container: 'open', 'refused' (nothing listens) or 'unreachable' */
function connectDirect(address: string, port: number): Promise<'open' | 'refused' | 'unreachable'> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port, timeout: DIRECT_CONNECT_MS });
    const done = (outcome: 'open' | 'refused' | 'unreachable') => { socket.destroy(); resolve(outcome); };
    socket.once('connect', () => done('open'));
    socket.once('timeout', () => done('unreachable'));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED' ? 'refused' : 'unreachable'));
  });
}

/**
 * TCP straight to the container, when its address is known and reachable: 'open' is an answer;
 * 'refused' is one only once a direct connection on this daemon has succeeded (before that, a
 * firewall's reset looks the same); otherwise null, and the caller probes the published port.
 */
async function probeDirect(probe: ProbePlan, target: ProbeTarget): Promise<{ ok: boolean; detail: string } | 'refused' | null> {
  const address = target.direct?.address() ?? null;
  const reach = target.direct?.reach;
  if (probe.kind !== 'tcp' || probe.port === null || !address || !reach || reach.known === false) return null;
  const outcome = await connectDirect(address, probe.port);
  if (outcome === 'open') {
    reach.known = true;
    return { ok: true, detail: `tcp ${probe.port} accepts connections` };
  }
  if (outcome === 'refused' && reach.known) return { ok: false, detail: `tcp ${probe.port}: connection refused (nothing listens yet)` };
  if (outcome === 'unreachable') reach.known = false;
  return outcome === 'refused' ? 'refused' : null;
}

export async function probeOnce(probe: ProbePlan, target: ProbeTarget): Promise<{ ok: boolean; detail: string }> {
  const direct = await probeDirect(probe, target);
  if (direct && direct !== 'refused') return direct;
  const result = await probeFromHost(probe, target);
  // refused straight, yet listening seen another way: what answers at container addresses is not the container
  if (direct === 'refused' && result.ok && target.direct) target.direct.reach.known = false;
  return result;
}

async function probeFromHost(probe: ProbePlan, target: ProbeTarget): Promise<{ ok: boolean; detail: string }> {
  const timeoutMs = Math.max(1, probe.timeoutSeconds) * 1000;
  if (probe.kind === 'exec') {
    try {
      const code = await target.exec(probe.command, timeoutMs);
      return { ok: code === 0, detail: `exec ${probe.command.join(' ')} exited ${code}` };
    } catch (err) {
      return { ok: false, detail: `exec failed: ${(err as Error).message}` };
    }
  }
  const port = probe.port === null ? null : target.hostPort(probe.port);
  if (port === null && probe.kind === 'tcp' && probe.port !== null) {
    try {
      const ok = listensOn(await target.socketTable(timeoutMs), probe.port);
      return { ok, detail: ok ? `tcp ${probe.port} is listening` : `tcp ${probe.port}: nothing listens on it beyond loopback yet` };
    } catch (err) {
      return { ok: false, detail: `tcp ${probe.port}: cannot read the container's sockets (${(err as Error).message})` };
    }
  }
  if (port === null) return { ok: false, detail: `port ${probe.port} is not exposed` };
  if (probe.kind === 'tcp') {
    return new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, timeout: timeoutMs });
      const done = (ok: boolean, detail: string) => { socket.destroy(); resolve({ ok, detail }); };
      // a port published through Docker's userland proxy accepts every connection and closes it
      // at once when nothing listens in the container: only a connection that stays open counts
      socket.once('connect', () => {
        const held = setTimeout(() => done(true, `tcp ${probe.port} accepts connections`), TCP_HOLD_MS);
        socket.once('close', () => { clearTimeout(held); done(false, `tcp ${probe.port}: closed at once (nothing listens yet)`); });
      });
      socket.once('timeout', () => done(false, `tcp ${probe.port}: timed out`));
      socket.once('error', (err) => done(false, `tcp ${probe.port}: ${err.message}`));
    });
  }
  try {
    const res = await fetch(`http://127.0.0.1:${port}${probe.path.startsWith('/') ? probe.path : `/${probe.path}`}`, {
      signal: AbortSignal.timeout(timeoutMs), redirect: 'manual',
    });
    await res.body?.cancel();
    return { ok: res.status >= 200 && res.status < 400, detail: `GET ${probe.path} answered ${res.status}` };
  } catch (err) {
    return { ok: false, detail: `GET ${probe.path}: ${(err as Error).cause ? String((err as Error & { cause: Error }).cause.message) : (err as Error).message}` };
  }
}

const LISTEN = '0A';

/** whether a /proc/net/tcp{,6} table has a socket listening on `port` at an address other than loopback */
export function listensOn(table: string, port: number): boolean {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const line of table.split('\n')) {
    const [, local, , state] = line.trim().split(/\s+/);
    if (state !== LISTEN || !local) continue;
    const [address, localPort] = local.split(':');
    if (localPort?.toUpperCase() !== hexPort || !address) continue;
    if (!isLoopback(address)) return true;
  }
  return false;
}

/** 127.0.0.0/8 (little-endian hex in tcp), ::1 and ::ffff:127.x (tcp6, four little-endian words) */
function isLoopback(hex: string): boolean {
  const a = hex.toUpperCase();
  if (a.length === 8) return a.endsWith('7F');
  if (a.length !== 32) return false;
  if (a === '00000000000000000000000001000000') return true;
  return a.startsWith('0000000000000000FFFF0000') && a.endsWith('7F');
}

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve, reject) => {
  if (signal.aborted) return reject(signal.reason);
  const t = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
  const onAbort = () => { clearTimeout(t); reject(signal.reason); };
  signal.addEventListener('abort', onAbort, { once: true });
});

/**
 * Waits until the probe succeeds successThreshold times in a row. Fails (with the last detail)
 * after initial delay + period × failure threshold without success, after `deadlineMs`, or as
 * soon as the container stops running.
 */
export async function waitReady(probe: ProbePlan, target: ProbeTarget, signal: AbortSignal, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  const budget = Date.now() + (probe.initialDelaySeconds + probe.periodSeconds * Math.max(1, probe.failureThreshold) + probe.timeoutSeconds) * 1000;
  // a rollout waits for readiness: probing faster than the probe's period only makes it start
  // sooner. Most processes listen within moments of starting: 10 ms apart at first, then doubling
  // up to 100 ms (or the probe's own period when shorter)
  const cap = Math.min(probe.periodSeconds * 1000, 100);
  let period = Math.min(10, cap);
  await sleep(probe.initialDelaySeconds * 1000, signal);
  let streak = 0;
  let last = 'not probed yet';
  for (;;) {
    const stopped = await target.notRunning();
    if (stopped) throw new Error(`the container ${stopped}`);
    const result = await probeOnce(probe, target);
    last = result.detail;
    streak = result.ok ? streak + 1 : 0;
    if (streak >= Math.max(1, probe.successThreshold)) return;
    if (Date.now() > Math.min(until, budget)) throw new Error(`readiness probe never succeeded (${last})`);
    await sleep(period, signal);
    period = Math.min(period * 2, cap);
  }
}

/** the probe used when a service declares none: TCP on its first port, else "keeps running" */
export function defaultReadiness(firstPort: number | null): ProbePlan | null {
  if (firstPort === null) return null;
  return {
    kind: 'tcp', port: firstPort, path: '/', command: [], initialDelaySeconds: 0, periodSeconds: 1,
    timeoutSeconds: 1, successThreshold: 1, failureThreshold: 60,
  };
}
