// SQL of the variables table (and the few reads of projects/services it needs). Views never
// select `value_sealed`: only the resolution for rendering and the clone copy read it.
import type { Queryable } from '../../db/db.ts';
import type { ConstraintMessages } from '../../db/errors.ts';

/** the user-facing messages of this module's constraints (composed in src/modules/constraints.ts) */
export const VARIABLE_CONSTRAINTS: ConstraintMessages = {
  variables_parent_key: { status: 409, message: 'Variable already exists at this scope' },
};

export interface VariableRow {
  id: string; organization_id: string; project_id: string; environment_id: string | null; service_id: string | null;
  parent_id: string; scope: string; key: string; variable_type: string; is_secret: boolean; value: string | null;
  mount_path: string | null; description: string | null; enable_interpolation_in_file: boolean | null;
  target_id: string | null; created_at: Date; updated_at: Date | null;
  service_name: string | null; service_type: string | null;
  t_key: string | null; t_value: string | null; t_mount_path: string | null; t_scope: string | null; t_variable_type: string | null;
  t_description: string | null; t_interpolation: boolean | null; t_parent_id: string | null;
}

const VIEW = `select v.id, v.organization_id, v.project_id, v.environment_id, v.service_id, v.parent_id, v.scope, v.key,
    v.variable_type, v.is_secret, v.value, v.mount_path, v.description, v.enable_interpolation_in_file, v.target_id,
    v.created_at, v.updated_at, s.name as service_name, s.type as service_type,
    t.key as t_key, t.value as t_value, t.mount_path as t_mount_path, t.scope as t_scope, t.variable_type as t_variable_type,
    t.description as t_description, t.enable_interpolation_in_file as t_interpolation, t.parent_id as t_parent_id
  from variables v left join services s on s.id = v.service_id left join variables t on t.id = v.target_id`;

export async function findVariable(db: Queryable, id: string): Promise<VariableRow | null> {
  const rows = await db.query<VariableRow>(`${VIEW} where v.id = $1`, [id]);
  return rows[0] ?? null;
}

/** variables owned by any of the (up to three) ids of a chain: project, environment, service */
export async function listInChain(db: Queryable, chain: readonly string[], isSecret: boolean | null, limit: number | null, offset: number): Promise<{ rows: VariableRow[]; total: number }> {
  const rows = await db.query<VariableRow & { total: number }>(
    `${VIEW.replace('select v.id', 'select count(*) over () as total, v.id')}
      where (v.parent_id = $1 or v.parent_id = $2::uuid or v.parent_id = $3::uuid) and ($4::boolean is null or v.is_secret = $4)
      order by case v.scope when 'PROJECT' then 1 when 'ENVIRONMENT' then 2 else 3 end, v.key, v.id
      limit $5 offset $6`,
    [chain[0], chain[1] ?? null, chain[2] ?? null, isSecret, limit, offset]);
  const total = rows[0]?.total ?? (offset > 0 ? await countInChain(db, chain, isSecret) : 0);
  return { rows, total: Number(total) };
}

async function countInChain(db: Queryable, chain: readonly string[], isSecret: boolean | null): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `select count(*)::int as n from variables v where (v.parent_id = $1 or v.parent_id = $2::uuid or v.parent_id = $3::uuid)
      and ($4::boolean is null or v.is_secret = $4)`, [chain[0], chain[1] ?? null, chain[2] ?? null, isSecret]);
  return rows[0]?.n ?? 0;
}

export async function keyTaken(db: Queryable, parentId: string, key: string, exceptId: string | null = null): Promise<boolean> {
  const rows = await db.query('select 1 from variables where parent_id = $1 and key = $2 and ($3::uuid is null or id <> $3)', [parentId, key, exceptId]);
  return rows.length > 0;
}

export interface NewVariable {
  organizationId: string; projectId: string; environmentId: string | null; serviceId: string | null; parentId: string;
  scope: string; key: string; variableType: string; isSecret: boolean; value: string | null; valueSealed: string | null;
  mountPath: string | null; description: string | null; interpolation: boolean | null; targetId: string | null;
}

export async function insertVariable(db: Queryable, v: NewVariable): Promise<string> {
  const rows = await db.query<{ id: string }>(
    `insert into variables (organization_id, project_id, environment_id, service_id, parent_id, scope, key, variable_type,
       is_secret, value, value_sealed, mount_path, description, enable_interpolation_in_file, target_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) returning id`,
    [v.organizationId, v.projectId, v.environmentId, v.serviceId, v.parentId, v.scope, v.key, v.variableType,
      v.isSecret, v.value, v.valueSealed, v.mountPath, v.description, v.interpolation, v.targetId]);
  return rows[0]!.id;
}

export interface VariableChange {
  key: string; valueSent: boolean; value: string | null; valueSealed: string | null; mountPath: string | null;
  variableType: string; description: string | null; interpolation: boolean | null;
}

export async function updateVariable(db: Queryable, id: string, c: VariableChange): Promise<void> {
  await db.query(
    `update variables set key = $2,
       value = case when $3::boolean then $4 else value end,
       value_sealed = case when $3::boolean then $5 else value_sealed end,
       mount_path = $6, variable_type = $7, description = $8, enable_interpolation_in_file = $9, updated_at = now()
     where id = $1`,
    [id, c.key, c.valueSent, c.value, c.valueSealed, c.mountPath, c.variableType, c.description, c.interpolation]);
  // overrides are files wherever the variable they override is
  await db.query(`update variables set mount_path = $2, updated_at = now() where target_id = $1 and variable_type = 'OVERRIDE' and mount_path is distinct from $2`, [id, c.mountPath]);
}

export async function deleteVariable(db: Queryable, id: string): Promise<void> {
  await db.query('delete from variables where id = $1', [id]);
}

export async function findProject(db: Queryable, id: string): Promise<{ id: string; organization_id: string } | null> {
  const rows = await db.query<{ id: string; organization_id: string }>('select id, organization_id from projects where id = $1', [id]);
  return rows[0] ?? null;
}

// ---- resolution for rendering and copying (these read sealed values)

export interface SealedRow {
  id: string; parent_id: string; environment_id: string | null; service_id: string | null; scope: string; key: string;
  variable_type: string; is_secret: boolean; value: string | null; value_sealed: string | null; mount_path: string | null;
  description: string | null; enable_interpolation_in_file: boolean | null; target_id: string | null;
}
const SEALED = `select id, parent_id, environment_id, service_id, scope, key, variable_type, is_secret, value, value_sealed,
  mount_path, description, enable_interpolation_in_file, target_id from variables`;

export async function sealedInChain(db: Queryable, chain: readonly string[]): Promise<SealedRow[]> {
  return db.query<SealedRow>(`${SEALED} where parent_id = $1 or parent_id = $2::uuid or parent_id = $3::uuid`, [chain[0], chain[1] ?? null, chain[2] ?? null]);
}

/** every variable of an environment and of its services, parents before their aliases/overrides */
export async function sealedInEnvironment(db: Queryable, environmentId: string): Promise<SealedRow[]> {
  return db.query<SealedRow>(`${SEALED} where environment_id = $1 order by (target_id is not null), created_at, id`, [environmentId]);
}

export async function findSealed(db: Queryable, id: string): Promise<SealedRow | null> {
  return (await db.query<SealedRow>(`${SEALED} where id = $1`, [id]))[0] ?? null;
}

export interface ServiceRow { id: string; name: string; slug: string; type: string; environment_id: string; project_id: string; spec: Record<string, unknown> }

/** the service and every service of its environment (itself included) */
export async function servicesOfEnvironmentOf(db: Queryable, serviceId: string): Promise<ServiceRow[]> {
  return db.query<ServiceRow>(
    `select o.id, o.name, o.slug, o.type, o.environment_id, o.project_id, o.spec
       from services s join services o on o.environment_id = s.environment_id where s.id = $1 order by o.created_at, o.id`, [serviceId]);
}

export async function environmentProject(db: Queryable, environmentId: string): Promise<{ project_id: string; organization_id: string } | null> {
  return (await db.query<{ project_id: string; organization_id: string }>('select project_id, organization_id from environments where id = $1', [environmentId]))[0] ?? null;
}

export async function findByKey(db: Queryable, parentId: string, key: string): Promise<{ id: string; variable_type: string; is_secret: boolean } | null> {
  return (await db.query<{ id: string; variable_type: string; is_secret: boolean }>('select id, variable_type, is_secret from variables where parent_id = $1 and key = $2', [parentId, key]))[0] ?? null;
}

/** a new clear value for a non-secret variable or override (imports with overwrite) */
export async function setClearValue(db: Queryable, id: string, value: string): Promise<void> {
  await db.query('update variables set value = $2, updated_at = now() where id = $1 and not is_secret', [id, value]);
}
