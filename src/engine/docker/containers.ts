// The Docker create options of a replica or a job run, pure: image, environment, command,
// limits (always set), restart policy, ports published on loopback (a PUBLIC database's on
// INGRESS_HOST, at its reserved port), named volumes only
// (never a bind mount, so never the Docker socket), the environment's network with the service's
// DNS aliases, rotated json logs; the stop timeout is the service's termination grace period, and
// security.read_only_root_filesystem makes the root filesystem read-only with a writable tmpfs
// at /tmp (decision 0336).
import type { ContainerCreateOptions } from 'dockerode';
import type { RuntimePlan } from '../plan.ts';
import { networkName, volumeName } from './naming.ts';

export interface ReplicaInput {
  name: string;
  image: string;
  serviceId: string;
  environmentId: string;
  labels: Record<string, string>;
  plan: RuntimePlan;
  /** internal port → loopback host port */
  hostPorts: Map<number, number>;
  /** a PUBLIC database's port: published at its reserved port on INGRESS_HOST (decision 0333) */
  publicPort?: { internalPort: number; hostIp: string; hostPort: number } | null;
  /** overrides of the plan's command (jobs: the cron or lifecycle command) */
  entrypoint?: string | null;
  args?: string[];
  /** jobs run once: no restart policy (berth retries them itself) */
  restart: 'unless-stopped' | 'no';
  /** extra environment from the image contract (databases) */
  extraEnv?: Record<string, string>;
  cmd?: string[] | null;
  /** database data directory on the service's volume */
  dataDir?: string | null;
  /** deployment.termination_grace_period_seconds: the container's stop timeout (default 10) */
  graceSeconds?: number;
  /** security.read_only_root_filesystem: a read-only root with a writable /tmp */
  readOnlyRootFilesystem?: boolean;
}

/** the tmpfs a read-only container writes to: sticky and writable by every user, like /tmp */
const WRITABLE_TMP = { '/tmp': 'rw,nosuid,nodev,exec,mode=1777' };

/** why file variables cannot reach a read-only container: Docker writes them into its root filesystem before it starts */
export function readOnlyFilesRefused(files: ReadonlyArray<{ path: string }>): string {
  return `security.read_only_root_filesystem is on, and Docker cannot write file variables (${files.map((f) => f.path).join(', ')}) into a read-only root filesystem: turn the setting off, or pass these values as environment variables`;
}

export function replicaCreateOptions(input: ReplicaInput): ContainerCreateOptions {
  const { plan } = input;
  const env = { ...plan.env, ...input.extraEnv };
  const exposed: Record<string, object> = {};
  const bindings: Record<string, Array<{ HostIp: string; HostPort: string }>> = {};
  for (const [internal, host] of input.hostPorts) {
    exposed[`${internal}/tcp`] = {};
    bindings[`${internal}/tcp`] = [{ HostIp: '127.0.0.1', HostPort: String(host) }];
  }
  if (input.publicPort) {
    const { internalPort, hostIp, hostPort } = input.publicPort;
    exposed[`${internalPort}/tcp`] = {};
    bindings[`${internalPort}/tcp`] = [{ HostIp: hostIp, HostPort: String(hostPort) }];
  }
  const mounts = plan.volumes.map((v) => ({ Type: 'volume' as const, Source: volumeName(input.serviceId, v.key), Target: v.mountPoint }));
  if (input.dataDir) mounts.push({ Type: 'volume', Source: volumeName(input.serviceId, 'data'), Target: input.dataDir });
  const entrypoint = input.entrypoint !== undefined ? input.entrypoint : plan.entrypoint;
  const args = input.args ?? plan.args;
  const network = networkName(input.environmentId);
  return {
    name: input.name,
    Image: input.image,
    Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    Labels: input.labels,
    ...(entrypoint ? { Entrypoint: [entrypoint] } : {}),
    ...(input.cmd ? { Cmd: input.cmd } : args.length > 0 ? { Cmd: args } : {}),
    ExposedPorts: exposed,
    StopTimeout: input.graceSeconds ?? 10,
    HostConfig: {
      PortBindings: bindings,
      Memory: Math.max(6, plan.memoryMiB) * 1024 * 1024,
      MemorySwap: Math.max(6, plan.memoryMiB) * 1024 * 1024,
      NanoCpus: Math.max(1, plan.cpuMilli) * 1_000_000,
      PidsLimit: 4096,
      RestartPolicy: input.restart === 'no' ? { Name: 'no' } : { Name: 'unless-stopped' },
      Mounts: mounts,
      SecurityOpt: ['no-new-privileges'],
      NetworkMode: network,
      LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } },
      // a volume of the service's own at /tmp is writable already (Docker refuses two mounts there)
      ...(input.readOnlyRootFilesystem ? { ReadonlyRootfs: true, ...(mounts.some((m) => m.Target.replace(/\/+$/, '') === '/tmp') ? {} : { Tmpfs: { ...WRITABLE_TMP } }) } : {}),
    },
    NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: plan.aliases } } },
  };
}
