// The effective variables of an owner, from the database: for the API (secret values stay sealed
// and are shown as null) and for rendering a deployment (`resolveEffectiveVariables`: secrets
// opened, for Kubernetes Secrets/ConfigMaps only; never log or return its values).
import type { Queryable } from '../../db/db.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { notFound } from '../../lib/errors.ts';
import { builtInVariables, resolveEffective, type EffectiveVariable, type ServiceFacts, type StoredVariable } from './effective.rules.ts';
import { depthOf } from './parents.ts';
import * as repo from './variables.repo.ts';

function toFacts(s: repo.ServiceRow): ServiceFacts {
  return { id: s.id, name: s.name, slug: s.slug, type: s.type, environmentId: s.environment_id, projectId: s.project_id, spec: s.spec ?? {} };
}

function toStored(r: repo.SealedRow, open: ((sealed: string) => string) | null): StoredVariable {
  const value = r.is_secret ? (open && r.value_sealed !== null ? open(r.value_sealed) : null) : r.value;
  return {
    id: r.id, key: r.key, scope: r.scope, depth: depthOf(r.scope), variable_type: r.variable_type,
    is_secret: r.is_secret, value, mount_path: r.mount_path, target_id: r.target_id,
  };
}

async function builtInsOf(db: Queryable, serviceId: string | null): Promise<Array<{ key: string; value: string }>> {
  if (!serviceId) return [];
  const services = await repo.servicesOfEnvironmentOf(db, serviceId);
  const self = services.find((s) => s.id === serviceId);
  return self ? builtInVariables(toFacts(self), services.map(toFacts)) : [];
}

/** the effective list as the API shows it: secret values are null and never opened */
export async function effectiveForView(db: Queryable, chain: readonly string[], serviceId: string | null): Promise<EffectiveVariable[]> {
  const rows = await repo.sealedInChain(db, chain);
  const resolved = resolveEffective(rows.map((r) => toStored(r, null)), await builtInsOf(db, serviceId));
  return resolved.map((v) => (v.is_secret ? { ...v, value: null } : v));
}

export interface RenderedVariable {
  key: string;
  /** decrypted for secrets: for rendering Kubernetes objects only */
  value: string;
  is_secret: boolean;
  mount_path: string | null;
  scope: string;
}

/**
 * Every variable a service runs with (built-ins, project, environment, service; overrides and
 * aliases resolved; narrowest scope wins), secrets opened. 404 "Service not found" when missing.
 */
export async function resolveEffectiveVariables(db: Queryable, sealer: Sealer, serviceId: string): Promise<RenderedVariable[]> {
  const services = await repo.servicesOfEnvironmentOf(db, serviceId);
  const self = services.find((s) => s.id === serviceId);
  if (!self) throw notFound('Service');
  const rows = await repo.sealedInChain(db, [self.project_id, self.environment_id, self.id]);
  const open = (sealed: string) => sealer.open(sealed);
  const resolved = resolveEffective(rows.map((r) => toStored(r, open)), builtInVariables(toFacts(self), services.map(toFacts)));
  return resolved.map((v) => ({ key: v.key, value: v.value ?? '', is_secret: v.is_secret, mount_path: v.mount_path, scope: v.scope }));
}
