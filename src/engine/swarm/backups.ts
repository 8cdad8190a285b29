// Database backups on a Swarm (decision 0720): the docker engine's dumps, restores and drills
// (docker/backups.ts), run on the daemon of the node whose task runs the database: the manager's,
// or a node's berth reaches (SWARM_NODE_DOCKER_HOSTS). A node berth cannot reach is named in the
// error. Redis cannot be restored here: its swap needs the server stopped, and Swarm would replace
// the stopped task.
import type Docker from 'dockerode';
import { EngineFailure } from '../engine.ts';
import { createDatabaseBackups, type BackupsOptions } from '../docker/backups.ts';
import type { NodeDaemon } from './images.ts';
import { swarmServiceName } from './spec.ts';
import { listTasks } from './tasks.ts';

function taskLocator(manager: Docker, nodes: () => Promise<NodeDaemon[]>): BackupsOptions['locate'] {
  return async (service, phase) => {
    const name = swarmServiceName(service.slug, service.id);
    const task = (await listTasks(manager, name)).find((t) => t.desired === 'running' && t.state === 'running' && t.containerId);
    if (!task) throw new EngineFailure(phase, `${service.name} has no running task: deploy or start it first`);
    const managerId = ((await manager.info()) as { Swarm?: { NodeID?: string } }).Swarm?.NodeID;
    if (task.nodeId === managerId) return { docker: manager, containerId: task.containerId! };
    const daemon = (await nodes()).find((n) => n.nodeId === task.nodeId);
    if (!daemon) {
      throw new EngineFailure(phase, `${service.name} runs on node ${task.nodeId}, whose Docker daemon berth does not reach: add it to SWARM_NODE_DOCKER_HOSTS (dumps are taken inside the database's container, on its node)`);
    }
    return { docker: daemon.docker, containerId: task.containerId! };
  };
}

export function swarmDatabaseBackups(manager: Docker, nodes: () => Promise<NodeDaemon[]>) {
  return createDatabaseBackups({ locate: taskLocator(manager, nodes), canStopContainer: false });
}
