// Names and labels of everything the Docker engine creates. Every object carries
// `berth.managed=true` and the ids it belongs to, so a restarted berth finds (re-adopts) what it
// made by label alone and never touches anything else on the daemon.

import type { ProbePlan } from '../plan.ts';

export const MANAGED_LABEL = 'berth.managed';

export interface OwnerIds {
  serviceId: string;
  environmentId: string;
  projectId: string;
  organizationId: string;
}

/** a Docker-safe DNS label from a slug */
export function dnsLabel(text: string, max = 40): string {
  const cleaned = text.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
  return (cleaned || 'service').slice(0, max).replace(/-+$/, '');
}

const short = (id: string) => id.replace(/-/g, '').slice(0, 8);

export function networkName(environmentId: string): string {
  return `berth-env-${environmentId}`;
}

/** one name per replica of a generation (the deployment that created it) */
export function containerName(slug: string, serviceId: string, generation: string, replica: number): string {
  return `berth-${dnsLabel(slug, 30)}-${short(serviceId)}-${short(generation)}-${replica}`;
}

export function jobRunContainerName(slug: string, serviceId: string, runId: string): string {
  return `berth-job-${dnsLabel(slug, 30)}-${short(serviceId)}-${short(runId)}`;
}

export function volumeName(serviceId: string, key: string): string {
  return `berth-${serviceId}-${dnsLabel(key, 40)}`;
}

/** the image a git build produces: one repository per service, one tag per commit */
export function builtImageTag(serviceId: string, commit: string): string {
  return `berth/${serviceId}:${commit.slice(0, 12).toLowerCase()}`;
}

export function ownerLabels(ids: OwnerIds): Record<string, string> {
  return {
    [MANAGED_LABEL]: 'true',
    'berth.service_id': ids.serviceId,
    'berth.environment_id': ids.environmentId,
    'berth.project_id': ids.projectId,
    'berth.organization_id': ids.organizationId,
  };
}

/** labels of a long-running replica */
export function replicaLabels(ids: OwnerIds, generation: string, replica: number, routes: RouteLabel[], probes: { readiness: ProbePlan | null; liveness: ProbePlan | null }): Record<string, string> {
  return {
    ...ownerLabels(ids),
    'berth.role': 'replica',
    'berth.generation': generation,
    'berth.replica': String(replica),
    'berth.routes': JSON.stringify(routes),
    ...(probes.readiness ? { 'berth.readiness': JSON.stringify(probes.readiness) } : {}),
    ...(probes.liveness ? { 'berth.liveness': JSON.stringify(probes.liveness) } : {}),
  };
}

/** a probe a replica was created with (berth.readiness for restarts, berth.liveness for the observer) */
export function parseProbe(label: string | undefined): ProbePlan | null {
  if (!label) return null;
  try {
    const p = JSON.parse(label) as ProbePlan;
    return p && ['http', 'tcp', 'exec'].includes(p.kind) ? p : null;
  } catch {
    return null;
  }
}

/** what the ingress needs to route to a replica, kept on the container so it can be rebuilt from Docker alone */
export interface RouteLabel { id: string; hosts: string[]; port: number }

export function parseRoutes(label: string | undefined): RouteLabel[] {
  if (!label) return [];
  try {
    const parsed = JSON.parse(label) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((r): r is RouteLabel => typeof r?.id === 'string' && Array.isArray(r.hosts) && Number.isInteger(r.port));
  } catch {
    return [];
  }
}

export function labelFilter(extra: Record<string, string> = {}): { label: string[] } {
  return { label: [`${MANAGED_LABEL}=true`, ...Object.entries(extra).map(([k, v]) => `${k}=${v}`)] };
}
