// The advanced-settings catalogue: one entry per key (type, enum, bounds, nullability, default,
// meaning, service kinds). It is the single source of truth for defaults, TypeBox schemas and rules.
//
// Sources: the seed's "Application advanced settings" table (keys, types, enums incl. the
// misspelled `Requirred`, gateway API minima) and qovery-facts.md §4 (defaults, container and job
// key sets). Choices where the sources are silent or disagree:
// - denylist_source_range, basic_auth_env_var, service_account_name: DOCS says null, the engine "".
//   Default is the engine's "" (what is actually applied); null is still accepted so requests
//   shaped after the DOCS tables validate, and it is echoed back as sent.
// - pre_stop_exec_command: DOCS default ["/bin/sh","-c","sleep 15"] (the seed's meaning says a
//   15-second sleep is set by default); the engine struct default [] is not used.
// - post_start_exec_command: [] (engine; DOCS prints "").
// - extra_headers: "{}" (the seed: a JSON object serialized into a string; no source gives one).
// - cronjob.concurrency_policy: "Forbid" (engine; DOCS prints "Forbidden"), enum of the Kubernetes
//   CronJob values Allow, Forbid, Replace.
// - Bounds: every integer has minimum 0 except gateway retry per_try_timeout_seconds (minimum 1,
//   seed); every *_percent key also has maximum 100. No other maxima (the seed shows none).
// - proxy_buffering / proxy_request_buffering stay strings (seed type); rules.ts restricts them to on/off.

import type { ServiceKind, SettingSpec, ValueOfSpec } from './types.ts';

const ALL = ['application', 'container', 'job'] as const;
const APP_CONTAINER = ['application', 'container'] as const;
const APP_JOB = ['application', 'job'] as const;
const APP = ['application'] as const;
const CONTAINER = ['container'] as const;
const JOB = ['job'] as const;

const DEFAULT_CORS_HEADERS =
  'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization';

const ENTRIES = {
  'deployment.custom_domain_check_enabled': { type: 'boolean', default: true, kinds: APP_CONTAINER,
    meaning: 'Disables or enables the custom domain check at deployment.' },
  'deployment.termination_grace_period_seconds': { type: 'integer', minimum: 0, default: 60, kinds: ALL,
    meaning: 'Seconds allowed for a graceful stop.' },
  'deployment.affinity.node.required': { type: 'string-map', default: {}, kinds: ALL,
    meaning: 'Pod placement on nodes with specific labels (label name to label value).' },
  'deployment.antiaffinity.pod': { type: 'string', enum: ['Preferred', 'Requirred'], default: 'Preferred', kinds: APP_CONTAINER,
    meaning: 'Preferred: pods of a service may, but need not, be kept off a single node; Requirred: pods must not share a node.' },
  'deployment.topology_spread.zone': { type: 'string', enum: ['Disabled', 'ScheduleAnyway', 'DoNotSchedule'], default: 'Disabled',
    kinds: APP_CONTAINER,
    meaning: 'Disabled: no constraint; ScheduleAnyway: best-effort spread across zones; DoNotSchedule: hard even spread, maxSkew 1.' },
  'deployment.lifecycle.post_start_exec_command': { type: 'string-array', default: [], kinds: APP,
    meaning: 'Command run after the application starts; a shell command or script.' },
  'deployment.lifecycle.pre_stop_exec_command': { type: 'string-array', default: ['/bin/sh', '-c', 'sleep 15'], kinds: APP,
    meaning: 'Command run before the application stops; the default sleeps 15 seconds in sh so the ingress proxy can update its configuration.' },
  'deployment.update_strategy.type': { type: 'string', enum: ['RollingUpdate', 'Recreate'], default: 'RollingUpdate', kinds: APP_CONTAINER,
    meaning: 'RollingUpdate: gradual rollout with automatic rollback on failed start; Recreate: stop all old versions, then create new ones.' },
  'deployment.update_strategy.rolling_update.max_unavailable_percent': { type: 'integer', minimum: 0, maximum: 100, default: 25,
    kinds: APP_CONTAINER, meaning: 'Maximum percentage of pods unavailable during an update.' },
  'deployment.update_strategy.rolling_update.max_surge_percent': { type: 'integer', minimum: 0, maximum: 100, default: 25,
    kinds: APP_CONTAINER, meaning: 'Maximum percentage of pods created above the desired number during an update.' },
  'build.timeout_max_sec': { type: 'integer', minimum: 0, default: 1800, kinds: APP_JOB,
    meaning: 'Maximum duration of a build, in seconds.' },
  'build.cpu_max_in_milli': { type: 'integer', minimum: 0, default: 4000, kinds: APP_JOB,
    meaning: 'Maximum build CPU, in millicores.' },
  'build.ram_max_in_gib': { type: 'integer', minimum: 0, default: 8, kinds: APP_JOB,
    meaning: 'Maximum build memory, in GiB.' },
  'build.disable_buildkit_cache': { type: 'boolean', default: false, kinds: APP_JOB,
    meaning: 'Disables the BuildKit registry cache during the build.' },
  'build.skip_git_submodules': { type: 'boolean', default: false, kinds: APP_JOB,
    meaning: 'Skips the submodule update when cloning.' },
  'build.ephemeral_storage_in_gib': { type: 'integer', minimum: 0, nullable: true, default: null, kinds: APP,
    meaning: 'Build ephemeral storage, in GiB; null uses the platform default.' },
  'network.ingress.proxy_body_size_mb': { type: 'integer', minimum: 0, default: 100, kinds: APP_CONTAINER,
    meaning: 'Maximum size of a client request body accepted by the ingress proxy, in MB.' },
  'network.ingress.force_ssl_redirect': { type: 'boolean', default: true, kinds: APP_CONTAINER,
    meaning: 'Enforces the redirect to HTTPS when SSL is offloaded outside the cluster, even without a TLS certificate.' },
  'network.ingress.enable_cors': { type: 'boolean', default: false, kinds: APP_CONTAINER,
    meaning: 'Enables CORS headers on responses of the ingress proxy.' },
  'network.ingress.cors_allow_origin': { type: 'string', default: '*', kinds: APP_CONTAINER,
    meaning: 'Origins allowed by CORS (Access-Control-Allow-Origin).' },
  'network.ingress.cors_allow_methods': { type: 'string', default: 'GET, PUT, POST, DELETE, PATCH, OPTIONS', kinds: APP_CONTAINER,
    meaning: 'Comma-separated methods allowed by CORS (Access-Control-Allow-Methods).' },
  'network.ingress.cors_allow_headers': { type: 'string', default: DEFAULT_CORS_HEADERS, kinds: APP_CONTAINER,
    meaning: 'Comma-separated headers allowed by CORS (Access-Control-Allow-Headers).' },
  'network.ingress.proxy_buffer_size_kb': { type: 'integer', minimum: 0, default: 4, kinds: APP_CONTAINER,
    meaning: 'Buffer size for reading the upstream response header, in KB.' },
  'network.ingress.keepalive_time_seconds': { type: 'integer', minimum: 0, default: 3600, kinds: APP_CONTAINER,
    meaning: 'Maximum time requests can be processed through one keepalive connection.' },
  'network.ingress.keepalive_timeout_seconds': { type: 'integer', minimum: 0, default: 60, kinds: APP_CONTAINER,
    meaning: 'Idle keepalive time to an upstream server.' },
  'network.ingress.send_timeout_seconds': { type: 'integer', minimum: 0, default: 60, kinds: APP_CONTAINER,
    meaning: 'Timeout for transmitting a response to the client.' },
  'network.ingress.proxy_connect_timeout_seconds': { type: 'integer', minimum: 0, default: 60, kinds: APP_CONTAINER,
    meaning: 'Timeout for connecting to a proxied server.' },
  'network.ingress.proxy_send_timeout_seconds': { type: 'integer', minimum: 0, default: 60, kinds: APP_CONTAINER,
    meaning: 'Timeout for transmitting a request to the proxied server.' },
  'network.ingress.proxy_read_timeout_seconds': { type: 'integer', minimum: 0, default: 60, kinds: APP_CONTAINER,
    meaning: 'Timeout for reading a response from the proxied server.' },
  'network.ingress.proxy_buffering': { type: 'string', default: 'on', kinds: APP_CONTAINER,
    meaning: 'Enables or disables proxy buffering: "on" or "off".' },
  'network.ingress.proxy_request_buffering': { type: 'string', default: 'on', kinds: CONTAINER,
    meaning: 'Enables or disables buffering of the client request body: "on" or "off".' },
  'network.ingress.whitelist_source_range': { type: 'string', default: '0.0.0.0/0', kinds: APP_CONTAINER,
    meaning: 'Comma-separated CIDRs allowed through the ingress proxy; 0.0.0.0/0 allows all.' },
  'network.ingress.denylist_source_range': { type: 'string', nullable: true, default: '', kinds: APP_CONTAINER,
    meaning: 'Comma-separated CIDRs denied by the ingress proxy; empty or null denies none.' },
  'network.ingress.basic_auth_env_var': { type: 'string', nullable: true, default: '', kinds: APP_CONTAINER,
    meaning: 'Name of an environment variable holding basic-auth credentials in login:crypted_password form; empty or null disables basic auth.' },
  'network.ingress.enable_sticky_session': { type: 'boolean', default: false, kinds: APP_CONTAINER,
    meaning: 'Binds a user session to one target.' },
  'network.ingress.grpc_send_timeout_seconds': { type: 'integer', minimum: 0, default: 60, kinds: APP_CONTAINER,
    meaning: 'Timeout for transmitting a request to the gRPC server.' },
  'network.ingress.grpc_read_timeout_seconds': { type: 'integer', minimum: 0, default: 60, kinds: APP_CONTAINER,
    meaning: 'Timeout for reading a response from the gRPC server.' },
  'network.ingress.extra_headers': { type: 'string', default: '{}', kinds: APP_CONTAINER,
    meaning: 'Response headers, given as a JSON object (header name to string value) serialized into a string.' },
  'network.gateway_api.http_request_timeout_seconds': { type: 'integer', minimum: 0, nullable: true, default: null, kinds: APP_CONTAINER,
    meaning: 'Timeout for requests through the Gateway API route; null uses the proxy default.' },
  'network.gateway_api.http_connection_idle_timeout_seconds': { type: 'integer', minimum: 0, nullable: true, default: null,
    kinds: APP_CONTAINER, meaning: 'Idle timeout of HTTP connections; null uses the proxy default.' },
  'network.gateway_api.retry.num_retries': { type: 'integer', minimum: 0, nullable: true, default: null, kinds: APP_CONTAINER,
    meaning: 'Retry attempts; null uses the cluster default.' },
  'network.gateway_api.retry.retry_on': { type: 'string', nullable: true, default: null, kinds: APP_CONTAINER,
    meaning: 'Comma-separated retry triggers (connect-failure, reset, refused-stream, retriable-status-codes, 5xx, gateway-error, retriable-4xx, unavailable, cancelled, deadline-exceeded, resource-exhausted, internal, retriable-headers, envoy-ratelimited, http3-post-connect-failure).' },
  'network.gateway_api.retry.http_status_codes': { type: 'string', nullable: true, default: null, kinds: APP_CONTAINER,
    meaning: 'Comma-separated status codes 100..599 retried when retry_on includes retriable-status-codes.' },
  'network.gateway_api.retry.per_try_timeout_seconds': { type: 'integer', minimum: 1, nullable: true, default: null, kinds: APP_CONTAINER,
    meaning: 'Timeout per retry attempt; null uses the proxy default.' },
  'hpa.cpu.average_utilization_percent': { type: 'integer', minimum: 0, maximum: 100, default: 60, kinds: APP_CONTAINER,
    meaning: 'CPU percentage at which pods scale up.' },
  'hpa.memory.average_utilization_percent': { type: 'integer', minimum: 0, maximum: 100, nullable: true, default: null,
    kinds: APP_CONTAINER, meaning: 'Memory percentage at which pods scale up; null disables memory-based scaling.' },
  'job.delete_ttl_seconds_after_finished': { type: 'integer', minimum: 0, nullable: true, default: null, kinds: JOB,
    meaning: 'Seconds after which a finished job run is deleted; null keeps it.' },
  'cronjob.concurrency_policy': { type: 'string', enum: ['Allow', 'Forbid', 'Replace'], default: 'Forbid', kinds: JOB,
    meaning: 'Allow: runs may overlap; Forbid: skip a run while the previous one is still running; Replace: the new run replaces the running one.' },
  'cronjob.failed_jobs_history_limit': { type: 'integer', minimum: 0, default: 1, kinds: JOB,
    meaning: 'Number of failed runs kept.' },
  'cronjob.success_jobs_history_limit': { type: 'integer', minimum: 0, default: 1, kinds: JOB,
    meaning: 'Number of successful runs kept.' },
  'security.service_account_name': { type: 'string', nullable: true, default: '', kinds: ALL,
    meaning: 'Name of an existing Kubernetes service account; empty or null uses the namespace default.' },
  'security.automount_service_account_token': { type: 'boolean', default: false, kinds: ALL,
    meaning: 'Mounts the service account token in pods.' },
  'security.read_only_root_filesystem': { type: 'boolean', default: false, kinds: ALL,
    meaning: 'Mounts the container root filesystem read-only.' },
} as const satisfies Record<string, SettingSpec>;

type AdvancedSettingsCatalogue = typeof ENTRIES;
export type AnyAdvancedSettingKey = keyof AdvancedSettingsCatalogue;

/** Keys carried by one service kind. */
export type AdvancedSettingKey<K extends ServiceKind> = {
  [P in AnyAdvancedSettingKey]: K extends AdvancedSettingsCatalogue[P]['kinds'][number] ? P : never;
}[AnyAdvancedSettingKey];

/** The full advanced-settings object of one service kind (every key present). */
export type AdvancedSettings<K extends ServiceKind> = {
  [P in AdvancedSettingKey<K>]: ValueOfSpec<AdvancedSettingsCatalogue[P]>;
};

/** A change to the advanced settings of one service kind: any subset of the keys. */
export type AdvancedSettingsPatch<K extends ServiceKind> = Partial<AdvancedSettings<K>>;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Every known key with its descriptor, in presentation order (the seed's table order). */
export const ADVANCED_SETTINGS_CATALOGUE: Readonly<Record<AnyAdvancedSettingKey, SettingSpec>> = deepFreeze(ENTRIES);

const KEYS_BY_KIND: Readonly<Record<ServiceKind, readonly string[]>> = deepFreeze({
  application: keysOf('application'),
  container: keysOf('container'),
  job: keysOf('job'),
});

function keysOf(kind: ServiceKind): string[] {
  return Object.entries(ENTRIES)
    .filter(([, spec]) => (spec.kinds as readonly ServiceKind[]).includes(kind))
    .map(([key]) => key);
}

/** The keys of one service kind, in presentation order. */
export function advancedSettingKeys<K extends ServiceKind>(kind: K): readonly AdvancedSettingKey<K>[] {
  return KEYS_BY_KIND[kind] as readonly AdvancedSettingKey<K>[];
}

export function isAdvancedSettingKey<K extends ServiceKind>(kind: K, key: string): key is AdvancedSettingKey<K> {
  return Object.hasOwn(ENTRIES, key) && (ADVANCED_SETTINGS_CATALOGUE[key as AnyAdvancedSettingKey].kinds as readonly string[]).includes(kind);
}

/** Descriptor of a key, or undefined when the key is unknown to every kind. */
export function advancedSettingSpec(key: string): SettingSpec | undefined {
  return Object.hasOwn(ENTRIES, key) ? ADVANCED_SETTINGS_CATALOGUE[key as AnyAdvancedSettingKey] : undefined;
}
