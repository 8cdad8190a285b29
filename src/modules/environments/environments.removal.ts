// What happens to environments that are about to be deleted (alone, or with their project): they
// are marked `deleting` (actions on their services are refused) and every removal hook runs in
// the deleting transaction — the deployments module adds the engine uninstall here.
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/db.ts';

export type EnvironmentRemovalHook = (tx: Queryable, ctx: AppContext, args: { organizationId: string; environmentIds: string[] }) => Promise<void>;

/** modules that must act before environments and their services disappear push a hook here */
export const environmentRemovalHooks: EnvironmentRemovalHook[] = [];

export async function prepareEnvironmentRemoval(tx: Queryable, ctx: AppContext, organizationId: string, environmentIds: string[]): Promise<void> {
  if (environmentIds.length === 0) return;
  await tx.query('update environments set deleting = true, updated_at = now() where id = any($1::uuid[])', [environmentIds]);
  // a deployment worker locks an environment, a deployment, then its service: the environments
  // (just now) and their deployments are locked before the cascade reaches the services, the same
  // order, so the delete cannot deadlock with a deployment moving on (decision 0706)
  await tx.query('select id from deployments where environment_id = any($1::uuid[]) order by id for update', [environmentIds]);
  for (const hook of environmentRemovalHooks) await hook(tx, ctx, { organizationId, environmentIds });
}
