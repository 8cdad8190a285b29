// SQL for the services table (every service type) and the registry lookups services need.
import type { Queryable } from '../../db/db.ts';
import { selectPage, storedCount } from '../../db/page.ts';
import type { ConstraintMessages } from '../../db/errors.ts';
import type { Registry } from './common.schemas.ts';
import { AuditedInsert, returningInsert, type CreationEvent } from '../audit/audit.creation.ts';

/** the user-facing messages of this table's constraints (composed in src/modules/constraints.ts) */
export const SERVICE_CONSTRAINTS: ConstraintMessages = {
  services_environment_name_key: { status: 409, message: 'Service name is already taken in this environment' },
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ServiceRow {
  id: string; organization_id: string; project_id: string; environment_id: string; type: string; name: string; slug: string;
  spec: Record<string, unknown>; secrets: Record<string, string>; advanced_settings: Record<string, unknown>;
  state: string; deployment_status: string; last_deployment_at: Date | null; created_at: Date; updated_at: Date | null;
}

const COLUMNS = `id, organization_id, project_id, environment_id, type, name, slug, spec, secrets, advanced_settings,
  state, deployment_status, last_deployment_at, created_at, updated_at`;

export interface NewService {
  organizationId: string; projectId: string; environmentId: string; type: string; name: string; slug: string;
  spec: object; secrets: Record<string, string>; advancedSettings: Record<string, unknown>;
}

const INSERT_SERVICE = new AuditedInsert(9, returningInsert(
  `insert into services (organization_id, project_id, environment_id, type, name, slug, spec, secrets, advanced_settings)
   values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::jsonb) returning ${COLUMNS}`));

/** the new service; with the request's creation event, written by the same statement */
export async function insertService(db: Queryable, s: NewService, creation?: CreationEvent): Promise<ServiceRow> {
  const rows = await INSERT_SERVICE.query<ServiceRow>(db,
    [s.organizationId, s.projectId, s.environmentId, s.type, s.name, s.slug, JSON.stringify(s.spec), JSON.stringify(s.secrets), JSON.stringify(s.advancedSettings)],
    creation);
  return rows[0]!;
}

export async function findService(db: Queryable, id: string, forUpdate = false): Promise<ServiceRow | null> {
  const rows = await db.query<ServiceRow>(
    forUpdate ? `select ${COLUMNS} from services where id = $1 for update` : `select ${COLUMNS} from services where id = $1`, [id]);
  return rows[0] ?? null;
}

/**
 * Writes a service's name, spec, secrets and advanced settings. A service that was UP_TO_DATE
 * becomes OUT_OF_DATE when `outdated` (its deployed configuration no longer matches).
 */
export async function updateService(db: Queryable, id: string, u: {
  name: string; slug: string; spec: object; secrets: Record<string, string>; advancedSettings: Record<string, unknown>; outdated: boolean;
}): Promise<ServiceRow> {
  const rows = await db.query<ServiceRow>(
    `update services set name = $2, slug = $3, spec = $4::jsonb, secrets = $5::jsonb, advanced_settings = $6::jsonb,
       deployment_status = case when $7::boolean and deployment_status = 'UP_TO_DATE' then 'OUT_OF_DATE' else deployment_status end,
       updated_at = now()
     where id = $1 returning ${COLUMNS}`,
    [id, u.name, u.slug, JSON.stringify(u.spec), JSON.stringify(u.secrets), JSON.stringify(u.advancedSettings), u.outdated]);
  return rows[0]!;
}

/** an UP_TO_DATE service becomes OUT_OF_DATE (its running configuration could not follow an edit) */
export async function markOutOfDate(db: Queryable, id: string): Promise<void> {
  await db.query(`update services set deployment_status = 'OUT_OF_DATE' where id = $1 and deployment_status = 'UP_TO_DATE'`, [id]);
}

/**
 * Deletes a service and, by cascade, its deployments. The deployments are locked first: a
 * deployment worker locks a deployment, then its service (src/modules/deployments/
 * deployments.lifecycle.ts), and a delete taking the service first, then its deployments by
 * cascade, could deadlock with it (seen as a 409 in CI). Both now lock in the same order.
 */
export async function deleteService(db: Queryable, id: string): Promise<boolean> {
  await db.query('select id from deployments where service_id = $1 order by id for update', [id]);
  return (await db.query('delete from services where id = $1 returning id', [id])).length > 0;
}

/** services of an environment, optionally of one type, oldest first; total for pagination (one
 * SQL text per combination of filters, see storedCount) */
export async function listServices(db: Queryable, environmentId: string, type: string | null, limit: number | null, offset: number, name: string | null = null): Promise<{ rows: ServiceRow[]; total: number }> {
  const params: unknown[] = [environmentId];
  let where = 'where environment_id = $1';
  if (type !== null) where += ` and type = $${params.push(type)}`;
  if (name !== null) where += ` and lower(name) = lower($${params.push(name)})`;
  const count = name !== null ? `select count(*)::int as n from services ${where}`
    : storedCount(type === null ? `kind like 'services.%'` : `kind = 'services.' || $2`);
  const at = params.length;
  return selectPage<ServiceRow>(db, `select ${COLUMNS} from services ${where} order by created_at, id limit $${at + 1} offset $${at + 2}`, params, count, limit, offset);
}

/** container registries of an organization by id (only those asked for) */
export async function findRegistries(db: Queryable, organizationId: string, ids: readonly string[]): Promise<Map<string, Registry>> {
  const map = new Map<string, Registry>();
  const wanted = [...new Set(ids)].filter((id) => UUID.test(id));
  if (wanted.length === 0) return map;
  const rows = await db.query<Registry>(
    `select id, name, url, kind from container_registries where organization_id = $1 and id = any($2::uuid[])`, [organizationId, wanted]);
  for (const r of rows) map.set(r.id, r);
  return map;
}

/** services by id, in no particular order */
export async function findServicesByIds(db: Queryable, ids: readonly string[]): Promise<ServiceRow[]> {
  return db.query<ServiceRow>(`select ${COLUMNS} from services where id = any($1::uuid[])`, [ids]);
}

/** the services of an environment with one of these ids or (case-insensitively) these lower-case names */
export async function findServicesInEnvironment(db: Queryable, environmentId: string, ids: readonly string[], lowerNames: readonly string[]): Promise<ServiceRow[]> {
  return db.query<ServiceRow>(`select ${COLUMNS} from services where environment_id = $1 and (id = any($2::uuid[]) or lower(name) = any($3::text[]))`,
    [environmentId, ids, lowerNames]);
}

/** the services (of these environments, or these ids) deployed at least once */
export async function findDeployedServices(db: Queryable, by: 'environment_id' | 'id', ids: readonly string[]): Promise<ServiceRow[]> {
  return db.query<ServiceRow>(`select ${COLUMNS} from services where ${by} = any($1::uuid[]) and deployment_status <> 'NEVER_DEPLOYED'`, [ids]);
}

// ---- writes other modules ask for, through the services service (this module owns the table)

/** a clone's copy of one service row (every column, present and future) into another environment:
 * new id, re-sealed secrets, runtime state back to STOPPED / NEVER_DEPLOYED */
export async function copyService(db: Queryable, serviceId: string, toEnvironmentId: string, secrets: unknown): Promise<string> {
  const rows = await db.query<{ id: string }>(
    `insert into services
     select (jsonb_populate_record(null::services, to_jsonb(s) || jsonb_build_object(
       'id', gen_random_uuid(), 'environment_id', $2::uuid, 'secrets', $3::jsonb, 'state', 'STOPPED',
       'deployment_status', 'NEVER_DEPLOYED', 'last_deployment_at', null, 'created_at', now(), 'updated_at', null))).*
       from services s where s.id = $1
     returning id`, [serviceId, toEnvironmentId, JSON.stringify(secrets ?? {})]);
  return rows[0]!.id;
}

/**
 * A service of a preview copy now builds the pull request's branch (its git source's `branch`);
 * `auto_deploy` off: the copy follows the pull request's events, not pushes to the branch.
 */
export async function switchBranch(tx: Queryable, serviceId: string, type: string, branch: string): Promise<void> {
  const path = type === 'JOB' ? '{source,docker,git_repository,branch}' : '{git_repository,branch}';
  await tx.query(
    `update services set spec = jsonb_set(jsonb_set(spec, $2::text[], to_jsonb($3::text)), '{auto_deploy}', 'false'::jsonb), updated_at = now()
      where id = $1`, [serviceId, path, branch]);
}

/** deployed services whose variables a change at this owner affects become OUT_OF_DATE */
export async function markServicesOutOfDate(db: Queryable, level: 'project' | 'environment' | 'service', parentId: string): Promise<void> {
  const where = level === 'project' ? STALE_PROJECT : level === 'environment' ? STALE_ENVIRONMENT : STALE_SERVICE;
  await db.query(where, [parentId]);
}
const STALE = `update services set deployment_status = 'OUT_OF_DATE' where deployment_status = 'UP_TO_DATE'`;
const STALE_PROJECT = `${STALE} and project_id = $1`;
const STALE_ENVIRONMENT = `${STALE} and environment_id = $1`;
const STALE_SERVICE = `${STALE} and id = $1`;

export async function setServiceState(tx: Queryable, serviceId: string, state: string): Promise<void> {
  await tx.query('update services set state = $2 where id = $1', [serviceId, state]);
}

/** after a successful deploy: UP_TO_DATE unless the service was edited while it deployed */
export async function markServiceDeployed(tx: Queryable, serviceId: string, startedAt: Date | null): Promise<void> {
  await tx.query(
    `update services set state = 'RUNNING', last_deployment_at = now(),
       deployment_status = case when updated_at is not null and $2::timestamptz is not null and updated_at > $2::timestamptz
         then 'OUT_OF_DATE' else 'UP_TO_DATE' end where id = $1`,
    [serviceId, startedAt]);
}

export async function markServiceUninstalled(tx: Queryable, serviceId: string): Promise<void> {
  await tx.query(`update services set state = 'STOPPED', deployment_status = 'NEVER_DEPLOYED' where id = $1`, [serviceId]);
}
