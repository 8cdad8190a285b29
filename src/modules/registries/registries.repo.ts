// SQL for the container_registries table.
import type { Queryable } from '../../db/db.ts';
import type { ConstraintMessages } from '../../db/errors.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import type { RegistryRef } from './registries.schemas.ts';

/** the user-facing messages of this module's constraints (composed in src/modules/constraints.ts) */
export const REGISTRY_CONSTRAINTS: ConstraintMessages = {
  container_registries_org_name_key: { status: 409, message: 'Container registry name is already taken in this organization' },
};

interface RegistryRow {
  id: string; organization_id: string; name: string; kind: string; url: string; description: string;
  config: Record<string, unknown>; config_sealed: string | null; created_at: Date; updated_at: Date | null;
}

export interface RegistryRecord {
  id: string; organizationId: string; name: string; kind: string; url: string; description: string;
  config: Record<string, unknown>; configSealed: string | null; createdAt: string; updatedAt: string | null;
}

const COLUMNS = 'id, organization_id, name, kind, url, description, config, config_sealed, created_at, updated_at';

function toRecord(r: RegistryRow): RegistryRecord {
  return {
    id: r.id, organizationId: r.organization_id, name: r.name, kind: r.kind, url: r.url, description: r.description,
    config: r.config ?? {}, configSealed: r.config_sealed, createdAt: isoRequired(r.created_at), updatedAt: iso(r.updated_at),
  };
}

export async function findRegistry(db: Queryable, organizationId: string, id: string): Promise<RegistryRecord | null> {
  const rows = await db.query<RegistryRow>(`select ${COLUMNS} from container_registries where id = $1 and organization_id = $2`, [id, organizationId]);
  return rows[0] ? toRecord(rows[0]) : null;
}

export async function findRegistryRef(db: Queryable, organizationId: string, id: string): Promise<RegistryRef | null> {
  const rows = await db.query<RegistryRef>('select id, name, url, kind from container_registries where id = $1 and organization_id = $2', [id, organizationId]);
  return rows[0] ?? null;
}

export async function listRegistries(db: Queryable, organizationId: string, limit: number | null, offset: number, name: string | null = null): Promise<{ items: RegistryRecord[]; total: number }> {
  const rows = await db.query<RegistryRow & { total: number }>(
    `select ${COLUMNS}, count(*) over () as total from container_registries where organization_id = $1 and ($4::text is null or lower(name) = lower($4))
      order by created_at, id limit $2 offset $3`, [organizationId, limit, offset, name]);
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (!rows[0] && offset > 0) {
    const n = await db.query<{ n: number }>('select count(*)::int as n from container_registries where organization_id = $1 and ($2::text is null or lower(name) = lower($2))', [organizationId, name]);
    total = n[0]?.n ?? 0;
  }
  return { items: rows.map(toRecord), total };
}

export interface RegistryValues { name: string; kind: string; url: string; description: string; config: Record<string, unknown>; configSealed: string | null }

export async function insertRegistry(db: Queryable, organizationId: string, v: RegistryValues): Promise<RegistryRecord> {
  const rows = await db.query<RegistryRow>(
    `insert into container_registries (organization_id, name, kind, url, description, config, config_sealed)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7) returning ${COLUMNS}`,
    [organizationId, v.name, v.kind, v.url, v.description, JSON.stringify(v.config), v.configSealed]);
  return toRecord(rows[0]!);
}

export async function updateRegistry(db: Queryable, organizationId: string, id: string, v: RegistryValues): Promise<RegistryRecord | null> {
  const rows = await db.query<RegistryRow>(
    `update container_registries set name = $3, kind = $4, url = $5, description = $6, config = $7::jsonb, config_sealed = $8, updated_at = now()
      where id = $1 and organization_id = $2 returning ${COLUMNS}`,
    [id, organizationId, v.name, v.kind, v.url, v.description, JSON.stringify(v.config), v.configSealed]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/** services of the organization whose spec names the registry (by its id anywhere in the spec) */
export async function countServicesUsingRegistry(db: Queryable, organizationId: string, id: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `select count(*)::int as n from services where organization_id = $1 and position($2 in spec::text) > 0`, [organizationId, id]);
  return rows[0]?.n ?? 0;
}

export async function deleteRegistry(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  return (await db.query('delete from container_registries where id = $1 and organization_id = $2 returning id', [id, organizationId])).length > 0;
}
