// Names or ids: a caller (a person through an AI assistant, a CLI user) says `storefront` in
// `staging` of `shop`; this finds what they mean among what they may read — one match, 404 with
// what was looked for, or 400 listing the candidates when the words fit several. An id is taken
// as it is, wherever it lives: authorization of the match is the services' (scope.service /
// scope.environment), so another organization's id is refused exactly as the REST API refuses it.
import type { Queryable } from '../../db/db.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import * as repo from './scope.repo.ts';
import type { Place, ServicePlace } from './scope.repo.ts';

export interface PlaceWords {
  /** a name or id; each narrows the search */
  organization?: string | undefined;
  project?: string | undefined;
  environment?: string | undefined;
}

export type { ServicePlace } from './scope.repo.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
  const rows = UUID.test(words.environment) ? await repo.placesOfEnvironmentId(db, words.environment)
    : await repo.placesOfEnvironments(db, p, [['o', words.organization], ['p', words.project], ['e', words.environment]]);
  return one(rows, `Environment ${words.environment}`, describe);
}

/** the project the words name */
export async function findProject(db: Queryable, p: Principal, words: { organization?: string | undefined; project: string }): Promise<{ organization_id: string; project_id: string }> {
  const rows = await repo.placesOfProjects(db, p, [['o', words.organization], ['p', words.project]]);
  const found = one(rows, `Project ${words.project}`, (c) => `${c.organization_name} / ${c.project_name}`);
  return { organization_id: found.organization_id, project_id: found.project_id };
}

/** the organization the word names (every one the caller reads when it is the only one) */
export async function findOrganization(db: Queryable, p: Principal, word: string | undefined): Promise<{ id: string; name: string }> {
  const rows = await repo.organizationsNamed(db, p, word);
  if (rows.length === 1) return rows[0]!;
  if (rows.length === 0) throw notFound(word ? `Organization ${word}` : 'Organization');
  throw badRequest(`Name the organization: you are a member of ${rows.map((o) => o.name).join(', ')}`);
}

/** the service the words name (by id, or by name narrowed by the place words) */
export async function findService(db: Queryable, p: Principal, words: PlaceWords & { service: string }): Promise<ServicePlace> {
  if (UUID.test(words.service)) return one(await repo.placesOfServiceId(db, words.service), `Service ${words.service}`, (c) => c.service_name);
  const rows = await repo.placesOfServices(db, p, [['o', words.organization], ['p', words.project], ['e', words.environment], ['s', words.service]]);
  return one(rows, `Service ${words.service}`, (c) => `${c.service_name} in ${describe(c)}`);
}
