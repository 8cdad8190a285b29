// What happens to environments that are about to be deleted (alone, or with their project): they
// are marked `deleting` (actions on their services are refused) and what must happen before they
// go runs in the deleting transaction: the composition root (services.ts) wires it — the engine's
// uninstall, and the previews of the environments closed with their copies.
import type { Queryable } from '../../db/db.ts';
import { markDeleting } from './environments.repo.ts';

export interface RemovedEnvironments { organizationId: string; environmentIds: string[] }

/** what must happen before environments and their services disappear, inside the deleting transaction */
export type BeforeEnvironmentsRemoved = (tx: Queryable, removed: RemovedEnvironments) => Promise<void>;

/** `lockDeployments`: the deployments module's lock of the environments' deployments (wired by the root) */
export async function prepareEnvironmentRemoval(
  tx: Queryable, hooks: { beforeRemoval: BeforeEnvironmentsRemoved; lockDeployments(tx: Queryable, environmentIds: string[]): Promise<void> }, organizationId: string, environmentIds: string[],
): Promise<void> {
  if (environmentIds.length === 0) return;
  await markDeleting(tx, environmentIds);
  // a deployment worker locks an environment, a deployment, then its service: the environments
  // (just now) and their deployments are locked before the cascade reaches the services, the same
  // order, so the delete cannot deadlock with a deployment moving on (decision 0706)
  await hooks.lockDeployments(tx, environmentIds);
  await hooks.beforeRemoval(tx, { organizationId, environmentIds });
}
