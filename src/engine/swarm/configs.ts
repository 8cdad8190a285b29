// Variables with a mount_path become files in every task: on Swarm, one Swarm config per file
// (content-addressed name, so a changed file is a new config and the rolling update swaps it),
// labelled with the Swarm service they belong to; configs no version uses any more are removed.
import type Docker from 'dockerode';
import { createHash } from 'node:crypto';
import { ownerLabels, type OwnerIds } from '../docker/naming.ts';

export interface FileConfig { id: string; name: string; path: string }

export async function fileConfigs(docker: Docker, service: string, ids: OwnerIds, files: Array<{ path: string; content: string }>): Promise<FileConfig[]> {
  const made: FileConfig[] = [];
  for (const file of files) {
    const hash = createHash('sha256').update(file.path).update('\0').update(file.content).digest('hex').slice(0, 16);
    const name = `${service}-${hash}`;
    const existing = (await docker.listConfigs({ filters: { name: [name] } }) as Array<{ ID: string; Spec: { Name: string } }>).find((c) => c.Spec.Name === name);
    const id = existing?.ID ?? ((await docker.createConfig({
      Name: name, Labels: { ...ownerLabels(ids), 'berth.swarm_service': service }, Data: Buffer.from(file.content).toString('base64'),
    })) as unknown as { id: string }).id;
    made.push({ id, name, path: file.path });
  }
  return made;
}

/** removes the service's configs other than `keep` (those still in use by a task are left for the next deployment) */
export async function removeConfigs(docker: Docker, service: string, keep: string[]): Promise<void> {
  const configs = await docker.listConfigs({ filters: { label: [`berth.swarm_service=${service}`] } }) as Array<{ ID: string }>;
  for (const c of configs) if (!keep.includes(c.ID)) await docker.getConfig(c.ID).remove().catch(() => {});
}
