// The manifest endpoint's service side: authorizes the caller, loads the service and its
// effective variables, and renders the Kubernetes objects (src/engine/render.ts). Secret values
// are never returned: the rendered Secret lists its keys with empty values.
import type { Platform } from '../../platform.ts';
import type { ScopeService } from '../scope/scope.service.ts';
import { renderService, type K8sObject } from '../../engine/index.ts';
import { notFound } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import { resolveEffectiveVariables } from '../variables/effective.ts';
import * as repo from './deployments.repo.ts';

export async function renderServiceManifests(ctx: Pick<Platform, 'db' | 'sealer'> & { scope: Pick<ScopeService, 'service'> }, p: Principal, serviceId: string, type: string, label: string): Promise<K8sObject[]> {
  await ctx.scope.service(p, serviceId, 'read', type, label);
  const svc = await repo.findService(ctx.db, serviceId);
  if (!svc) throw notFound(label);
  const variables = (await resolveEffectiveVariables(ctx.db, ctx.sealer, serviceId))
    .map((v) => ({ key: v.key, value: v.is_secret ? '' : v.value, is_secret: v.is_secret, mount_path: v.mount_path }));
  const objects = renderService({
    id: svc.id, type: svc.type, name: svc.name, slug: svc.slug, environmentId: svc.environment_id,
    spec: svc.spec ?? {}, advancedSettings: svc.advanced_settings ?? {}, variables,
  });
  for (const o of objects) {
    if (o.kind === 'Secret') o.metadata.annotations = { 'berth.dev/values': 'redacted: secret values are never returned by the API' };
  }
  return objects;
}
