// What the tools share about the services the words name: the type handlers (a service's settings
// are read through them) and the label the REST routes use in their 404s, both from the handlers
// themselves; and, for a workflow run's credential, which of a list it reaches (the scope
// service's own check, modules/scope).
import type { Principal } from '../modules/access/principal.ts';
import { applicationHandler } from '../modules/services/applications/application.handler.ts';
import { containerHandler } from '../modules/services/containers/container.handler.ts';
import { databaseHandler } from '../modules/services/databases/database.handler.ts';
import { jobHandler } from '../modules/services/jobs/job.handler.ts';
import type { ServiceTypeHandler } from '../modules/services/services.service.ts';
import { runScopeReaches } from '../modules/scope/scope.service.ts';
import { WORKFLOW_LABEL } from '../modules/workflows/workflows.service.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const HANDLERS: Record<string, ServiceTypeHandler<any, any, unknown>> = Object.fromEntries(
  [applicationHandler, containerHandler, databaseHandler, jobHandler].map((h) => [h.type, h]));

/** "<label> not found", as the REST routes say it */
export function labelOf(type: string): string {
  return HANDLERS[type]?.label ?? (type === 'AGENTIC_WORKFLOW' ? WORKFLOW_LABEL : 'Service');
}

/** for a run's credential: the items (services) it reaches; all of them for any other caller */
export function reachable<T extends { id: string }>(p: Principal, items: T[]): T[] {
  return items.filter((i) => runScopeReaches(p, i.id));
}
