// Copies an environment's variables (its own and its services') into a clone, inside the clone's
// transaction: secrets are opened and sealed again (fresh IV), aliases and overrides point at the
// copies. Project variables stay where they are; when the clone lands in another project, a
// derivation of a project variable follows the same key there, or an override becomes a plain
// variable and an alias is dropped.
import type { Queryable } from '../../db/db.ts';
import type { Sealer } from '../../lib/crypto.ts';
import * as repo from './variables.repo.ts';

export interface CopyVariablesInput {
  fromEnvironmentId: string;
  toEnvironmentId: string;
  /** source service id → cloned service id; variables of services not in it are not copied */
  serviceIdMap: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
}

function mapped(map: CopyVariablesInput['serviceIdMap'], id: string): string | undefined {
  return map instanceof Map ? map.get(id) : (map as Record<string, string>)[id];
}

/** returns how many variables were copied */
export async function copyVariables(tx: Queryable, sealer: Sealer, input: CopyVariablesInput): Promise<number> {
  const from = await repo.environmentProject(tx, input.fromEnvironmentId);
  const to = await repo.environmentProject(tx, input.toEnvironmentId);
  if (!from || !to) return 0;
  const sameProject = from.project_id === to.project_id;
  const rows = await repo.sealedInEnvironment(tx, input.fromEnvironmentId);
  const copies = new Map<string, string>();
  let count = 0;
  for (const r of rows) {
    const serviceId = r.service_id ? mapped(input.serviceIdMap, r.service_id) : null;
    if (r.service_id && !serviceId) continue;
    let variableType = r.variable_type;
    let targetId: string | null = null;
    if (r.target_id) {
      targetId = copies.get(r.target_id) ?? null;
      if (!targetId && sameProject) targetId = r.target_id;
      if (!targetId) {
        // the target is a project variable of another project: follow its key in the clone's project
        const target = await repo.findSealed(tx, r.target_id);
        const there = target ? await repo.findByKey(tx, to.project_id, target.key) : null;
        if (there && there.variable_type !== 'ALIAS') targetId = there.id;
        else if (variableType === 'OVERRIDE') variableType = r.mount_path ? 'FILE' : 'VALUE';
        else continue;
      }
    }
    const id = await repo.insertVariable(tx, {
      organizationId: to.organization_id, projectId: to.project_id, environmentId: input.toEnvironmentId,
      serviceId: serviceId ?? null, parentId: serviceId ?? input.toEnvironmentId, scope: r.scope, key: r.key,
      variableType, isSecret: r.is_secret, value: r.value,
      valueSealed: r.value_sealed !== null ? sealer.seal(sealer.open(r.value_sealed)) : null,
      mountPath: r.mount_path, description: r.description, interpolation: r.enable_interpolation_in_file,
      targetId: variableType === 'ALIAS' || variableType === 'OVERRIDE' ? targetId : null,
    });
    copies.set(r.id, id);
    count++;
  }
  return count;
}
