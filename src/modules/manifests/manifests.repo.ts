// SQL of the manifests module's one table, manifest_resources: which file owns which resource.
import type { Queryable } from '../../db/db.ts';
import type { DatabaseProperty } from './manifest.schemas.ts';

/** a variable or secret set from a database's credentials (database-refs.ts): export writes the reference back */
export interface Reference { database_id: string; property: DatabaseProperty }
export interface OwnershipRow { resource_id: string; kind: string; file: string; reference: Reference | null }

export async function ownersInProject(q: Queryable, projectId: string): Promise<Map<string, OwnershipRow>> {
  const rows = await q.query<OwnershipRow>('select resource_id, kind, file, reference from manifest_resources where project_id = $1', [projectId]);
  return new Map(rows.map((r) => [r.resource_id, r]));
}

export async function own(q: Queryable, row: { organizationId: string; projectId: string; resourceId: string; kind: string; file: string; reference: Reference | null }): Promise<void> {
  await q.query(
    `insert into manifest_resources (resource_id, organization_id, project_id, kind, file, reference) values ($1, $2, $3, $4, $5, $6::jsonb)
     on conflict (resource_id) do update set file = excluded.file, kind = excluded.kind, reference = excluded.reference, applied_at = now()`,
    [row.resourceId, row.organizationId, row.projectId, row.kind, row.file, row.reference === null ? null : JSON.stringify(row.reference)],
  );
}

export async function disown(q: Queryable, resourceIds: readonly string[]): Promise<void> {
  if (resourceIds.length === 0) return;
  await q.query('delete from manifest_resources where resource_id = any($1::uuid[])', [resourceIds]);
}
