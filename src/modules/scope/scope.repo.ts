// SQL for scope: where a resource sits in the hierarchy (an environment or a service with its
// project, organization and cluster), and what names or ids find among what a caller may read.
// Scope owns no table: these are reads joining the hierarchy's tables (organizations, memberships,
// projects, environments, clusters, services), never writes (decision 0346).
import type { Queryable } from '../../db/db.ts';
import type { Principal } from '../access/principal.ts';

export interface EnvRow {
  organization_id: string; project_id: string; environment_id: string; environment_name: string; environment_mode: string;
  auto_preview: boolean; deleting: boolean; cluster_id: string; cpu: number; memory: number; gpu: number;
}

const ENV_SELECT = `select e.organization_id, e.project_id, e.id as environment_id, e.name as environment_name,
  e.mode as environment_mode, e.auto_preview, e.deleting, e.cluster_id, c.cpu, c.memory, c.gpu
  from environments e join clusters c on c.id = e.cluster_id`;

export async function findEnvironmentRow(db: Queryable, environmentId: string): Promise<EnvRow | null> {
  return (await db.query<EnvRow>(`${ENV_SELECT} where e.id = $1`, [environmentId]))[0] ?? null;
}

/** the service (of this type, when given) with its environment's row */
export async function findServiceRow(db: Queryable, serviceId: string, type?: string): Promise<(EnvRow & { service_id: string; service_type: string; service_name: string }) | null> {
  const rows = await db.query<EnvRow & { service_id: string; service_type: string; service_name: string }>(
    `${ENV_SELECT.replace('select ', 'select s.id as service_id, s.type as service_type, s.name as service_name, ')}
      join services s on s.environment_id = e.id where s.id = $1 and ($2::text is null or s.type = $2)`,
    [serviceId, type ?? null]);
  return rows[0] ?? null;
}

export interface Place {
  organization_id: string; organization_name: string; project_id: string; project_name: string;
  environment_id: string; environment_name: string;
}
export interface ServicePlace extends Place { service_id: string; service_name: string; service_type: string }

/** each word narrows the search: a name or an id */
type Narrowing = Array<['o' | 'p' | 'e' | 's', string | undefined]>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** the organizations (and, for a run's credential, the one environment) a caller may read */
function reach(p: Principal): { sql: string; params: unknown[] } {
  if (p.kind === 'token') {
    return p.runScope
      ? { sql: 'o.id = $1 and e.id = $2', params: [p.organizationId, p.runScope.environmentId] }
      : { sql: 'o.id = $1', params: [p.organizationId] };
  }
  return { sql: 'o.id in (select organization_id from memberships where user_id = $1)', params: [p.id] };
}

/** `x.id = $n or lower(x.name) = lower($n)` for each word given */
function narrow(words: Narrowing, params: unknown[]): string {
  return words.filter(([, w]) => w !== undefined && w !== '').map(([alias, w]) => {
    params.push(w);
    const n = params.length;
    return UUID.test(w!) ? ` and ${alias}.id = $${n}::uuid` : ` and lower(${alias}.name) = lower($${n})`;
  }).join('');
}

const PLACE_COLUMNS = `o.id as organization_id, o.name as organization_name, p.id as project_id, p.name as project_name,
  e.id as environment_id, e.name as environment_name`;
const PLACE_JOINS = 'environments e join projects p on p.id = e.project_id join organizations o on o.id = e.organization_id';

/** the environment with this id, with its place */
export async function placesOfEnvironmentId(db: Queryable, environmentId: string): Promise<Place[]> {
  return db.query<Place>(`select ${PLACE_COLUMNS} from ${PLACE_JOINS} where e.id = $1::uuid`, [environmentId]);
}

/** the environments the words name among what the caller reads (50 at most) */
export async function placesOfEnvironments(db: Queryable, p: Principal, words: Narrowing): Promise<Place[]> {
  const r = reach(p);
  const params = [...r.params];
  const where = narrow(words, params);
  return db.query<Place>(`select ${PLACE_COLUMNS} from ${PLACE_JOINS} where ${r.sql}${where} order by o.name, p.name, e.name limit 50`, params);
}

/** the projects the words name among what the caller reads, those without an environment too (50 at most) */
export async function placesOfProjects(db: Queryable, p: Principal, words: Narrowing): Promise<Place[]> {
  const r = reach(p);
  const params = [...r.params];
  const where = narrow(words, params);
  // projects without an environment are found too (a left join from projects)
  return db.query<Place>(`select distinct o.id as organization_id, o.name as organization_name, p.id as project_id, p.name as project_name,
      null as environment_id, '' as environment_name
    from projects p join organizations o on o.id = p.organization_id left join environments e on e.project_id = p.id
    where ${r.sql}${where} order by o.name, p.name limit 50`, params);
}

/** the organizations the word names (all when none) among those the caller reads (50 at most) */
export async function organizationsNamed(db: Queryable, p: Principal, word: string | undefined): Promise<Array<{ id: string; name: string }>> {
  const params: unknown[] = [];
  const mine = p.kind === 'token' ? (params.push(p.organizationId), 'o.id = $1')
    : (params.push(p.id), 'o.id in (select organization_id from memberships where user_id = $1)');
  const where = narrow([['o', word]], params);
  return db.query<{ id: string; name: string }>(`select o.id, o.name from organizations o where ${mine}${where} order by o.name limit 50`, params);
}

const SERVICE_PLACE = `select ${PLACE_COLUMNS}, s.id as service_id, s.name as service_name, s.type as service_type
  from services s join environments e on e.id = s.environment_id join projects p on p.id = e.project_id
    join organizations o on o.id = e.organization_id`;

/** the service with this id, with its place */
export async function placesOfServiceId(db: Queryable, serviceId: string): Promise<ServicePlace[]> {
  return db.query<ServicePlace>(`${SERVICE_PLACE} where s.id = $1::uuid`, [serviceId]);
}

/** the services the words name among what the caller reads (50 at most) */
export async function placesOfServices(db: Queryable, p: Principal, words: Narrowing): Promise<ServicePlace[]> {
  const r = reach(p);
  const params = [...r.params];
  const where = narrow(words, params);
  return db.query<ServicePlace>(`${SERVICE_PLACE} where ${r.sql}${where}
    order by o.name, p.name, e.name, s.name limit 50`, params);
}
