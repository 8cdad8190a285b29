// What a real engine runs for a service, resolved from its configuration before the driver is
// called: the image source (registry image or git + Dockerfile), the container environment
// (effective variables with secrets opened), limits, replicas, ports, probes, volumes, and the
// extras of databases and jobs. Pure data: the deployments module fills it from the database,
// drivers read it and never touch the database themselves.

export interface RegistryAuth { username: string; password: string; serveraddress: string }

export interface GitPlan {
  url: string;
  branch: string | null;
  commit: string | null;
  rootPath: string | null;
  /** the repository's git token, unsealed (reaches git through its environment only) */
  token?: string | null;
  /** the basic-auth user name sent with the token (its provider's; a user name in the URL wins) */
  username?: string | null;
}

export type SourcePlan =
  | { kind: 'image'; ref: string; auth: RegistryAuth | null }
  | {
    kind: 'git'; git: GitPlan | null; dockerfilePath: string | null; dockerfileRaw: string | null; target: string | null;
    /** the credentials of the registry built images are pushed to and pulled from (SWARM_REGISTRY), when the organization has it as a container registry */
    pushAuth?: RegistryAuth | null;
  };

export interface ProbePlan {
  kind: 'http' | 'tcp' | 'exec';
  port: number | null;
  path: string;
  command: string[];
  initialDelaySeconds: number;
  periodSeconds: number;
  timeoutSeconds: number;
  successThreshold: number;
  failureThreshold: number;
}

export interface PortPlan {
  internalPort: number;
  publiclyAccessible: boolean;
  isDefault: boolean;
  name: string | null;
}

interface VolumePlan {
  /** stable per service and storage entry: the data survives redeploys and stops */
  key: string;
  mountPoint: string;
}

export interface DatabasePlan {
  type: 'POSTGRESQL' | 'MYSQL' | 'MONGODB' | 'REDIS';
  version: string;
  mode: 'CONTAINER' | 'MANAGED';
  port: number;
  login: string;
  password: string;
  /** the host name other services use (the master credentials' host) */
  host: string;
  /** PUBLIC: also reachable from outside, on the host port berth reserved for it (decision 0333) */
  publicAccess: boolean;
  /** that reserved port (published on INGRESS_HOST); null for PRIVATE databases */
  publicPort: number | null;
}

export interface JobPlan {
  jobType: 'CRON' | 'LIFECYCLE';
  maxDurationSeconds: number;
  maxRestarts: number;
  cron: { schedule: string; timezone: string; entrypoint: string | null; args: string[] } | null;
  onStart: { entrypoint: string | null; args: string[] } | null;
  onStop: { entrypoint: string | null; args: string[] } | null;
  onDelete: { entrypoint: string | null; args: string[] } | null;
}

export interface RuntimePlan {
  source: SourcePlan | null;
  env: Record<string, string>;
  /** variables with a mount_path become files in the container */
  files: Array<{ path: string; content: string }>;
  cpuMilli: number;
  memoryMiB: number;
  replicas: number;
  /** autoscaling's upper bound (max_running_instances; decision 0338): above `replicas`, a deployment keeps the count running now within both; absent: `replicas` */
  maxReplicas?: number;
  ports: PortPlan[];
  readiness: ProbePlan | null;
  liveness: ProbePlan | null;
  entrypoint: string | null;
  args: string[];
  volumes: VolumePlan[];
  /** extra DNS names on the environment's network (besides the slug) */
  aliases: string[];
  database: DatabasePlan | null;
  job: JobPlan | null;
}
