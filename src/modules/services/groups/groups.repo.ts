// SQL for annotations_groups and labels_groups, and the lookups services make of them.
import type { Queryable } from '../../../db/db.ts';
import type { ConstraintMessages } from '../../../db/errors.ts';
import { iso, isoRequired } from '../../../lib/text.ts';
import type { AnnotationsGroup, AnnotationsGroupRequest, LabelsGroup, LabelsGroupRequest } from './groups.schemas.ts';

/** the user-facing messages of this module's constraints (composed in src/modules/constraints.ts) */
export const SERVICE_GROUP_CONSTRAINTS: ConstraintMessages = {
  annotations_groups_org_name_key: { status: 409, message: 'Annotations group name is already taken in this organization' },
  labels_groups_org_name_key: { status: 409, message: 'Labels group name is already taken in this organization' },
};

export type GroupKind = 'annotations' | 'labels';

interface Row { id: string; organization_id: string; name: string; annotations?: AnnotationsGroup['annotations']; scopes?: string[]; labels?: LabelsGroup['labels']; created_at: Date; updated_at: Date | null }

const SQL = {
  annotations: { table: 'annotations_groups', columns: 'id, organization_id, name, annotations, scopes, created_at, updated_at' },
  labels: { table: 'labels_groups', columns: 'id, organization_id, name, labels, created_at, updated_at' },
} as const;

export function toAnnotationsGroup(r: Row): AnnotationsGroup {
  return { id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), name: r.name, annotations: r.annotations ?? [], scopes: r.scopes ?? [] };
}

export function toLabelsGroup(r: Row): LabelsGroup {
  return { id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), name: r.name, labels: r.labels ?? [] };
}

function labelsOf(body: LabelsGroupRequest) {
  return body.labels.map((l) => ({ key: l.key, value: l.value, propagate_to_cloud_provider: l.propagate_to_cloud_provider ?? false }));
}

export async function insertAnnotationsGroup(db: Queryable, orgId: string, b: AnnotationsGroupRequest): Promise<AnnotationsGroup> {
  const rows = await db.query<Row>(`insert into annotations_groups (organization_id, name, annotations, scopes) values ($1, $2, $3::jsonb, $4::jsonb) returning ${SQL.annotations.columns}`,
    [orgId, b.name.trim(), JSON.stringify(b.annotations), JSON.stringify(b.scopes)]);
  return toAnnotationsGroup(rows[0]!);
}

export async function updateAnnotationsGroup(db: Queryable, orgId: string, id: string, b: AnnotationsGroupRequest): Promise<AnnotationsGroup | null> {
  const rows = await db.query<Row>(`update annotations_groups set name = $3, annotations = $4::jsonb, scopes = $5::jsonb, updated_at = now()
     where organization_id = $1 and id = $2 returning ${SQL.annotations.columns}`, [orgId, id, b.name.trim(), JSON.stringify(b.annotations), JSON.stringify(b.scopes)]);
  return rows[0] ? toAnnotationsGroup(rows[0]) : null;
}

export async function insertLabelsGroup(db: Queryable, orgId: string, b: LabelsGroupRequest): Promise<LabelsGroup> {
  const rows = await db.query<Row>(`insert into labels_groups (organization_id, name, labels) values ($1, $2, $3::jsonb) returning ${SQL.labels.columns}`,
    [orgId, b.name.trim(), JSON.stringify(labelsOf(b))]);
  return toLabelsGroup(rows[0]!);
}

export async function updateLabelsGroup(db: Queryable, orgId: string, id: string, b: LabelsGroupRequest): Promise<LabelsGroup | null> {
  const rows = await db.query<Row>(`update labels_groups set name = $3, labels = $4::jsonb, updated_at = now()
     where organization_id = $1 and id = $2 returning ${SQL.labels.columns}`, [orgId, id, b.name.trim(), JSON.stringify(labelsOf(b))]);
  return rows[0] ? toLabelsGroup(rows[0]) : null;
}

const FIND = {
  annotations: `select ${SQL.annotations.columns} from annotations_groups where organization_id = $1 and id = any($2::uuid[])`,
  labels: `select ${SQL.labels.columns} from labels_groups where organization_id = $1 and id = any($2::uuid[])`,
};
const LIST = {
  annotations: `select ${SQL.annotations.columns}, count(*) over () as total from annotations_groups where organization_id = $1 order by created_at, id limit $2 offset $3`,
  labels: `select ${SQL.labels.columns}, count(*) over () as total from labels_groups where organization_id = $1 order by created_at, id limit $2 offset $3`,
};
const DELETE = {
  annotations: 'delete from annotations_groups where organization_id = $1 and id = $2 returning id',
  labels: 'delete from labels_groups where organization_id = $1 and id = $2 returning id',
};
const USAGE = {
  annotations: `select name from services where organization_id = $1 and spec -> 'annotations_groups' @> $2::jsonb order by name limit 1`,
  labels: `select name from services where organization_id = $1 and spec -> 'labels_groups' @> $2::jsonb order by name limit 1`,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findGroupRows(db: Queryable, orgId: string, kind: GroupKind, ids: readonly string[]): Promise<Row[]> {
  const wanted = [...new Set(ids)].filter((id) => UUID.test(id));
  if (wanted.length === 0) return [];
  return db.query<Row>(FIND[kind], [orgId, wanted]);
}

export async function listGroupRows(db: Queryable, orgId: string, kind: GroupKind, limit: number | null, offset: number): Promise<{ rows: Row[]; total: number }> {
  const rows = await db.query<Row & { total: string | number }>(LIST[kind], [orgId, limit, offset]);
  if (rows[0] || offset === 0) return { rows, total: rows[0] ? Number(rows[0].total) : 0 };
  return { rows, total: (await db.query<Row>(LIST[kind], [orgId, null, 0])).length };
}

export async function deleteGroup(db: Queryable, orgId: string, kind: GroupKind, id: string): Promise<boolean> {
  return (await db.query(DELETE[kind], [orgId, id])).length > 0;
}

/** the name of a service that references the group, if any */
export async function serviceUsingGroup(db: Queryable, orgId: string, kind: GroupKind, id: string): Promise<string | null> {
  const rows = await db.query<{ name: string }>(USAGE[kind], [orgId, JSON.stringify([{ id }])]);
  return rows[0]?.name ?? null;
}
