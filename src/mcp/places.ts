// From the words a model sends (names or ids) to what the services take: the service or
// environment they name, with its type and the label the REST routes use in their 404s. Names are
// looked up among what the caller may read (modules/scope/names.ts); the services then authorize.
import type { Principal } from '../modules/access/principal.ts';
import { findEnvironment, findService, type Place, type PlaceWords, type ServicePlace } from '../modules/scope/names.ts';
import type { AppContext } from '../context.ts';
import { forbidden } from '../lib/errors.ts';

/** the REST label of each service type ("Application not found", …) */
export const TYPE_LABELS: Record<string, string> = {
  APPLICATION: 'Application', CONTAINER: 'Container', DATABASE: 'Database', JOB: 'Job', AGENTIC_WORKFLOW: 'Agentic workflow',
  HELM: 'Helm', TERRAFORM: 'Terraform',
};

export function labelOf(type: string): string {
  return TYPE_LABELS[type] ?? 'Service';
}

export async function serviceNamed(ctx: AppContext, p: Principal, words: PlaceWords & { service: string }): Promise<ServicePlace> {
  return findService(ctx.db, p, words);
}

export async function environmentNamed(ctx: AppContext, p: Principal, words: PlaceWords & { environment: string }): Promise<Place> {
  return findEnvironment(ctx.db, p, words);
}

/** for a run's credential: the services it reaches (all of them for any other caller) */
export function reachable<T extends { id: string }>(p: Principal, items: T[]): T[] {
  const run = p.kind === 'token' ? p.runScope : undefined;
  return run ? items.filter((i) => run.serviceIds.includes(i.id)) : items;
}

/** 403 when a run's credential asks about a service outside its run (e.g. through a deployment id) */
export function assertReachable(p: Principal, serviceId: string): void {
  const run = p.kind === 'token' ? p.runScope : undefined;
  if (run && !run.serviceIds.includes(serviceId)) {
    throw forbidden('This workflow run\'s credential reaches only the workflow and its context services (context_service_ids)');
  }
}
