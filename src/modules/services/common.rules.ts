// Pure rules shared by service types: defaults of the runtime members, normalisation of ports,
// storage, probes and git repositories into their stored form, and the checks (cluster capacity,
// instance bounds, group references). Violations throw 400 (AppError) naming the member.
import { randomUUID } from 'node:crypto';
import { checkGitUrl } from '../../engine/index.ts';
import { badRequest } from '../../lib/errors.ts';
import type { ClusterCapacity } from '../scope/scope.service.ts';
import type {
  GitRepository, GitRepositoryRequest, Healthchecks, HealthchecksRequest, Port, PortRequest, Probe, ProbeRequest, Storage, StorageRequest,
} from './common.schemas.ts';

/** the request's members that were sent (undefined dropped; null kept: it clears a nullable member) */
export function definedMembers<T extends object>(body: T): Partial<T> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export interface StoredGitRepository { url: string; branch: string; root_path: string; git_token_id: string | null; provider: string | null }

const PROVIDER_HOSTS: Record<string, string> = { 'github.com': 'GITHUB', 'gitlab.com': 'GITLAB', 'bitbucket.org': 'BITBUCKET' };

export function normalizeGitRepository(req: GitRepositoryRequest, field = 'git_repository'): StoredGitRepository {
  // any URL git can clone; local paths pass here and are refused at build unless the operator allows them
  const problem = checkGitUrl(req.url, true);
  if (problem) throw badRequest(`${field}.url: ${problem}`);
  let hostname = '';
  try { hostname = new URL(req.url).hostname; } catch { hostname = /^(?:[^@/]*@)?([^:/]+):/.exec(req.url)?.[1] ?? ''; }
  const rootPath = req.root_path ?? '/';
  if (!rootPath.startsWith('/')) throw badRequest(`${field}.root_path must start with /`);
  return {
    url: req.url,
    branch: req.branch ?? 'main',
    root_path: rootPath,
    git_token_id: req.git_token_id?.toLowerCase() ?? null,
    provider: req.provider ?? PROVIDER_HOSTS[hostname.toLowerCase()] ?? null,
  };
}

/** the response form: owner and name read from the URL path */
export function presentGitRepository(repo: StoredGitRepository): GitRepository {
  let owner: string | null = null;
  let name: string | null = null;
  try {
    const parts = new URL(repo.url).pathname.split('/').filter(Boolean);
    if (parts.length >= 2) {
      owner = parts.slice(0, -1).join('/');
      name = parts[parts.length - 1]!.replace(/\.git$/, '');
    }
  } catch { /* stored URLs were validated */ }
  return { ...repo, owner, name };
}

export function normalizePorts(ports: readonly (PortRequest | Port)[] | null | undefined): Port[] {
  const list = (ports ?? []).map((p): Port => {
    const protocol = p.protocol ?? 'HTTP';
    const web = protocol === 'HTTP' || protocol === 'GRPC';
    const external = p.external_port ?? (p.publicly_accessible ? (web ? 443 : p.internal_port) : null);
    return {
      id: p.id ?? randomUUID(),
      name: p.name ?? `p${p.internal_port}`,
      internal_port: p.internal_port,
      external_port: external,
      protocol,
      publicly_accessible: p.publicly_accessible,
      is_default: p.is_default ?? false,
      public_path: p.public_path ?? null,
      public_path_rewrite: p.public_path_rewrite ?? null,
    };
  });
  const seen = new Set<number>();
  for (const [i, p] of list.entries()) {
    if (seen.has(p.internal_port)) throw badRequest(`ports[${i}].internal_port ${p.internal_port} is declared twice`);
    seen.add(p.internal_port);
    if ((p.public_path !== null || p.public_path_rewrite !== null) && !(p.publicly_accessible && (p.protocol === 'HTTP' || p.protocol === 'GRPC'))) {
      throw badRequest(`ports[${i}].public_path is only for publicly accessible HTTP or GRPC ports`);
    }
  }
  if (list.filter((p) => p.is_default).length > 1) throw badRequest('ports: at most one port may be the default');
  return list;
}

export function normalizeStorage(storage: readonly (StorageRequest | Storage)[] | null | undefined): Storage[] {
  const list = (storage ?? []).map((s) => ({ id: s.id ?? randomUUID(), type: s.type ?? 'FAST_SSD', size: s.size, mount_point: s.mount_point }));
  const seen = new Set<string>();
  for (const [i, s] of list.entries()) {
    if (seen.has(s.mount_point)) throw badRequest(`storage[${i}].mount_point ${s.mount_point} is used twice`);
    seen.add(s.mount_point);
  }
  return list;
}

const PROBE_DEFAULTS = { initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 9 };

function normalizeProbe(probe: ProbeRequest | Probe, field: string, defaultPort: number | null): Probe {
  const t = probe.type as ProbeRequest['type'];
  const kinds = (['tcp', 'http', 'exec', 'grpc'] as const).filter((k) => t[k] !== undefined && t[k] !== null);
  if (kinds.length !== 1) throw badRequest(`${field}.type must hold exactly one of tcp, http, exec, grpc`);
  const port = (given: number | null | undefined): number => {
    const p = given ?? defaultPort;
    if (p === null) throw badRequest(`${field}.type.${kinds[0]}.port is required (the service declares no port)`);
    return p;
  };
  let type: Probe['type'];
  if (t.tcp) type = { tcp: { port: port(t.tcp.port), host: t.tcp.host ?? null } };
  else if (t.http) type = { http: { path: t.http.path ?? '/', scheme: t.http.scheme ?? 'HTTP', port: port(t.http.port) } };
  else if (t.exec) {
    if (t.exec.command[0] === '') throw badRequest(`${field}.type.exec.command[0] must not be empty`);
    type = { exec: { command: [...t.exec.command] } };
  } else type = { grpc: { service: t.grpc!.service ?? null, port: port(t.grpc!.port) } };
  return {
    type,
    initial_delay_seconds: probe.initial_delay_seconds ?? PROBE_DEFAULTS.initial_delay_seconds,
    period_seconds: probe.period_seconds ?? PROBE_DEFAULTS.period_seconds,
    timeout_seconds: probe.timeout_seconds ?? PROBE_DEFAULTS.timeout_seconds,
    success_threshold: probe.success_threshold ?? PROBE_DEFAULTS.success_threshold,
    failure_threshold: probe.failure_threshold ?? PROBE_DEFAULTS.failure_threshold,
  };
}

/** probes get their defaults; a port-based probe without a port uses `defaultPort` (the service's first port) */
export function normalizeHealthchecks(hc: HealthchecksRequest | Healthchecks | null | undefined, defaultPort: number | null): Healthchecks {
  const out: Healthchecks = {};
  for (const key of ['readiness_probe', 'liveness_probe'] as const) {
    const probe = hc?.[key];
    out[key] = probe ? normalizeProbe(probe, `healthchecks.${key}`, defaultPort) : null;
  }
  return out;
}

export interface Resources { cpu: number; memory: number; gpu: number }

/** a service may not ask for more than its cluster has (400 saying the maximum) */
export function checkCapacity(r: Resources, capacity: ClusterCapacity): void {
  if (r.cpu > capacity.cpu) throw badRequest(`cpu ${r.cpu} exceeds the cluster's maximum of ${capacity.cpu} millicores`);
  if (r.memory > capacity.memory) throw badRequest(`memory ${r.memory} exceeds the cluster's maximum of ${capacity.memory} MB`);
  if (r.gpu > capacity.gpu) throw badRequest(`gpu ${r.gpu} exceeds the cluster's maximum of ${capacity.gpu}`);
}

export function checkInstances(min: number, max: number): void {
  if (max !== -1 && max < 1) throw badRequest('max_running_instances must be at least 1, or -1 for no limit');
  if (max !== -1 && min > max) throw badRequest(`min_running_instances (${min}) must not exceed max_running_instances (${max})`);
}

export function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw badRequest('name must not be blank');
  return trimmed;
}

export function iconFor(type: string): string {
  return `app://qovery-console/${type.toLowerCase()}`;
}
