// What a berth service is on Docker Swarm (decision 0343): one Swarm service per berth service,
// named from its slug and id, on its environment's attachable overlay network with the slug (and
// the plan's aliases) as DNS names, endpoint mode dnsrr (these kernels have no IPVS: no VIPs, no
// routing mesh), ports published in host mode on whichever node runs a task (the ingress proxy
// routes to node:port), replicas spread over nodes, cpu/memory as reservations and limits, and
// Swarm's own rolling update (start-first for stateless services, stop-first for those holding a
// volume; failure → rollback) gated by a healthcheck made from the readiness probe. Pure: the
// driver sends what this returns.
import type { ProbePlan, RuntimePlan } from '../plan.ts';
import type { ServiceSettings } from '../settings.ts';
import { dnsLabel, ownerLabels, volumeName, type OwnerIds, type RouteLabel } from '../docker/naming.ts';

const SECOND = 1_000_000_000;
const short = (id: string) => id.replace(/-/g, '').slice(0, 8);

/** the Swarm service of a berth service (unique in the cluster, stable across deployments) */
export function swarmServiceName(slug: string, serviceId: string): string {
  return `berth-${dnsLabel(slug, 30)}-${short(serviceId)}`;
}

/** a one-shot job run (a cron occurrence or a lifecycle command) */
export function swarmJobName(slug: string, serviceId: string, runId: string): string {
  return `berth-job-${dnsLabel(slug, 24)}-${short(serviceId)}-${short(runId)}`;
}

/** the node label that pins a service holding a volume to the node that has it */
export function pinLabel(serviceId: string): string {
  return `berth.volume.${serviceId}`;
}

/**
 * The readiness probe as a Swarm healthcheck, run inside the task: the probe command itself, or
 * the first of nc / wget / curl the image has (HTTP and TCP probes). A task stays "starting" until
 * it passes, and Swarm's update waits for it (start-first: the old task stops only then).
 */
export function healthcheckOf(probe: ProbePlan | null): Record<string, unknown> | undefined {
  if (!probe) return undefined;
  const timing = {
    Interval: Math.max(1, probe.periodSeconds) * SECOND,
    Timeout: Math.max(1, probe.timeoutSeconds) * SECOND,
    Retries: Math.max(1, probe.failureThreshold),
    StartPeriod: Math.max(0, probe.initialDelaySeconds) * SECOND,
  };
  if (probe.kind === 'exec') return { Test: ['CMD', ...probe.command], ...timing };
  const port = probe.port ?? 80;
  const url = `http://127.0.0.1:${port}${probe.path.startsWith('/') ? probe.path : `/${probe.path}`}`;
  const check = probe.kind === 'tcp'
    ? `nc -z 127.0.0.1 ${port} 2>/dev/null || nc -w 1 127.0.0.1 ${port} </dev/null >/dev/null 2>&1`
    : `if command -v curl >/dev/null; then curl -fsS -o /dev/null '${url}'; elif command -v wget >/dev/null; then wget -q -O /dev/null '${url}'; else nc -w 1 127.0.0.1 ${port} </dev/null >/dev/null 2>&1; fi`;
  return { Test: ['CMD-SHELL', check], ...timing };
}

export interface SwarmSpecInput {
  name: string;
  ids: OwnerIds;
  slug: string;
  generation: string;
  image: string;
  plan: RuntimePlan;
  network: string;
  routes: RouteLabel[];
  readiness: ProbePlan | null;
  settings: ServiceSettings;
  replicas: number;
  /** a database's image contract */
  extraEnv?: Record<string, string>;
  cmd?: string[] | null;
  dataDir?: string | null;
  /** a PUBLIC database: its reserved port, published in host mode on its pinned node */
  publicPort?: number | null;
  /** the node label constraint of a service holding a volume */
  pinned: boolean;
  /** Swarm configs holding the plan's files: [config id, config name, path] */
  files: Array<{ id: string; name: string; path: string }>;
  /** Swarm's counter that forces new tasks when nothing else changed (restarts) */
  forceUpdate?: number;
}

export function serviceSpec(input: SwarmSpecInput): Record<string, unknown> {
  const { plan, settings } = input;
  const holdsVolume = input.pinned;
  const env = { ...plan.env, ...(input.extraEnv ?? {}) };
  const mounts = [
    ...plan.volumes.map((v) => ({ Type: 'volume', Source: volumeName(input.ids.serviceId, v.key), Target: v.mountPoint, VolumeOptions: { Labels: ownerLabels(input.ids) } })),
    ...(input.dataDir ? [{ Type: 'volume', Source: volumeName(input.ids.serviceId, 'data'), Target: input.dataDir, VolumeOptions: { Labels: ownerLabels(input.ids) } }] : []),
  ];
  const ports = [
    ...[...new Set(plan.ports.map((p) => p.internalPort))].map((port) => ({ Protocol: 'tcp', TargetPort: port, PublishMode: 'host' })),
    ...(input.publicPort && plan.database ? [{ Protocol: 'tcp', TargetPort: plan.database.port, PublishedPort: input.publicPort, PublishMode: 'host' }] : []),
  ];
  const order = holdsVolume || settings.deployment.strategy === 'Recreate' ? 'stop-first' : 'start-first';
  const update = { Parallelism: 1, Order: order, FailureAction: 'rollback', Monitor: 5 * SECOND, Delay: 0 };
  const labels = { ...ownerLabels(input.ids), 'berth.role': 'replica', 'berth.generation': input.generation, 'berth.routes': JSON.stringify(input.routes) };
  return {
    Name: input.name,
    Labels: labels,
    TaskTemplate: {
      ContainerSpec: {
        Image: input.image,
        Labels: labels,
        Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
        ...(plan.entrypoint ? { Command: [plan.entrypoint] } : {}),
        ...(input.cmd ? { Args: input.cmd } : plan.args.length > 0 ? { Args: plan.args } : {}),
        Mounts: mounts,
        StopGracePeriod: settings.deployment.graceSeconds * SECOND,
        // a PID 1 without a handler for SIGTERM ignores it and every stop (update, drain) would
        // wait the whole grace period: Docker's init forwards the signal to the process it runs
        Init: true,
        ReadOnly: settings.security.readOnlyRootFilesystem,
        ...(healthcheckOf(input.readiness) ? { Healthcheck: healthcheckOf(input.readiness) } : {}),
        Configs: input.files.map((f) => ({ File: { Name: f.path, UID: '0', GID: '0', Mode: 0o444 }, ConfigID: f.id, ConfigName: f.name })),
      },
      Resources: {
        Limits: { NanoCPUs: plan.cpuMilli * 1_000_000, MemoryBytes: plan.memoryMiB * 1024 * 1024 },
        Reservations: { NanoCPUs: plan.cpuMilli * 1_000_000, MemoryBytes: plan.memoryMiB * 1024 * 1024 },
      },
      RestartPolicy: { Condition: 'any', Delay: SECOND },
      Placement: {
        Constraints: holdsVolume ? [`node.labels.${pinLabel(input.ids.serviceId)}==true`] : [],
        Preferences: [{ Spread: { SpreadDescriptor: 'node.id' } }],
      },
      Networks: [{ Target: input.network, Aliases: [...new Set([dnsLabel(input.slug, 63), ...plan.aliases])] }],
      ForceUpdate: input.forceUpdate ?? 0,
    },
    Mode: { Replicated: { Replicas: input.replicas } },
    UpdateConfig: update,
    RollbackConfig: { ...update, FailureAction: 'pause' },
    EndpointSpec: { Mode: 'dnsrr', Ports: ports },
  };
}

/** a job run as Swarm's replicated-job: one completion, restarted on failure up to max_nb_restart */
export function jobSpec(input: Omit<SwarmSpecInput, 'routes' | 'readiness' | 'replicas' | 'pinned' | 'files'> & { command: string[] | null; entrypoint: string | null; runId: string; maxRestarts: number }): Record<string, unknown> {
  const base = serviceSpec({ ...input, routes: [], readiness: null, replicas: 1, pinned: false, files: [] });
  const template = base.TaskTemplate as { ContainerSpec: Record<string, unknown> } & Record<string, unknown>;
  const labels = { ...ownerLabels(input.ids), 'berth.role': 'job-run', 'berth.run_id': input.runId };
  const container: Record<string, unknown> = { ...template.ContainerSpec, Labels: labels };
  delete container.Healthcheck;
  delete container.Command;
  delete container.Args;
  if (input.entrypoint) container.Command = [input.entrypoint];
  if (input.command && input.command.length > 0) container.Args = input.command;
  return {
    Name: input.name,
    Labels: labels,
    TaskTemplate: { ...template, ContainerSpec: container, RestartPolicy: { Condition: 'on-failure', MaxAttempts: input.maxRestarts, Delay: SECOND } },
    Mode: { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } },
    EndpointSpec: { Mode: 'dnsrr' },
  };
}
