// A real three-node Docker Swarm for engine tests (swarm-cluster.sh does the namespaces, the
// daemons and init/join, as ../shared/reference/swarm.md measured): this side loads the test
// images into every node (`docker save | docker load` from the test daemon), gives Docker clients
// per node, kills a node, and tears it all down. Needs root, iproute2, unshare and dockerd; one
// cluster per test file (each gets its own /24 in 10.200-201.x).
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { dockerAt } from './docker.ts';

const execFileP = promisify(execFile);
const SCRIPT = new URL('./swarm-cluster.sh', import.meta.url).pathname;
const ROOT = '/var/lib/berth-test-swarm';

interface SwarmNodeHandle { index: number; address: string; host: string; docker: Docker }

export interface SwarmCluster {
  name: string;
  /** the test host's address on the cluster's /24 (what the nodes reach it at) */
  hostAddress: string;
  nodes: SwarmNodeHandle[];
  manager: SwarmNodeHandle;
  /** every process of node i (dockerd, containerd, its containers) dies at once */
  kill(index: number): Promise<void>;
  /** docker save from `from` into each node (or those of `only`, by index) that lacks the images */
  load(from: Docker, refs: string[], only?: number[]): Promise<void>;
  close(): Promise<void>;
}

/** why Swarm tests cannot run here, or null */
export async function swarmUnavailable(): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'a Swarm in network namespaces needs root';
  for (const tool of ['ip', 'unshare', 'dockerd', 'docker']) {
    try { await execFileP('sh', ['-c', `command -v ${tool}`]); } catch { return `${tool} is not installed`; }
  }
  return null;
}

/** the octet of this process's cluster, and the test host's address on it (swarm-cluster.sh's addressing) */
export function swarmHostAddress(): { octet: number; address: string } {
  const octet = (process.pid % 400) + 1;
  return { octet, address: `10.${200 + Math.floor(octet / 250)}.${octet % 250}.1` };
}

/** `registry`: a plain-HTTP registry address (on hostAddress) the nodes may pull from */
export async function startSwarmCluster(nodes = 3, options: { registry?: string } = {}): Promise<SwarmCluster> {
  const { octet, address: hostAddress } = swarmHostAddress();
  const name = `bsw${octet}`;
  const dir = `${ROOT}/${name}`;
  await execFileP('bash', [SCRIPT, 'down', name, String(nodes), dir]).catch(() => {});
  const { stdout } = await execFileP('bash', [SCRIPT, 'up', name, String(octet), String(nodes), dir, options.registry ?? ''], { timeout: 120_000 });
  const handles = stdout.trim().split('\n').filter((l) => l.startsWith('node ')).map((l) => {
    const [, index, address, socket] = l.split(' ');
    return { index: Number(index), address: address!, host: `unix://${socket}`, docker: dockerAt(`unix://${socket}`) };
  });
  return {
    name,
    hostAddress,
    nodes: handles,
    manager: handles[0]!,
    async kill(index) { await execFileP('bash', [SCRIPT, 'kill', name, String(index)]); },
    async load(from, refs, only) {
      for (const node of handles.filter((h) => !only || only.includes(h.index))) {
        for (const ref of refs) {
          if (await node.docker.getImage(ref).inspect().then(() => true, () => false)) continue;
          const image = await from.getImage(ref).get();
          const stream = await node.docker.loadImage(image) as NodeJS.ReadableStream;
          await new Promise<void>((resolve, reject) => { stream.on('end', resolve); stream.on('error', reject); stream.resume(); });
        }
      }
    },
    async close() {
      await execFileP('bash', [SCRIPT, 'down', name, String(nodes), dir], { timeout: 120_000 }).catch(() => {});
      await rm(dir, { recursive: true, force: true }).catch(() => {});
    },
  };
}
