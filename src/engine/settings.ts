// The advanced settings a real engine applies to what it runs (decision 0336), read once from a
// service's settings into typed values: update strategy, termination grace, lifecycle commands,
// build limits, a read-only root filesystem, and the job/cron-job keys. The deployment worker and
// the job runner hand the driver the service's complete settings (defaults included); a key that
// is missing (a service type without advanced settings, such as databases) or of the wrong type
// reads as the catalogue's default, repeated here because the engine does not import the
// modules (settings.test.ts checks that both agree). Ingress keys are read by the ingress.

export type UpdateStrategy = 'RollingUpdate' | 'Recreate';
type ConcurrencyPolicy = 'Allow' | 'Forbid' | 'Replace';

export interface ServiceSettings {
  deployment: {
    strategy: UpdateStrategy;
    maxSurgePercent: number;
    maxUnavailablePercent: number;
    /** docker stop -t: how long a container has between its stop signal and SIGKILL */
    graceSeconds: number;
    /** exec'd in each new container once it started; empty: none */
    postStart: string[];
    /** exec'd in a container before it is stopped, inside the grace period; empty: none */
    preStop: string[];
  };
  build: {
    /** the clone and the build together; 0: no limit */
    timeoutSeconds: number;
    /** CPU quota of each build step's container; 0: no limit */
    cpuMilli: number;
    /** memory of each build step's container; 0: berth's own cap (2 GiB) */
    ramGiB: number;
    noCache: boolean;
    skipSubmodules: boolean;
  };
  security: { readOnlyRootFilesystem: boolean };
  job: {
    /** a kept run container is removed this long after it finished; null: kept within the history limits */
    deleteTtlSeconds: number | null;
    concurrencyPolicy: ConcurrencyPolicy;
    failedHistoryLimit: number;
    successHistoryLimit: number;
  };
}

/** the catalogue's default pre-stop command (Kubernetes: wait for the proxies to stop routing here) */
export const DEFAULT_PRE_STOP: readonly string[] = ['/bin/sh', '-c', 'sleep 15'];

const int = (value: unknown, fallback: number): number => (Number.isInteger(value) && (value as number) >= 0 ? value as number : fallback);
const bool = (value: unknown, fallback: boolean): boolean => (typeof value === 'boolean' ? value : fallback);
const strings = (value: unknown, fallback: readonly string[]): string[] =>
  [...(Array.isArray(value) && value.every((v) => typeof v === 'string') ? value as string[] : fallback)];
const oneOf = <T extends string>(value: unknown, allowed: readonly T[], fallback: T): T =>
  (allowed as readonly unknown[]).includes(value) ? value as T : fallback;

/** the engine's view of a service's advanced settings (any missing or malformed key: its default) */
export function serviceSettings(advanced: Readonly<Record<string, unknown>> | null | undefined): ServiceSettings {
  const a = advanced ?? {};
  const ttl = a['job.delete_ttl_seconds_after_finished'];
  return {
    deployment: {
      strategy: oneOf(a['deployment.update_strategy.type'], ['RollingUpdate', 'Recreate'] as const, 'RollingUpdate'),
      maxSurgePercent: Math.min(100, int(a['deployment.update_strategy.rolling_update.max_surge_percent'], 25)),
      maxUnavailablePercent: Math.min(100, int(a['deployment.update_strategy.rolling_update.max_unavailable_percent'], 25)),
      graceSeconds: int(a['deployment.termination_grace_period_seconds'], 60),
      postStart: strings(a['deployment.lifecycle.post_start_exec_command'], []),
      preStop: strings(a['deployment.lifecycle.pre_stop_exec_command'], DEFAULT_PRE_STOP),
    },
    build: {
      timeoutSeconds: int(a['build.timeout_max_sec'], 1800),
      cpuMilli: int(a['build.cpu_max_in_milli'], 4000),
      ramGiB: int(a['build.ram_max_in_gib'], 8),
      noCache: bool(a['build.disable_buildkit_cache'], false),
      skipSubmodules: bool(a['build.skip_git_submodules'], false),
    },
    security: { readOnlyRootFilesystem: bool(a['security.read_only_root_filesystem'], false) },
    job: {
      deleteTtlSeconds: Number.isInteger(ttl) && (ttl as number) >= 0 ? ttl as number : null,
      concurrencyPolicy: oneOf(a['cronjob.concurrency_policy'], ['Allow', 'Forbid', 'Replace'] as const, 'Forbid'),
      failedHistoryLimit: int(a['cronjob.failed_jobs_history_limit'], 1),
      successHistoryLimit: int(a['cronjob.success_jobs_history_limit'], 1),
    },
  };
}

/**
 * The pre-stop command berth runs, or null. The catalogue's default (`sleep 15`) is not run: on
 * Kubernetes it gives the proxies time to stop routing to a terminating pod; berth takes a
 * replica out of its ingress before terminating it and waits for its open connections (the
 * drain, decision 0334), which is what the sleep stands for (decision 0336).
 */
export function preStopCommand(settings: ServiceSettings): string[] | null {
  const command = settings.deployment.preStop;
  if (command.length === 0) return null;
  if (command.length === DEFAULT_PRE_STOP.length && command.every((part, i) => part === DEFAULT_PRE_STOP[i])) return null;
  return command;
}
