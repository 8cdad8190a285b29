// Names or ids: a caller (a person through an AI assistant, a CLI user) says `storefront` in
// `staging` of `shop`; this finds what they mean among what they may read — one match, 404 with
// what was looked for, or 400 listing the candidates when the words fit several. An id is taken
// as it is, wherever it lives: authorization of the match is the services' (scope.service /
// scope.environment), so another organization's id is refused exactly as the REST API refuses it.
import type { Queryable } from '../../db/db.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';

export interface PlaceWords {
  /** a name or id; each narrows the search */
  organization?: string | undefined;
  project?: string | undefined;
  environment?: string | undefined;
}

export interface Place {
  organization_id: string; organization_name: string; project_id: string; project_name: string;
  environment_id: string; environment_name: string;
}
export interface ServicePlace extends Place { service_id: string; service_name: string; service_type: string }

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
function narrow(words: Array<[string, string | undefined]>, params: unknown[]): string {
  return words.filter(([, w]) => w !== undefined && w !== '').map(([alias, w]) => {
    params.push(w);
    const n = params.length;
    return UUID.test(w!) ? ` and ${alias}.id = $${n}::uuid` : ` and lower(${alias}.name) = lower($${n})`;
  }).join('');
}

const PLACE_COLUMNS = `o.id as organization_id, o.name as organization_name, p.id as project_id, p.name as project_name,
  e.id as environment_id, e.name as environment_name`;
const PLACE_JOINS = 'environments e join projects p on p.id = e.project_id join organizations o on o.id = e.organization_id';

function describe(c: Place): string {
  return `${c.organization_name} / ${c.project_name} / ${c.environment_name}`;
}

function one<T extends Place>(found: T[], what: string, label: (c: T) => string): T {
  if (found.length === 1) return found[0]!;
  if (found.length === 0) throw notFound(what);
  const shown = found.slice(0, 10).map(label).join('; ');
  throw badRequest(`"${what}" is ambiguous: ${found.length} match (${shown}${found.length > 10 ? '; …' : ''}); name the project or environment, or give an id`);
}

/** the environment the words name */
export async function findEnvironment(db: Queryable, p: Principal, words: PlaceWords & { environment: string }): Promise<Place> {
  if (UUID.test(words.environment)) {
    const rows = await db.query<Place>(`select ${PLACE_COLUMNS} from ${PLACE_JOINS} where e.id = $1::uuid`, [words.environment]);
    return one(rows, `Environment ${words.environment}`, describe);
  }
  const r = reach(p);
  const params = [...r.params];
  const where = narrow([['o', words.organization], ['p', words.project], ['e', words.environment]], params);
  const rows = await db.query<Place>(`select ${PLACE_COLUMNS} from ${PLACE_JOINS} where ${r.sql}${where} order by o.name, p.name, e.name limit 50`, params);
  return one(rows, `Environment ${words.environment}`, describe);
}

/** the project the words name */
export async function findProject(db: Queryable, p: Principal, words: { organization?: string | undefined; project: string }): Promise<{ organization_id: string; project_id: string }> {
  const r = reach(p);
  const params = [...r.params];
  const where = narrow([['o', words.organization], ['p', words.project]], params);
  // projects without an environment are found too (a left join from projects)
  const rows = await db.query<Place>(`select distinct o.id as organization_id, o.name as organization_name, p.id as project_id, p.name as project_name,
      null as environment_id, '' as environment_name
    from projects p join organizations o on o.id = p.organization_id left join environments e on e.project_id = p.id
    where ${r.sql}${where} order by o.name, p.name limit 50`, params);
  const found = one(rows, `Project ${words.project}`, (c) => `${c.organization_name} / ${c.project_name}`);
  return { organization_id: found.organization_id, project_id: found.project_id };
}

/** the organization the word names (every one the caller reads when it is the only one) */
export async function findOrganization(db: Queryable, p: Principal, word: string | undefined): Promise<{ id: string; name: string }> {
  const params: unknown[] = [];
  const mine = p.kind === 'token' ? (params.push(p.organizationId), 'o.id = $1')
    : (params.push(p.id), 'o.id in (select organization_id from memberships where user_id = $1)');
  const where = narrow([['o', word]], params);
  const rows = await db.query<{ id: string; name: string }>(`select o.id, o.name from organizations o where ${mine}${where} order by o.name limit 50`, params);
  if (rows.length === 1) return rows[0]!;
  if (rows.length === 0) throw notFound(word ? `Organization ${word}` : 'Organization');
  throw badRequest(`Name the organization: you are a member of ${rows.map((o) => o.name).join(', ')}`);
}

/** the service the words name (by id, or by name narrowed by the place words) */
export async function findService(db: Queryable, p: Principal, words: PlaceWords & { service: string }): Promise<ServicePlace> {
  if (UUID.test(words.service)) {
    const rows = await db.query<ServicePlace>(`select ${PLACE_COLUMNS}, s.id as service_id, s.name as service_name, s.type as service_type
      from services s join environments e on e.id = s.environment_id join projects p on p.id = e.project_id
        join organizations o on o.id = e.organization_id where s.id = $1::uuid`, [words.service]);
    return one(rows, `Service ${words.service}`, (c) => c.service_name);
  }
  const r = reach(p);
  const params = [...r.params];
  const where = narrow([['o', words.organization], ['p', words.project], ['e', words.environment], ['s', words.service]], params);
  const rows = await db.query<ServicePlace>(`select ${PLACE_COLUMNS}, s.id as service_id, s.name as service_name, s.type as service_type
    from services s join environments e on e.id = s.environment_id join projects p on p.id = e.project_id
      join organizations o on o.id = e.organization_id where ${r.sql}${where}
    order by o.name, p.name, e.name, s.name limit 50`, params);
  return one(rows, `Service ${words.service}`, (c) => `${c.service_name} in ${describe(c)}`);
}
