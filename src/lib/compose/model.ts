// The shapes of a compose translation (translate.ts): berth's services in the members of its own
// service requests (applications, containers, databases), the links from a service to the
// databases it depends on, and the keys not translated. Types only, and the error of a file
// that is not a compose file at all.
export type DatabaseType = 'POSTGRESQL' | 'MYSQL' | 'MONGODB' | 'REDIS';

export interface Untranslated {
  /** the key, as a path from the file's root: `services.web.restart` */
  key: string;
  why: string;
}

export interface PortOut { internal_port: number; publicly_accessible: boolean; protocol: 'HTTP' | 'TCP' | 'UDP'; name?: string }
export interface ProbeOut {
  type: { http?: { path: string; port: number; scheme: 'HTTP' }; tcp?: { port: number }; exec?: { command: string[] } };
  initial_delay_seconds?: number; period_seconds?: number; timeout_seconds?: number; failure_threshold?: number;
}
interface VariableOut { key: string; value: string }

/** credentials of a database a service depends on, as variables of that service */
export interface DatabaseLink {
  /** the database service's name */
  database: string;
  type: DatabaseType;
  /** the prefix of the variables: `<DATABASE NAME>_` upper case (DB_HOST, DB_PORT, DB_USER, DB_PASSWORD, DB_URL) */
  prefix: string;
}

export interface Runtime {
  name: string;
  ports: PortOut[];
  variables: VariableOut[];
  entrypoint: string | null;
  arguments: string[] | null;
  readiness_probe: ProbeOut | null;
  cpu: number | null;
  memory: number | null;
  /** deploy.replicas: min = max */
  instances: number | null;
  storage: Array<{ mount_point: string; size: number; volume: string }>;
  databases: DatabaseLink[];
}

export interface ApplicationOut extends Runtime {
  kind: 'application';
  root_path: string;
  dockerfile_path: string | null;
  docker_target_build_stage: string | null;
}

export interface ContainerOut extends Runtime {
  kind: 'container';
  /** the registry host of the image: docker.io for Docker Hub names */
  registry: string;
  image_name: string;
  tag: string;
}

export interface DatabaseOut {
  kind: 'database';
  name: string;
  type: DatabaseType;
  version: string;
  cpu: number | null;
  memory: number | null;
  /** GB, when the compose file names a volume for its data */
  storage: number | null;
}

export type ServiceOut = ApplicationOut | ContainerOut | DatabaseOut;

export interface Translation {
  /** the compose `name`, when it has one */
  name: string | null;
  services: ServiceOut[];
  untranslated: Untranslated[];
}

export interface TranslateOptions {
  /** reads a file relative to the compose file's folder (env_file, .env); null when it does not exist */
  readFile(path: string): string | null;
  /** the compose file's folder relative to the root of its git repository ('' at the root): builds' root_path start there */
  repositoryPath?: string;
  /** GB given to each named volume (compose volumes have no size; berth storage has one), default 10 */
  volumeSizeGb?: number;
}

export class ComposeError extends Error {}
