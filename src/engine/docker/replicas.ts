// Reading and acting on the replicas of a service on the daemon: listing them by label, their
// published loopback ports, probes against them, their last log lines, and stopping/removing
// (every container berth removes, replica or job run, goes through removeContainer).
import type Docker from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import type { DirectReach, ProbeTarget } from './health.ts';
import { labelFilter } from './naming.ts';

export async function listReplicas(docker: Docker, serviceId: string, all = true): Promise<ContainerInfo[]> {
  return docker.listContainers({ all, filters: labelFilter({ 'berth.service_id': serviceId, 'berth.role': 'replica' }) });
}

/** internal port → loopback port, from a container's published ports */
export function publishedPorts(info: Pick<ContainerInfo, 'Ports'>): Map<number, number> {
  const out = new Map<number, number>();
  for (const p of info.Ports ?? []) if (p.PublicPort && p.IP === '127.0.0.1') out.set(p.PrivatePort, p.PublicPort);
  return out;
}

const reachByDaemon = new WeakMap<Docker, DirectReach>();
const reachOf = (docker: Docker): DirectReach => {
  let reach = reachByDaemon.get(docker);
  if (!reach) reachByDaemon.set(docker, reach = {});
  return reach;
};

export function probeTarget(docker: Docker, id: string, hostPorts: Map<number, number>): ProbeTarget {
  const container = docker.getContainer(id);
  let address: string | null = null;
  return {
    hostPort: (port) => hostPorts.get(port) ?? null,
    direct: { address: () => address, reach: reachOf(docker) },
    async exec(command, timeoutMs) {
      return (await execIn(container, command, timeoutMs)).exitCode;
    },
    async socketTable(timeoutMs) {
      // tcp6 is missing where IPv6 is off: cat then exits 1 after printing tcp, which is enough
      const { output } = await execIn(container, ['cat', '/proc/net/tcp', '/proc/net/tcp6'], timeoutMs);
      if (!/\blocal_address\b/.test(output)) throw new Error(output.trim().split('\n')[0] || 'cat printed nothing');
      return output;
    },
    async notRunning() {
      const info = await container.inspect();
      // a replica is on one network, its environment's (a database too)
      address = Object.values(info.NetworkSettings?.Networks ?? {}).map((n) => n.IPAddress).find((a) => !!a) ?? null;
      if (info.State.Running && !info.State.Restarting) return null;
      return info.State.Restarting ? `is restarting (exit code ${info.State.ExitCode})` : `exited with code ${info.State.ExitCode}${info.State.OOMKilled ? ' (out of memory)' : ''}`;
    },
  };
}

/** runs a command in a container: its exit code and what it printed (stdout and stderr) */
export async function execIn(container: Docker.Container, command: string[], timeoutMs: number): Promise<{ exitCode: number; output: string }> {
  const exec = await container.exec({ Cmd: command, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { stream.destroy(); reject(new Error(`timed out after ${timeoutMs} ms`)); }, timeoutMs);
    stream.on('data', (d: Buffer) => chunks.push(d));
    stream.on('end', () => { clearTimeout(timer); resolve(); });
    stream.on('error', (err) => { clearTimeout(timer); reject(err); });
  });
  const inspected = await exec.inspect();
  return { exitCode: inspected.ExitCode ?? 1, output: demux(Buffer.concat(chunks)) };
}

/** the last lines a container wrote (stdout and stderr), for failure messages */
export async function lastLines(docker: Docker, id: string, count = 20): Promise<string[]> {
  try {
    const buffer = await docker.getContainer(id).logs({ stdout: true, stderr: true, tail: count, follow: false }) as unknown as Buffer;
    return demux(buffer).split('\n').filter((l) => l.trim() !== '');
  } catch {
    return [];
  }
}

/** Docker's multiplexed log frames (8-byte header per frame) to text */
export function demux(buffer: Buffer): string {
  const parts: string[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length && (buffer[offset] === 1 || buffer[offset] === 2 || buffer[offset] === 0)) {
    const size = buffer.readUInt32BE(offset + 4);
    parts.push(buffer.subarray(offset + 8, offset + 8 + size).toString('utf8'));
    offset += 8 + size;
  }
  if (offset === 0) return buffer.toString('utf8');
  return parts.join('');
}

/**
 * Removes a container with its anonymous volumes (an image's VOLUME: a removed container's is
 * never used again, and with `v: false` one piled up on the host at every redeploy). Named
 * volumes, a database's data, are untouched: they go only with an uninstall's purge (0305).
 */
export function removeContainer(container: Docker.Container): Promise<unknown> {
  return container.remove({ force: true, v: true });
}

export async function stopAndRemove(docker: Docker, ids: string[], timeoutSeconds = 10): Promise<void> {
  await Promise.all(ids.map(async (id) => {
    const c = docker.getContainer(id);
    await c.stop({ t: timeoutSeconds }).catch(() => {});
    await removeContainer(c).catch((err: { statusCode?: number }) => {
      if (err.statusCode !== 404 && err.statusCode !== 409) throw err;
    });
  }));
}
