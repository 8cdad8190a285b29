// Reading a Swarm: its nodes (address, state, availability), a service's tasks and where they
// publish their ports, the ingress upstreams that follow from them (node address : host-mode port
// of every running task), and waiting for a service to converge on a generation (the update
// finished, every task of it running and healthy) while keeping its routes current. Swarm does the
// scheduling and the rolling update; berth watches and reports.
import type Docker from 'dockerode';
import type { LogSink } from '../engine.ts';
import { EngineFailure } from '../engine.ts';
import type { IngressLike } from '../docker/rollout.ts';
import { labelFilter, parseRoutes } from '../docker/naming.ts';

export interface SwarmNode {
  id: string;
  hostname: string;
  address: string;
  role: 'manager' | 'worker';
  leader: boolean;
  /** ready | down | unknown | disconnected */
  state: string;
  /** active | pause | drain */
  availability: string;
  labels: Record<string, string>;
  version: number;
  spec: Record<string, unknown>;
}

export interface SwarmTask {
  id: string;
  nodeId: string;
  slot: number | null;
  state: string;
  desired: string;
  error: string | null;
  /** what Swarm says the task is doing (preparing, pulling, …) */
  message: string | null;
  exitCode: number | null;
  /** its container on its node, once started */
  containerId: string | null;
  generation: string | null;
  forceUpdate: number;
  /** target port → published host port (host mode) */
  ports: Map<number, number>;
  createdAt: string;
}

/** the parts of the Engine API's Swarm answers berth reads (dockerode types nodes and tasks as any) */
interface RawNode {
  ID: string;
  Version?: { Index?: number };
  Spec?: { Role?: 'manager' | 'worker'; Availability?: string; Labels?: Record<string, string> };
  Description?: { Hostname?: string };
  Status?: { State?: string; Addr?: string };
  ManagerStatus?: { Leader?: boolean; Addr?: string };
}
interface RawTask {
  ID: string;
  NodeID?: string;
  Slot?: number;
  DesiredState?: string;
  CreatedAt?: string;
  Spec?: { ForceUpdate?: number; ContainerSpec?: { Labels?: Record<string, string> } };
  Status?: {
    State?: string; Err?: string; Message?: string;
    ContainerStatus?: { ContainerID?: string; ExitCode?: number };
    PortStatus?: { Ports?: Array<{ TargetPort: number; PublishedPort: number }> };
  };
}

/** a Swarm service as berth reads it back: its labels, replicas, task template and update state */
export interface SwarmService {
  ID: string;
  Version: { Index: number };
  Spec: {
    Labels?: Record<string, string>;
    Mode?: { Replicated?: { Replicas?: number } };
    TaskTemplate?: { ForceUpdate?: number; ContainerSpec?: { Labels?: Record<string, string> } } & Record<string, unknown>;
  } & Record<string, unknown>;
  UpdateStatus?: { State?: string; Message?: string };
}

export async function listServices(docker: Docker, labels: Record<string, string>): Promise<SwarmService[]> {
  return await docker.listServices({ filters: labelFilter(labels) }) as unknown as SwarmService[];
}

/** the service, or null when Swarm has none of that name */
export async function inspectService(docker: Docker, name: string): Promise<SwarmService | null> {
  try {
    return await docker.getService(name).inspect() as SwarmService;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return null;
    throw err;
  }
}

export async function listNodes(docker: Docker): Promise<SwarmNode[]> {
  const nodes = await docker.listNodes() as RawNode[];
  return nodes.map((n) => {
    let address = n.Status?.Addr ?? '';
    // a manager may report 0.0.0.0; its manager address says where it is
    if (!address || address === '0.0.0.0') address = String(n.ManagerStatus?.Addr ?? '').replace(/:\d+$/, '');
    return {
      id: n.ID, hostname: n.Description?.Hostname ?? n.ID, address, role: n.Spec?.Role ?? 'worker', leader: !!n.ManagerStatus?.Leader,
      state: n.Status?.State ?? 'unknown', availability: n.Spec?.Availability ?? 'active', labels: n.Spec?.Labels ?? {},
      version: n.Version?.Index ?? 0, spec: n.Spec ?? {},
    };
  });
}

/** the tasks of a service (by name or id), or those the filters select */
export async function listTasks(docker: Docker, serviceOrFilters: string | Record<string, string[]>): Promise<SwarmTask[]> {
  const filters = typeof serviceOrFilters === 'string' ? { service: [serviceOrFilters] } : serviceOrFilters;
  const tasks = await docker.listTasks({ filters }) as RawTask[];
  return tasks.map((t) => ({
    id: t.ID, nodeId: t.NodeID ?? '', slot: t.Slot ?? null, state: t.Status?.State ?? 'unknown', desired: t.DesiredState ?? 'unknown',
    error: t.Status?.Err ?? null, message: t.Status?.Message ?? null, exitCode: t.Status?.ContainerStatus?.ExitCode ?? null,
    containerId: t.Status?.ContainerStatus?.ContainerID ?? null,
    generation: t.Spec?.ContainerSpec?.Labels?.['berth.generation'] ?? null, forceUpdate: t.Spec?.ForceUpdate ?? 0,
    ports: new Map((t.Status?.PortStatus?.Ports ?? []).map((p) => [p.TargetPort, p.PublishedPort])),
    createdAt: t.CreatedAt ?? '',
  }));
}

/** every running task's node address and published port for one target port */
function upstreamsFor(tasks: SwarmTask[], nodes: Map<string, SwarmNode>, port: number): string[] {
  return tasks
    .filter((t) => t.desired === 'running' && t.state === 'running')
    .map((t) => {
      const node = nodes.get(t.nodeId);
      const published = t.ports.get(port);
      return node && node.address && published ? `${node.address}:${published}` : null;
    })
    .filter((u): u is string => u !== null)
    .sort();
}

/**
 * Keeps a service's ingress routes on its running tasks. A route is only ever pointed at running
 * tasks, never emptied here (a moment with none keeps the last ones: the proxy's retries find the
 * next); stopping and removing a service remove its routes. Remembers what it sent last.
 */
export function routeKeeper(ingress: IngressLike | null) {
  const sent = new Map<string, string>();
  return {
    async sync(routesLabel: string | undefined, tasks: SwarmTask[], nodes: Map<string, SwarmNode>): Promise<void> {
      if (!ingress) return;
      for (const route of parseRoutes(routesLabel)) {
        const upstreams = upstreamsFor(tasks, nodes, route.port);
        const key = upstreams.join(',');
        if (upstreams.length === 0 || sent.get(route.id) === key) continue;
        await ingress.upsert({ id: route.id, hosts: route.hosts, upstreams });
        sent.set(route.id, key);
      }
    },
    async remove(routesLabel: string | undefined): Promise<void> {
      for (const route of parseRoutes(routesLabel)) {
        await ingress?.remove(route.id);
        sent.delete(route.id);
      }
    },
    forget(routeId: string) { sent.delete(routeId); },
  };
}

type RouteKeeper = ReturnType<typeof routeKeeper>;

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const t = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

export interface ConvergeInput {
  docker: Docker;
  name: string;
  /** the berth.generation label the tasks must carry (null: a service without it, whose tasks carry none either) */
  generation: string | null;
  forceUpdate: number;
  replicas: number;
  routes: RouteKeeper;
  timeoutMs: number;
  phase: 'deploy' | 'restart';
}

/** waits until the service runs `replicas` healthy tasks of this generation; fails on a rollback, repeated task failures or the timeout */
export async function converge(input: ConvergeInput, log: LogSink, signal: AbortSignal): Promise<void> {
  const { docker, name } = input;
  const deadline = Date.now() + input.timeoutMs;
  const said = new Map<string, string>();
  for (;;) {
    if (signal.aborted) throw new EngineFailure(input.phase, 'The deployment was cancelled');
    const service = await docker.getService(name).inspect() as SwarmService;
    const [tasks, nodeList] = await Promise.all([listTasks(docker, name), listNodes(docker)]);
    const nodes = new Map(nodeList.map((n) => [n.id, n]));
    await input.routes.sync(service.Spec?.Labels?.['berth.routes'], tasks, nodes);
    const ours = tasks.filter((t) => t.generation === input.generation && t.forceUpdate === input.forceUpdate);
    for (const t of ours) {
      const line = `${t.state}${t.error ? ` (${t.error})` : ''}`;
      if (said.get(t.id) !== line && ['running', 'failed', 'rejected', 'starting'].includes(t.state)) {
        said.set(t.id, line);
        await log('DEPLOY', `Task ${t.slot ?? ''} on ${nodes.get(t.nodeId)?.hostname ?? 'a node'}: ${line}`.replace('Task  on', 'Task on'));
      }
    }
    const update = service.UpdateStatus;
    if (update?.State && ['rollback_started', 'rollback_completed', 'rollback_paused', 'paused'].includes(update.State)) {
      const failed = ours.find((t) => t.error);
      throw new EngineFailure(input.phase, `Swarm rolled the update back: ${update.Message ?? update.State}${failed?.error ? `; ${failed.error}` : ''}. The previous version keeps serving`);
    }
    const running = ours.filter((t) => t.desired === 'running' && t.state === 'running');
    const others = tasks.filter((t) => t.desired === 'running' && !ours.includes(t));
    const updating = update?.State === 'updating';
    if (running.length >= input.replicas && others.length === 0 && !updating) return;
    const failures = ours.filter((t) => t.state === 'failed' || t.state === 'rejected');
    if (!update && failures.length >= 3) {
      throw new EngineFailure(input.phase, `The service's tasks keep failing: ${failures[0]!.error ?? `exit code ${failures[0]!.exitCode}`}`);
    }
    if (Date.now() > deadline) {
      throw new EngineFailure(input.phase, `The service did not converge within ${Math.round(input.timeoutMs / 1000)} s: ${running.length} of ${input.replicas} task(s) running${failures[0]?.error ? ` (${failures[0].error})` : ''}`);
    }
    await sleep(200, signal);
  }
}
