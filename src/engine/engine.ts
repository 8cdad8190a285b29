// The deployment engine: one driver interface (build, apply, stop, restart, uninstall, read
// status) that the deployment runner calls step by step, and the choice of driver by config.
// Drivers never touch the database: they report log lines through a LogSink and throw
// EngineFailure when a step fails (the runner records the outcome).
import type { RuntimePlan } from './plan.ts';
import type { Readable } from 'node:stream';
import type { AgentRunOutcome, AgentRunSpec } from './agent/spec.ts';

export type { AgentRunSpec } from './agent/spec.ts';

type LogKind = 'BUILD' | 'DEPLOY' | 'RUNTIME';

export interface LogSink {
  (kind: LogKind, message: string): Promise<void>;
}

/** what a driver needs to know about the service it acts on */
export interface DriverService {
  id: string;
  type: string;
  name: string;
  slug: string;
  environmentId: string;
  spec: Record<string, unknown>;
  /** complete (every key of the kind, defaults included; {} for types without any); engines read them through settings.ts */
  advancedSettings: Record<string, unknown>;
  gitCommitId: string | null;
  imageTag: string | null;
  /** value of the service's BERTH_SIMULATE_FAILURE variable (simulated engine: build or deploy) */
  simulateFailure?: string | null;
  projectId?: string;
  organizationId?: string;
  /** the deployment acting on the service: replicas it creates carry it as their generation */
  deploymentId?: string;
  /** what to run, resolved from the configuration (real engines need it; the simulated one ignores it) */
  plan?: RuntimePlan;
}

/** a service whose ingress settings changed: its complete advanced settings and its variables (only the basic-auth one is read) */
export interface IngressSettingsTarget { id: string; advancedSettings: Record<string, unknown>; env: Record<string, string> }

export interface JobRunOutcome {
  exitCode: number; attempts: number;
  /** why it failed (exit code, killed after the maximum duration, replaced…), or why it was skipped */
  reason: string | null;
  /** the run did not start (cronjob.concurrency_policy Forbid: another run was still running); exitCode and attempts are 0 */
  skipped?: boolean;
}

/** what a build produced: the commit it built and the image it tagged */
export interface BuildResult { gitCommitId: string | null; imageTag: string }

export interface RuntimeStatus {
  state: 'RUNNING' | 'STOPPED' | 'ERROR' | 'UNKNOWN';
  /** why, when it is not RUNNING (exit codes, restarts) */
  detail?: string;
}

/** a step failed for a reason the user should see (BUILD_ERROR / DEPLOYMENT_ERROR) */
export class EngineFailure extends Error {
  readonly phase: 'build' | 'deploy' | 'stop' | 'restart' | 'uninstall' | 'backup' | 'restore';
  constructor(phase: EngineFailure['phase'], message: string) {
    super(message);
    this.phase = phase;
  }
}

/** one host of a multi-host engine (a Swarm node) as the cluster status reports it */
export interface EngineNode {
  id: string; hostname: string; address: string;
  /** manager | worker */
  role: string;
  leader: boolean;
  /** ready | down | unknown | disconnected */
  state: string;
  /** active | pause | drain */
  availability: string;
  running_tasks: number;
}

/** what the domains module asks of the ingress: aliases of a service's host, and certificates (decision 0349) */
export interface DomainIngress {
  /** the TLS listener, e.g. https://127.0.0.1:8443 (null: none) */
  readonly httpsAddress: string | null;
  /** route `domain` as the service host `target`; `https`: its certificate is live and HTTP redirects */
  setDomain(domain: string, target: string, https: boolean): Promise<void>;
  removeDomain(domain: string): Promise<void>;
  /** HTTP to `host` (or every host one label under a `*.` name) redirects to HTTPS: its certificate is live */
  setHttps(host: string, on: boolean): Promise<void>;
  /** install or replace the certificate served for `host` (no reload: open connections keep theirs) */
  setCertificate(host: string, chainPem: string, keyPem: string): Promise<void>;
  removeCertificate(host: string): Promise<void>;
}

/** what a restore drill found in a dump once restored */
export interface DrillReport {
  /** tables → row counts (SQL), collections → documents (MongoDB), or { keys: n } (Redis) */
  counts: Record<string, number>;
}

/** native dumps of a running CONTAINER-mode database, taken and restored inside its own container (decision 0720) */
export interface DatabaseBackups {
  /**
   * a consistent native dump streamed out of the database's own container, never buffered whole:
   * pg_dump -Fc, mysqldump --single-transaction (every user database, routines), mongodump
   * --archive, Redis: BGSAVE then the RDB file. Rejects when the database has no running container;
   * the stream errors (EngineFailure phase 'backup') when the tool exits non-zero or the container goes.
   */
  dump(service: DriverService, signal: AbortSignal): Promise<Readable>;
  /** replaces the running database's contents with the dump's (pg_restore --clean --if-exists, mysql < dump, mongorestore --drop --archive, Redis: the RDB loaded); EngineFailure phase 'restore' */
  restore(service: DriverService, dump: Readable, signal: AbortSignal): Promise<void>;
  /** restores the dump into a throwaway container of the same image (limited memory/CPU, no network, removed afterwards whatever happens) and reports what is in it */
  drill(service: DriverService, dump: Readable, signal: AbortSignal): Promise<DrillReport>;
}

export interface EngineDriver {
  readonly name: 'simulated' | 'docker' | 'swarm';
  /** whether deployments are real (false: the simulated engine, which labels everything it writes) */
  readonly real: boolean;
  /** why the public URLs of services do not answer on this engine (no ingress proxy, nothing deployed); null when they do */
  readonly publicUrlsUnavailable: string | null;
  /** whether the service is built from source (a BUILDING step) */
  needsBuild(service: DriverService): boolean;
  build(service: DriverService, log: LogSink, signal: AbortSignal): Promise<BuildResult | void>;
  /** create or update the service's objects and wait until it runs */
  apply(service: DriverService, log: LogSink, signal: AbortSignal): Promise<void>;
  stop(service: DriverService, log: LogSink, signal: AbortSignal): Promise<void>;
  restart(service: DriverService, log: LogSink, signal: AbortSignal): Promise<void>;
  /** remove the running objects; the configuration stays */
  uninstall(service: DriverService, log: LogSink, signal: AbortSignal, options?: { purge?: boolean }): Promise<void>;
  status(service: DriverService): Promise<RuntimeStatus>;
  /** where a deployed PUBLIC database's port is published when not on INGRESS_HOST (a Swarm node's address); absent: INGRESS_HOST */
  publishedHost?(service: DriverService): Promise<string | null>;
  /** runs a job's container to completion once (a cron occurrence or a lifecycle command) */
  runJob?(service: DriverService, runId: string, command: 'cron' | 'start' | 'stop' | 'delete', line: (text: string) => Promise<void>, signal: AbortSignal): Promise<JobRunOutcome>;
  /**
   * applies a service's ingress settings (network.ingress.*) to its running routes at once, without
   * a redeploy (decision 0337); notes on what could not be applied as given (never a secret)
   */
  applyIngressSettings(service: IngressSettingsTarget): Promise<string[]>;
  /** runs an agentic workflow's agent to its end (the run container, its proxy, its transcript); cancel through `signal` */
  runAgent(run: AgentRunSpec, log: LogSink, signal: AbortSignal): Promise<AgentRunOutcome>;
  /** the hosts the engine runs services on, with their state and running tasks (the swarm engine's nodes; absent: one host) */
  nodes?(): Promise<EngineNode[]>;
  /** custom domains and certificates on the ingress proxy (absent or null: no proxy runs: the simulated engine, or no haproxy) */
  domainIngress?: DomainIngress | null;
  /** native dumps of a running CONTAINER-mode database (absent: this engine cannot) */
  databaseBackups?: DatabaseBackups;
  /** releases connections and watchers (process shutdown) */
  close?(): Promise<void>;
}

