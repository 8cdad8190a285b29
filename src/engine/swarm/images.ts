// Getting an image built on the manager to every node (decision 0343). With SWARM_REGISTRY set, the
// image is pushed there once and tasks pull it (`<registry>/berth/<service>:<commit>`), with the
// credentials of the organization's container registry at that address when it has one; without
// one, berth copies it itself, `docker save` from the manager into `docker load` on every node it
// can reach (SWARM_NODE_DOCKER_HOSTS) that lacks it: the fallback for small clusters. A node berth
// cannot reach gets no copy, and the log says which.
import type Docker from 'dockerode';
import { jsonLines } from '../docker/stream.ts';
import { EngineFailure } from '../engine.ts';
import type { RegistryAuth, RuntimePlan } from '../plan.ts';

export interface NodeDaemon { nodeId: string; hostname: string; docker: Docker }

/** the node daemons berth can reach, by their Swarm node id (asked once per client) */
export async function nodeDaemons(clients: Docker[]): Promise<NodeDaemon[]> {
  const found: NodeDaemon[] = [];
  for (const docker of clients) {
    try {
      const info = await docker.info() as { Name?: string; Swarm?: { NodeID?: string } };
      if (info.Swarm?.NodeID) found.push({ nodeId: info.Swarm.NodeID, hostname: info.Name ?? info.Swarm.NodeID, docker });
    } catch { /* a node that does not answer now gets no copy; the caller says so */ }
  }
  return found;
}

/** the credentials for SWARM_REGISTRY of a service built from git (the organization's container registry there), or null */
export const pushAuthOf = (plan: RuntimePlan | null | undefined) => (plan?.source?.kind === 'git' ? plan.source.pushAuth ?? null : null);

/** what Swarm's nodes pull a service's image with: its registry's credentials, or SWARM_REGISTRY's for a build */
export function pullAuthOf(plan: RuntimePlan): RegistryAuth | undefined {
  if (plan.source?.kind === 'image') return plan.source.auth ?? undefined;
  return pushAuthOf(plan) ?? undefined;
}

/** the reference the image has in the registry */
function registryRef(registry: string, tag: string): string {
  return `${registry.replace(/\/+$/, '')}/${tag}`;
}

/** pushes `tag` to the registry (with the credentials of the organization's container registry there, when it has one) */
export async function pushToRegistry(manager: Docker, tag: string, registry: string, log: (line: string) => Promise<void>, signal: AbortSignal,
  auth: RegistryAuth | null = null): Promise<string> {
  const ref = registryRef(registry, tag);
  const [repo, version] = [ref.slice(0, ref.lastIndexOf(':')), ref.slice(ref.lastIndexOf(':') + 1)];
  await manager.getImage(tag).tag({ repo, tag: version });
  await log(`Pushing ${ref}`);
  const stream = await manager.getImage(repo).push({ tag: version, authconfig: auth ?? {} } as never) as unknown as NodeJS.ReadableStream;
  for await (const message of jsonLines(stream, signal)) {
    if (message.error) throw new EngineFailure('build', `Pushing ${ref} failed: ${message.error}`);
  }
  await log(`Pushed ${ref}${auth ? ` as ${auth.username} (the organization's container registry at ${registry})` : ''}: every node pulls it from the registry`);
  return ref;
}

async function hasImage(docker: Docker, ref: string): Promise<boolean> {
  try {
    await docker.getImage(ref).inspect();
    return true;
  } catch {
    return false;
  }
}

/**
 * copies `ref` from the manager to each ready node daemon lacking it; a node it cannot copy to is a
 * log line, not a failure (Swarm places tasks on the nodes that have the image... or fails them there)
 */
export async function copyToNodes(manager: Docker, ref: string, nodes: NodeDaemon[], skip: ReadonlySet<string>,
  log: (line: string) => Promise<void>): Promise<void> {
  for (const node of nodes) {
    if (skip.has(node.nodeId)) continue;
    try {
      if (await hasImage(node.docker, ref)) continue;
      const started = Date.now();
      const image = await manager.getImage(ref).get();
      const loaded = await node.docker.loadImage(image, { quiet: true }) as NodeJS.ReadableStream;
      for await (const message of jsonLines(loaded, AbortSignal.timeout(600_000))) {
        if (message.error) throw new Error(message.error);
      }
      await log(`Copied ${ref} to ${node.hostname} (docker save | docker load, ${Date.now() - started} ms)`);
    } catch (err) {
      await log(`Could not copy ${ref} to ${node.hostname}: ${(err as Error).message}`);
    }
  }
}
