// What a berth service holds on a Swarm besides its Swarm service (decision 0343): its
// environment's attachable overlay network, the node pin of its volumes (a node label chosen
// once), and what is left on the nodes after it: finished task containers, volumes and the images
// built for it, on the manager and every node daemon berth reaches.
import type Docker from 'dockerode';
import type { LogSink } from '../engine.ts';
import { EngineFailure } from '../engine.ts';
import { labelFilter, networkName, ownerLabels, volumeName, type OwnerIds } from '../docker/naming.ts';
import { pinLabel } from './spec.ts';
import { listNodes, type SwarmNode } from './tasks.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const statusOf = (err: unknown) => (err as { statusCode?: number }).statusCode;

export async function ensureNetwork(docker: Docker, environmentId: string, ids: OwnerIds): Promise<string> {
  const name = networkName(environmentId);
  const found = await docker.listNetworks({ filters: { name: [name] } });
  if (!found.some((n) => n.Name === name)) {
    await docker.createNetwork({ Name: name, Driver: 'overlay', Attachable: true, CheckDuplicate: true, Labels: { ...ownerLabels({ ...ids, serviceId: '' }), 'berth.role': 'environment-network' } })
      .catch((err) => { if (statusOf(err) !== 409) throw err; });
  }
  return name;
}

/** the environment's network, once no service of it is left (a deployment may put a new one on it meanwhile: then it stays) */
export async function removeNetwork(docker: Docker, environmentId: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    if ((await docker.listServices({ filters: labelFilter({ 'berth.environment_id': environmentId }) })).length > 0) return;
    try {
      await docker.getNetwork(networkName(environmentId)).remove();
      return;
    } catch (err) {
      if (statusOf(err) === 404) return;
      await sleep(500); // endpoints of removed tasks linger a moment
    }
  }
}

/** the node holding the service's volumes: chosen once (the ready, active node with the fewest pinned), recorded as a node label */
export async function pinVolumes(docker: Docker, serviceId: string, log: LogSink): Promise<string> {
  const label = pinLabel(serviceId);
  const nodes = await listNodes(docker);
  const held = nodes.find((n) => n.labels[label] === 'true');
  if (held) {
    await log('DEPLOY', `Pinned to node ${held.hostname}, which holds its volume`);
    return held.hostname;
  }
  const pins = (n: SwarmNode) => Object.keys(n.labels).filter((k) => k.startsWith('berth.volume.')).length;
  const candidates = nodes.filter((n) => n.state === 'ready' && n.availability === 'active').sort((a, b) => pins(a) - pins(b));
  const node = candidates[0];
  if (!node) throw new EngineFailure('deploy', 'No Swarm node is ready and active to hold the service\'s volume');
  await docker.getNode(node.id).update({ version: node.version, ...node.spec, Labels: { ...node.labels, [label]: 'true' } });
  await log('DEPLOY', `Pinned to node ${node.hostname}: its volume lives there, and so does every task of it (node label ${label})`);
  return node.hostname;
}

/** the node holding the service's volumes, once pinned */
export async function pinnedNode(docker: Docker, serviceId: string): Promise<SwarmNode | null> {
  return (await listNodes(docker)).find((n) => n.labels[pinLabel(serviceId)] === 'true') ?? null;
}

/** finished task containers Swarm did not take away (a job run's, seen after its service was removed), on every daemon given */
export async function sweepContainers(daemons: Docker[], serviceId: string, extra: Record<string, string> = {}): Promise<void> {
  for (const d of daemons) {
    const left = await d.listContainers({ all: true, filters: labelFilter({ 'berth.service_id': serviceId, ...extra }) }).catch(() => []);
    for (const c of left.filter((x) => x.State !== 'running')) await d.getContainer(c.Id).remove({ force: true }).catch(() => {});
  }
}

/** a volume is in use until the last task container of the service has left its node: retried for a while (409); false when absent */
async function removeVolume(d: Docker, name: string): Promise<boolean> {
  for (let attempt = 0; attempt < 60; attempt++) {
    try {
      await d.getVolume(name).remove();
      return true;
    } catch (err) {
      if (statusOf(err) !== 409) return false;
      await sleep(500);
    }
  }
  return false;
}

/** volumes on the nodes that hold them, the pin label, and the images built for the service, on the manager and every daemon given */
export async function purgeService(docker: Docker, daemons: Docker[], serviceId: string, log: LogSink): Promise<void> {
  let volumes = 0;
  for (const d of [docker, ...daemons]) {
    const found = await d.listVolumes({ filters: labelFilter({ 'berth.service_id': serviceId }) }).catch(() => ({ Volumes: [] }));
    for (const name of new Set([...(found.Volumes ?? []).map((v) => v.Name), volumeName(serviceId, 'data')])) {
      if (await removeVolume(d, name)) volumes++;
    }
    const images = await d.listImages({ filters: labelFilter({ 'berth.service_id': serviceId }) }).catch(() => []);
    for (const image of images) await d.getImage(image.Id).remove({ force: true }).catch(() => {});
  }
  const label = pinLabel(serviceId);
  for (const n of await listNodes(docker)) {
    if (n.labels[label] === undefined) continue;
    const labels = { ...n.labels };
    delete labels[label];
    await docker.getNode(n.id).update({ version: n.version, ...n.spec, Labels: labels });
  }
  await log('DEPLOY', `Removed the service's ${volumes} volume(s), its pin and the images built for it`);
}
