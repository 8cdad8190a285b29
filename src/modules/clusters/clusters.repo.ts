// SQL for the clusters table.
import type { Queryable } from '../../db/db.ts';
import type { ConstraintMessages } from '../../db/errors.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import { CLUSTER_DEFAULTS, type Cluster, type ClusterRequest } from './clusters.schemas.ts';

/** the user-facing messages of this module's constraints (composed in src/modules/constraints.ts) */
export const CLUSTER_CONSTRAINTS: ConstraintMessages = {
  clusters_org_name_key: { status: 409, message: 'Cluster name is already taken in this organization' },
  environments_cluster_in_use: { status: 409, message: 'The cluster is used by environments; delete or move them first' },
  project_deployment_rules_cluster_in_use: { status: 409, message: 'The cluster is named by project deployment rules; change or delete them first' },
};

interface ClusterRow {
  id: string; organization_id: string; name: string; description: string; region: string; cloud_provider: string;
  kubernetes: string; production: boolean; instance_type: string | null; min_running_nodes: number; max_running_nodes: number;
  disk_size: number; cpu: number; memory: number; gpu: number; is_default: boolean; status: string;
  created_at: Date; updated_at: Date | null;
}

const COLUMNS = `id, organization_id, name, description, region, cloud_provider, kubernetes, production, instance_type,
  min_running_nodes, max_running_nodes, disk_size, cpu, memory, gpu, is_default, status, created_at, updated_at`;

function toCluster(r: ClusterRow): Cluster {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), organization: { id: r.organization_id },
    name: r.name, description: r.description, region: r.region, cloud_provider: r.cloud_provider, kubernetes: r.kubernetes,
    production: r.production, instance_type: r.instance_type, min_running_nodes: r.min_running_nodes,
    max_running_nodes: r.max_running_nodes, disk_size: r.disk_size, cpu: r.cpu, memory: r.memory, gpu: r.gpu,
    is_default: r.is_default, status: r.status,
  };
}

/** whether the cluster is one of the organization's */
export async function clusterOfOrganization(db: Queryable, organizationId: string, clusterId: string): Promise<boolean> {
  return (await db.query('select 1 from clusters where id = $1 and organization_id = $2', [clusterId, organizationId])).length > 0;
}

/** the organization's default cluster, if any */
export async function defaultClusterId(db: Queryable, organizationId: string): Promise<string | null> {
  const rows = await db.query<{ id: string }>('select id from clusters where organization_id = $1 and is_default', [organizationId]);
  return rows[0]?.id ?? null;
}

export async function findCluster(db: Queryable, organizationId: string, id: string): Promise<Cluster | null> {
  const rows = await db.query<ClusterRow>(`select ${COLUMNS} from clusters where id = $1 and organization_id = $2`, [id, organizationId]);
  return rows[0] ? toCluster(rows[0]) : null;
}

export async function listClusters(db: Queryable, organizationId: string, limit: number | null, offset: number, name: string | null = null): Promise<{ items: Cluster[]; total: number }> {
  const rows = await db.query<ClusterRow & { total: number }>(
    `select ${COLUMNS}, count(*) over () as total from clusters where organization_id = $1 and ($4::text is null or lower(name) = lower($4))
      order by created_at, id limit $2 offset $3`, [organizationId, limit, offset, name]);
  const total = rows[0] ? Number(rows[0].total) : name !== null ? 0 : await countClusters(db, organizationId);
  return { items: rows.map(toCluster), total };
}

async function countClusters(db: Queryable, organizationId: string): Promise<number> {
  const rows = await db.query<{ n: number }>('select count(*)::int as n from clusters where organization_id = $1', [organizationId]);
  return rows[0]?.n ?? 0;
}

/** the new cluster is the default when asked, or when the organization has no default yet */
export async function insertCluster(db: Queryable, organizationId: string, body: ClusterRequest): Promise<Cluster> {
  const makeDefault = body.is_default === true;
  if (makeDefault) await db.query('update clusters set is_default = false where organization_id = $1 and is_default', [organizationId]);
  const rows = await db.query<ClusterRow>(
    `insert into clusters (organization_id, name, description, region, cloud_provider, kubernetes, production, instance_type,
       min_running_nodes, max_running_nodes, disk_size, cpu, memory, gpu, is_default)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
       $15::boolean or not exists (select 1 from clusters where organization_id = $1 and is_default))
     returning ${COLUMNS}`,
    [organizationId, body.name, body.description ?? '', body.region, body.cloud_provider, body.kubernetes ?? 'MANAGED',
      body.production ?? false, body.instance_type ?? null, body.min_running_nodes ?? CLUSTER_DEFAULTS.min_running_nodes,
      body.max_running_nodes ?? CLUSTER_DEFAULTS.max_running_nodes, body.disk_size ?? CLUSTER_DEFAULTS.disk_size,
      body.cpu ?? CLUSTER_DEFAULTS.cpu, body.memory ?? CLUSTER_DEFAULTS.memory, body.gpu ?? CLUSTER_DEFAULTS.gpu, makeDefault]);
  return toCluster(rows[0]!);
}

/** members sent change; omitted members keep their value */
export async function updateCluster(db: Queryable, organizationId: string, id: string, body: ClusterRequest): Promise<Cluster | null> {
  if (body.is_default === true) {
    await db.query('update clusters set is_default = false where organization_id = $1 and is_default and id <> $2', [organizationId, id]);
  }
  const rows = await db.query<ClusterRow>(
    `update clusters set name = $3, region = $4, cloud_provider = $5,
       description = coalesce($6, description), kubernetes = coalesce($7, kubernetes), production = coalesce($8, production),
       instance_type = case when $9::boolean then $10 else instance_type end,
       min_running_nodes = coalesce($11, min_running_nodes), max_running_nodes = coalesce($12, max_running_nodes),
       disk_size = coalesce($13, disk_size), cpu = coalesce($14, cpu), memory = coalesce($15, memory), gpu = coalesce($16, gpu),
       is_default = coalesce($17, is_default), updated_at = now()
     where id = $1 and organization_id = $2 returning ${COLUMNS}`,
    [id, organizationId, body.name, body.region, body.cloud_provider, body.description === undefined ? null : (body.description ?? ''),
      body.kubernetes ?? null, body.production ?? null, 'instance_type' in body, body.instance_type ?? null,
      body.min_running_nodes ?? null, body.max_running_nodes ?? null, body.disk_size ?? null, body.cpu ?? null,
      body.memory ?? null, body.gpu ?? null, body.is_default ?? null]);
  return rows[0] ? toCluster(rows[0]) : null;
}

export async function countEnvironmentsOnCluster(db: Queryable, id: string): Promise<number> {
  const rows = await db.query<{ n: number }>('select count(*)::int as n from environments where cluster_id = $1', [id]);
  return rows[0]?.n ?? 0;
}

export async function deleteCluster(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  return (await db.query('delete from clusters where id = $1 and organization_id = $2 returning id', [id, organizationId])).length > 0;
}

/** the bootstrap organization's local cluster (idempotent by name) */
export async function ensureLocalCluster(db: Queryable, organizationId: string): Promise<void> {
  await db.query(
    `insert into clusters (organization_id, name, description, region, cloud_provider, kubernetes, is_default)
     select $1, 'local', 'created at first start', 'local', 'ON_PREMISE', 'SELF_MANAGED',
            not exists (select 1 from clusters where organization_id = $1 and is_default)
     where not exists (select 1 from clusters where organization_id = $1 and lower(name) = 'local')`, [organizationId]);
}

export async function clusterSettings(db: Queryable, clusterId: string, forUpdate = false): Promise<Record<string, unknown>> {
  const rows = await db.query<{ advanced_settings: Record<string, unknown> }>(
    `select advanced_settings from clusters where id = $1${forUpdate ? ' for update' : ''}`, [clusterId]);
  return rows[0]?.advanced_settings ?? {};
}

export async function saveClusterSettings(tx: Queryable, clusterId: string, settings: Record<string, unknown>): Promise<void> {
  await tx.query('update clusters set advanced_settings = $2::jsonb, updated_at = now() where id = $1', [clusterId, JSON.stringify(settings)]);
}
