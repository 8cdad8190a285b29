// Containers: services.spec holds the runtime members (runtime.rules.ts) plus registry_id,
// image_name and tag. No secrets. The registry must belong to the service's organization (400).
// auto_deploy defaults to false (a new tag arrives through the auto-deploy operation).
import type { Queryable } from '../../../db/db.ts';
import { badRequest } from '../../../lib/errors.ts';
import type { Registry } from '../common.schemas.ts';
import { findRegistries, type ServiceRow } from '../services.repo.ts';
import { presentBase, type ServiceTypeHandler } from '../services.service.ts';
import { mergeRuntime, pickRuntime, presentRuntime, runtimeDefaults, type RuntimeSpec } from '../runtime.rules.ts';
import type { Container, ContainerEditRequest, ContainerRequest } from './container.schemas.ts';

export interface ContainerSpec extends RuntimeSpec { registry_id: string; image_name: string; tag: string }

/** 400 unless the registry is one of the organization's */
export async function requireRegistry(db: Queryable, organizationId: string, registryId: string, field = 'registry_id'): Promise<Registry> {
  const found = (await findRegistries(db, organizationId, [registryId])).get(registryId);
  if (!found) throw badRequest(`${field} ${registryId} is not a container registry of this organization`);
  return found;
}

/** the registry shown when a referenced registry was deleted since */
export function missingRegistry(id: string): Registry {
  return { id, name: '(deleted registry)', url: '', kind: 'UNKNOWN' };
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** a stored spec completed with defaults (rows written elsewhere may lack members) */
export function hydrateContainerSpec(stored: Record<string, unknown>): ContainerSpec {
  return { ...runtimeDefaults('CONTAINER', false, false), registry_id: NIL_UUID, image_name: '', tag: '', ...stored } as ContainerSpec;
}

export const containerHandler: ServiceTypeHandler<ContainerRequest, ContainerEditRequest, Container> = {
  type: 'CONTAINER',
  label: 'Container',
  async build(body, { env, db }) {
    await requireRegistry(db, env.organizationId, body.registry_id);
    const runtime = mergeRuntime(runtimeDefaults('CONTAINER', env.autoPreview, false), body, env.capacity);
    const spec: ContainerSpec = { ...runtime, registry_id: body.registry_id, image_name: body.image_name, tag: body.tag };
    return { spec };
  },
  async rebuild(row, body, { env, db }) {
    const current = hydrateContainerSpec(row.spec);
    if (body.registry_id !== undefined && body.registry_id !== current.registry_id) await requireRegistry(db, env.organizationId, body.registry_id);
    const runtime = mergeRuntime(pickRuntime(current as unknown as Record<string, unknown>), body, env.capacity);
    const spec: ContainerSpec = {
      ...runtime, registry_id: body.registry_id ?? current.registry_id, image_name: body.image_name ?? current.image_name, tag: body.tag ?? current.tag,
    };
    return { spec };
  },
  registryIds: (row: ServiceRow) => [hydrateContainerSpec(row.spec).registry_id],
  present(row, { env, registries, groups }) {
    const spec = hydrateContainerSpec(row.spec);
    const registry = registries.get(spec.registry_id) ?? missingRegistry(spec.registry_id);
    return {
      ...presentBase(row, env), ...presentRuntime(spec, groups),
      registry_id: spec.registry_id, image_name: spec.image_name, tag: spec.tag, registry,
      source: { image_name: spec.image_name, tag: spec.tag, registry_id: spec.registry_id, registry },
    };
  },
};
