// The environment's network: one user-defined bridge per environment, where its services reach
// each other by name (and an agent run's egress proxy resolves them). Made on first use, labelled
// with its owners, shared by every service of the environment.
import type Docker from 'dockerode';
import { networkName, ownerLabels, type OwnerIds } from './naming.ts';

/** the environment's network, created when missing; its name */
export async function ensureEnvironmentNetwork(docker: Docker, ids: OwnerIds): Promise<string> {
  const name = networkName(ids.environmentId);
  const found = await docker.listNetworks({ filters: { name: [name] } });
  if (found.some((n) => n.Name === name)) return name;
  await docker.createNetwork({
    Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: { ...ownerLabels(ids), 'berth.service_id': '', 'berth.role': 'network' },
  }).catch((err: { statusCode?: number }) => { if (err.statusCode !== 409) throw err; });
  return name;
}
