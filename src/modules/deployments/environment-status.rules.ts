// An environment's status, pure: its state from the deployment running or waiting in it and
// from its services' states, and the per-service Status entries of GET /environment/{id}/statuses
// grouped by type (the public clients' EnvironmentStatuses shape).

export interface ServiceStateRow {
  id: string; type: string; state: string; deployment_status: string; last_deployment_at: string | null;
}

export interface LastDeployment {
  id: string; status: string; finished: boolean; created_at: string; started_at: string | null; finished_at: string | null;
  origin: string; triggered_by: string | null;
}

interface ServiceStatusEntry {
  id: string; state: string; service_deployment_status: string; last_deployment_date: string | null; is_part_last_deployment: boolean;
}

/**
 * what the environment is doing: the status of the deployment at the head of its queue while one
 * is unfinished; else ERROR-like when a service failed (the last deployment's error status),
 * DEPLOYED when a service runs, STOPPED when every deployed service is stopped, READY when nothing
 * was ever deployed.
 */
export function environmentState(services: readonly ServiceStateRow[], head: LastDeployment | null, last: LastDeployment | null): string {
  if (head && !head.finished) return head.status;
  const deployed = services.filter((s) => s.deployment_status !== 'NEVER_DEPLOYED' || s.state !== 'STOPPED');
  if (deployed.length === 0) return 'READY';
  if (deployed.some((s) => s.state === 'ERROR')) return last && last.status.endsWith('_ERROR') ? last.status : 'DEPLOYMENT_ERROR';
  if (deployed.some((s) => s.state === 'RUNNING')) return 'DEPLOYED';
  return 'STOPPED';
}

/** the Qovery StateEnum-like deployment status of the environment: NEVER_DEPLOYED, OUT_OF_DATE or UP_TO_DATE */
export function environmentDeploymentStatus(services: readonly ServiceStateRow[]): string {
  if (services.length === 0 || services.every((s) => s.deployment_status === 'NEVER_DEPLOYED')) return 'NEVER_DEPLOYED';
  return services.some((s) => s.deployment_status !== 'UP_TO_DATE') ? 'OUT_OF_DATE' : 'UP_TO_DATE';
}

export function durationSeconds(d: LastDeployment | null): number | null {
  if (!d?.started_at || !d.finished_at) return null;
  return Math.max(0, Math.round((Date.parse(d.finished_at) - Date.parse(d.started_at)) / 1000));
}

const GROUPS: Record<string, string> = {
  APPLICATION: 'applications', CONTAINER: 'containers', JOB: 'jobs', DATABASE: 'databases',
  HELM: 'helms', TERRAFORM: 'terraforms', AGENTIC_WORKFLOW: 'agentic_workflows',
};

export type StatusGroups = Record<'applications' | 'containers' | 'jobs' | 'databases' | 'helms' | 'terraforms' | 'agentic_workflows', ServiceStatusEntry[]>;

/** each service's Status under its type's list; `lastServiceIds` are the services the last environment-wide request touched */
export function groupStatuses(services: readonly ServiceStateRow[], lastServiceIds: ReadonlySet<string>): StatusGroups {
  const out: StatusGroups = { applications: [], containers: [], jobs: [], databases: [], helms: [], terraforms: [], agentic_workflows: [] };
  for (const s of services) {
    const key = GROUPS[s.type] as keyof StatusGroups | undefined;
    if (!key) continue;
    out[key].push({
      id: s.id, state: s.state, service_deployment_status: s.deployment_status, last_deployment_date: s.last_deployment_at,
      is_part_last_deployment: lastServiceIds.has(s.id),
    });
  }
  return out;
}
