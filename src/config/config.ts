// Configuration: the environment variables of DESIGN.md, parsed and validated once into a frozen,
// typed Config. A bad value stops the process with one line naming the variable (ConfigError).
import { ConfigError } from './errors.ts';
import { httpsConfig, type HttpsConfig } from './https.ts';

export type Role = 'all' | 'api' | 'worker';
/** `auto` is resolved at start (docker when a daemon answers, else simulated) */
type EngineKind = 'auto' | 'docker' | 'swarm' | 'simulated' | 'kubernetes';
/** the database berth runs itself when DATABASE_URL is unset (decision 0703) */
export type EmbeddedDatabase = 'postgres' | 'pglite';
/** how the ingress HAProxy runs (decision 0348) */
export type IngressRuntime = 'auto' | 'host' | 'container';
/** the official image of the HAProxy release Debian bookworm ships (2.6.12), whose reading of berth's configuration is tested (decision 0348) */
const DEFAULT_INGRESS_IMAGE = 'haproxy:2.6.12';
type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string;
  readonly dataDir: string;
  /** BACKUP_DIR: where organizations with LOCAL backup storage keep their backups (default DATA_DIR/backups; issue 39) */
  readonly backupDir: string;
  readonly databaseUrl: string | undefined;
  /** without DATABASE_URL: PostgreSQL binaries run by berth in DATA_DIR/postgres, or PGlite in
   * DATA_DIR/pgdata. Unset: the one DATA_DIR already holds, else DEFAULT_EMBEDDED_DATABASE
   * (src/db/embedded-kind.ts), so an existing PGlite DATA_DIR keeps working after an upgrade */
  readonly embeddedDatabase: EmbeddedDatabase | undefined;
  readonly redisUrl: string | undefined;
  readonly bootstrapToken: string | undefined;
  readonly bootstrapOrganization: string;
  readonly oidcIssuer: string | undefined;
  readonly oidcAudience: string | undefined;
  readonly oidcJwksUrl: string | undefined;
  /** the web console's OAuth client id at the OIDC provider; unset: the console offers token sign-in only */
  readonly oidcClientId: string | undefined;
  /** base64 of 32 bytes; undefined means "generate into DATA_DIR" (embedded mode only) */
  readonly encryptionKey: string | undefined;
  readonly rateLimitPerHour: number;
  readonly webhookAllowPrivateTargets: boolean;
  /** the SMTP server EMAIL notification channels send through (smtp:// or smtps://, credentials in the URL); unset: e-mail fails with that reason */
  readonly smtpUrl: string | undefined;
  /** the From of notification e-mail */
  readonly smtpFrom: string;
  readonly engine: EngineKind;
  /** the Docker daemon the docker engine drives (unix:///path or tcp://host:port) */
  readonly dockerHost: string;
  /** ENGINE=swarm: the nodes' own Docker daemons berth can reach (image copies without a registry, volume purge) */
  readonly swarmNodeDockerHosts: string[];
  /** ENGINE=swarm: the registry built images are pushed to (host[:port]); unset: berth copies them to the nodes */
  readonly swarmRegistry: string | null;
  /** public URLs of services are http://<name>.<ingressDomain>[:<ingressPort>] */
  readonly ingressDomain: string;
  /** the port the ingress proxy listens on (loopback and every interface: INGRESS_HOST) */
  readonly ingressPort: number;
  readonly ingressHost: string;
  /** INGRESS_DRAIN_SECONDS: how long a replaced version keeps its open connections (WebSockets, streams) before it is stopped */
  readonly ingressDrainSeconds: number;
  /** INGRESS_RUNTIME: how the ingress HAProxy runs: `host` (a haproxy binary on this machine), `container` (on DOCKER_HOST, host network), `auto` (the binary when installed, else the container; decision 0348) */
  readonly ingressRuntime: IngressRuntime;
  /** INGRESS_IMAGE: the HAProxy image of the container runtime, pulled when absent */
  readonly ingressImage: string;
  /** HTTPS on the ingress, certificates from an ACME CA, DNS checks of custom domains (https.ts) */
  readonly https: HttpsConfig;
  /** host ports PUBLIC databases are published on, one each, on INGRESS_HOST (decision 0333) */
  readonly databasePublicPorts: { readonly from: number; readonly to: number };
  /** git URLs that are local paths or file:// (they read the host's disk) are refused unless true */
  readonly engineAllowLocalGit: boolean;
  /** the image agent runs are built on (Debian- or Ubuntu-based); berth adds the harness, node, git and the egress proxy */
  readonly agentBaseImage: string;
  /** where agent runs reach berth's MCP server; null: they get no berth connection (AGENT_BERTH_URL) */
  readonly agentBerthUrl: string | null;
  readonly logLevel: LogLevel;
  /** trust X-Forwarded-For from these proxies (Fastify trustProxy semantics): false, true, or a list */
  readonly trustProxy: boolean | string;
  readonly bodyLimitBytes: number;
  /** when set, GET /metrics needs `Authorization: Bearer <token>`; unset: loopback clients only */
  readonly metricsToken: string | undefined;
  /** on SIGTERM, keep serving this long (readiness red, `Connection: close`) before closing */
  readonly shutdownDrainMs: number;
  /** runtime lines (a running app's output) older than this many days are deleted; 0: no age limit (decision 0408) */
  readonly logRetentionDays: number;
  /** each service keeps at most this many runtime lines, the newest; 0: no count limit */
  readonly logRetentionLinesPerService: number;
  /** the most lines one delete statement of the pruner removes */
  readonly logPruneBatch: number;
  /** seconds between two prunes (by one worker process at a time) */
  readonly logPruneIntervalSeconds: number;
  /** seconds between two `git ls-remote` checks of the branches services with auto_deploy track (one worker process at a time); 0: no polling, webhooks only (decision 0341) */
  readonly gitPollIntervalSeconds: number;
  /** how many repositories the poller checks at once */
  readonly gitPollConcurrency: number;
  /** seconds between two samples of the autoscaled services' CPU and memory (one worker process at a time); a decision uses two intervals of samples (decision 0338) */
  readonly autoscaleIntervalSeconds: number;
  /** an autoscaled service scales down only after its recommendations were lower for this many seconds (the HPA's scale-down stabilization window) */
  readonly autoscaleDownStabilizationSeconds: number;
  /** open preview environments (pull requests) one environment may have at once; the next is refused (decision 0342) */
  readonly previewMaxPerEnvironment: number;
  /** a preview environment no pull-request event touched for this many hours is deleted (a missed close) */
  readonly previewTtlHours: number;
}

/** the default of EMBEDDED_DATABASE for a new DATA_DIR: the one the measurements of decision 0703 favour */
export const DEFAULT_EMBEDDED_DATABASE: EmbeddedDatabase = 'postgres';

export { ConfigError };

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

function optional(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = str(env, name, fallback);
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${redactUrl(raw)}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

/** `FROM-TO`, an inclusive range of TCP ports */
function portRange(env: Env, name: string, fallback: string): { from: number; to: number } {
  const raw = str(env, name, fallback);
  const m = /^(\d{1,5})-(\d{1,5})$/.exec(raw);
  const [from, to] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
  if (!(from >= 1 && to <= 65535 && from <= to)) throw new ConfigError(`${name} must be a port range FROM-TO within 1-65535, got "${raw}"`);
  return Object.freeze({ from, to });
}

/** never print credentials embedded in a URL */
/** SWARM_REGISTRY: a registry host with an optional port and path (no scheme: Docker image references carry none) */
function swarmRegistry(env: Env): string | null {
  const raw = optional(env, 'SWARM_REGISTRY');
  if (raw === undefined) return null;
  if (!/^[a-z0-9.-]+(:\d{1,5})?(\/[a-z0-9._-]+)*$/i.test(raw)) {
    throw new ConfigError(`SWARM_REGISTRY must be a registry host[:port][/path] without a scheme, got ${JSON.stringify(raw)}`);
  }
  return raw;
}

function redactUrl(raw: string): string {
  return raw.replace(/\/\/[^@/]*@/, '//***@');
}

/** where an agent run reaches berth's MCP server (decision 0197): AGENT_BERTH_URL, else the Docker
 * host by the name the egress proxy resolves to it when berth listens beyond loopback, else none
 * (runs get no berth connection). The proxy lets through that exact URL, not the host */
function agentBerthUrl(env: Env, host: string, port: number): string | null {
  const given = url(env, 'AGENT_BERTH_URL', ['http:', 'https:']);
  if (given) return given.replace(/\/+$/, '');
  return ['127.0.0.1', 'localhost', '::1'].includes(host) ? null : `http://host.docker.internal:${port}`;
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const publicUrl = (url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const encryptionKey = optional(env, 'ENCRYPTION_KEY');
  if (encryptionKey !== undefined && Buffer.from(encryptionKey, 'base64').length !== 32) {
    throw new ConfigError('ENCRYPTION_KEY must be 32 bytes encoded in base64 (e.g. `openssl rand -base64 32`)');
  }
  if (databaseUrl !== undefined && encryptionKey === undefined) {
    throw new ConfigError('ENCRYPTION_KEY is required when DATABASE_URL is set (32 bytes, base64)');
  }
  const oidcIssuer = url(env, 'OIDC_ISSUER', ['http:', 'https:']);
  const oidcJwksUrl = url(env, 'OIDC_JWKS_URL', ['http:', 'https:']);
  const oidcAudience = optional(env, 'OIDC_AUDIENCE');
  if ((oidcIssuer || oidcJwksUrl) && !oidcAudience) {
    throw new ConfigError('OIDC_AUDIENCE is required when OIDC_ISSUER or OIDC_JWKS_URL is set');
  }
  const oidcClientId = optional(env, 'OIDC_CLIENT_ID');
  if (oidcClientId && !oidcIssuer) throw new ConfigError('OIDC_ISSUER is required when OIDC_CLIENT_ID is set (the console signs in there)');
  if (oidcJwksUrl && !oidcIssuer) {
    throw new ConfigError('OIDC_ISSUER is required when OIDC_JWKS_URL is set (tokens are checked against it)');
  }
  const bootstrapToken = optional(env, 'BOOTSTRAP_TOKEN');
  if (bootstrapToken !== undefined && bootstrapToken.length < 32) {
    throw new ConfigError('BOOTSTRAP_TOKEN must be at least 32 characters');
  }
  if (env.ENGINE === 'kubernetes') {
    throw new ConfigError('ENGINE=kubernetes is not available yet: use ENGINE=docker (a Docker daemon at DOCKER_HOST), ENGINE=auto or ENGINE=simulated');
  }
  const trustRaw = str(env, 'TRUST_PROXY', 'false');
  const trustProxy = /^(true|false)$/i.test(trustRaw) ? /^true$/i.test(trustRaw) : trustRaw;
  const host = str(env, 'HOST', '0.0.0.0');
  return Object.freeze({
    port,
    host,
    publicUrl,
    dataDir: str(env, 'DATA_DIR', './data'),
    backupDir: str(env, 'BACKUP_DIR', `${str(env, 'DATA_DIR', './data')}/backups`),
    databaseUrl,
    embeddedDatabase: optional(env, 'EMBEDDED_DATABASE') === undefined ? undefined
      : oneOf(env, 'EMBEDDED_DATABASE', DEFAULT_EMBEDDED_DATABASE, ['postgres', 'pglite'] as const),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    bootstrapToken,
    bootstrapOrganization: str(env, 'BOOTSTRAP_ORGANIZATION', 'default'),
    oidcIssuer,
    oidcAudience,
    oidcJwksUrl,
    oidcClientId,
    encryptionKey,
    rateLimitPerHour: int(env, 'RATE_LIMIT_PER_HOUR', 1000, 1, 10_000_000),
    webhookAllowPrivateTargets: bool(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    smtpFrom: str(env, 'SMTP_FROM', `berth <berth@${new URL(publicUrl).hostname}>`),
    engine: oneOf(env, 'ENGINE', 'auto', ['auto', 'docker', 'swarm', 'simulated', 'kubernetes'] as const),
    dockerHost: str(env, 'DOCKER_HOST', 'unix:///var/run/docker.sock'),
    swarmNodeDockerHosts: str(env, 'SWARM_NODE_DOCKER_HOSTS', '').split(',').map((h) => h.trim()).filter(Boolean),
    swarmRegistry: swarmRegistry(env),
    ingressDomain: str(env, 'INGRESS_DOMAIN', 'localhost').replace(/^\.+|\.+$/g, ''),
    ingressPort: int(env, 'INGRESS_PORT', 8000, 1, 65535),
    ingressHost: str(env, 'INGRESS_HOST', '127.0.0.1'),
    ingressDrainSeconds: int(env, 'INGRESS_DRAIN_SECONDS', 30, 0, 3600),
    ingressRuntime: oneOf(env, 'INGRESS_RUNTIME', 'auto', ['auto', 'host', 'container'] as const),
    ingressImage: str(env, 'INGRESS_IMAGE', DEFAULT_INGRESS_IMAGE),
    https: httpsConfig(env),
    databasePublicPorts: portRange(env, 'DATABASE_PUBLIC_PORTS', '30000-30999'),
    engineAllowLocalGit: bool(env, 'ENGINE_ALLOW_LOCAL_GIT', false),
    agentBaseImage: str(env, 'AGENT_BASE_IMAGE', 'debian:bookworm-slim'),
    agentBerthUrl: agentBerthUrl(env, host, port),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    trustProxy,
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 100 * 1_048_576),
    metricsToken: optional(env, 'METRICS_TOKEN'),
    shutdownDrainMs: int(env, 'SHUTDOWN_DRAIN_MS', 1000, 0, 120_000),
    logRetentionDays: int(env, 'LOG_RETENTION_DAYS', 14, 0, 36_500),
    logRetentionLinesPerService: int(env, 'LOG_RETENTION_LINES_PER_SERVICE', 100_000, 0, 1_000_000_000),
    logPruneBatch: int(env, 'LOG_PRUNE_BATCH', 5000, 1, 100_000),
    logPruneIntervalSeconds: int(env, 'LOG_PRUNE_INTERVAL_SECONDS', 60, 1, 86_400),
    gitPollIntervalSeconds: int(env, 'GIT_POLL_INTERVAL_SECONDS', 60, 0, 86_400),
    gitPollConcurrency: int(env, 'GIT_POLL_CONCURRENCY', 4, 1, 64),
    autoscaleIntervalSeconds: int(env, 'AUTOSCALE_INTERVAL_SECONDS', 15, 1, 3600),
    autoscaleDownStabilizationSeconds: int(env, 'AUTOSCALE_DOWN_STABILIZATION_SECONDS', 300, 0, 86_400),
    previewMaxPerEnvironment: int(env, 'PREVIEW_MAX_PER_ENVIRONMENT', 5, 0, 100),
    previewTtlHours: int(env, 'PREVIEW_TTL_HOURS', 168, 1, 8760),
  });
}
