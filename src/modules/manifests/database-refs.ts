// Variables from a database's credentials (`KEY: { from_database: { name, property } }`, decision
// 0745): before the plan, every reference is checked (the database is one of the same environment,
// named by the file or existing) and, when the database exists, resolved to its value; a database
// the same apply creates is resolved when its variable's step runs (the plan puts those steps after
// the environment's services). HOST and PORT are the address on the environment's network; USER,
// PASSWORD and URL are secrets, and writing one (a create or a change) needs the role that may read
// master credentials (0142: ADMIN): the service's code could print it. Comparing them (a plan, an
// unchanged secret) shows no value and needs read, as for every other secret of the plan.
import type { Sealer } from '../../lib/crypto.ts';
import type { Principal } from '../access/principal.ts';
import { hydrateDatabaseSpec, openCredentials } from '../services/databases/database.handler.ts';
import type { DatabaseType } from '../services/databases/database.rules.ts';
import type { Credentials } from '../services/databases/database.schemas.ts';
import {
  SECRET_DATABASE_PROPERTIES, SERVICE_KINDS, type DatabaseProperty, type DatabaseReference, type ManifestDoc, type ManifestProblem, type VariableValue,
} from './manifest.schemas.ts';
import { located } from './located.ts';
import type { CurrentState, DatabaseRef } from './manifests.rules.ts';
import type { ManifestServices } from './state.ts';

const isDatabaseRef = (v: VariableValue | undefined): v is DatabaseReference => typeof v === 'object' && v !== null && 'from_database' in v;
const isSecretProperty = (p: DatabaseProperty) => SECRET_DATABASE_PROPERTIES.includes(p);

/** the database each engine creates for the master user (src/engine/docker/databases.ts): a URL names it */
const URL_OF: Record<DatabaseType, (user: string, password: string, host: string, port: number) => string> = {
  POSTGRESQL: (u, pw, h, p) => `postgresql://${u}:${pw}@${h}:${p}/postgres`,
  MYSQL: (u, pw, h, p) => `mysql://${u}:${pw}@${h}:${p}/berth`,
  MONGODB: (u, pw, h, p) => `mongodb://${u}:${pw}@${h}:${p}/?authSource=admin`,
  REDIS: (u, pw, h, p) => `redis://${u}:${pw}@${h}:${p}`,
};

/** one property of a database's credentials as the variable's value */
function propertyValue(type: DatabaseType, c: Credentials, property: DatabaseProperty): string {
  switch (property) {
    case 'HOST': return c.host;
    case 'PORT': return String(c.port);
    case 'USER': return c.login;
    case 'PASSWORD': return c.password;
    case 'URL': return URL_OF[type](encodeURIComponent(c.login), encodeURIComponent(c.password), c.host, c.port);
  }
}

/** the value of `property` of the database `id`, authorized as the REST routes would (a secret property: manage, else read) */
export async function databaseValue(s: ManifestServices, sealer: Sealer, p: Principal, id: string, property: DatabaseProperty, action: 'read' | 'manage'): Promise<string> {
  const { row } = await s.services.authorizedRow(p, id, 'DATABASE', 'Database', action);
  return propertyValue(hydrateDatabaseSpec(row.spec).type, openCredentials(row, sealer), property);
}

export interface ResolvedRefs { refs: Map<string, DatabaseRef>; problems: Array<{ path: string; message: string }> }

/** every reference of the document, keyed by its path (`environments.staging.applications.web.variables.DB_URL`) */
export async function resolveDatabaseRefs(s: ManifestServices, sealer: Sealer, p: Principal, doc: ManifestDoc, state: CurrentState,
  locate: (path: string) => ManifestProblem): Promise<ResolvedRefs> {
  const refs = new Map<string, DatabaseRef>();
  const problems: ResolvedRefs['problems'] = [];
  for (const [envName, env] of Object.entries(doc.environments ?? {})) {
    const current = state.environments.find((e) => e.name.toLowerCase() === envName.toLowerCase());
    const named = new Set(Object.keys(env.databases ?? {}).map((n) => n.toLowerCase()));
    const owners: Array<[string, Record<string, VariableValue> | undefined]> = [[`environments.${envName}`, env.variables]];
    for (const kind of SERVICE_KINDS) {
      for (const [name, entry] of Object.entries(env[kind] ?? {})) owners.push([`environments.${envName}.${kind}.${name}`, entry.variables]);
    }
    for (const [ownerPath, variables] of owners) {
      for (const [key, value] of Object.entries(variables ?? {})) {
        if (!isDatabaseRef(value)) continue;
        const path = `${ownerPath}.variables.${key}`;
        const { name, property } = value.from_database;
        const existing = current?.services.find((x) => x.name.toLowerCase() === name.toLowerCase());
        const kind = existing?.kind ?? SERVICE_KINDS.find((k) => Object.keys(env[k] ?? {}).some((n) => n.toLowerCase() === name.toLowerCase()));
        if (kind && kind !== 'databases') {
          problems.push({ path: `${path}.from_database.name`, message: `${path}: ${name} is not a database (a ${kind.slice(0, -1)})` });
          continue;
        }
        if (!existing && !named.has(name.toLowerCase())) {
          problems.push({ path: `${path}.from_database.name`, message: `${path}: no database named "${name}" in environment ${envName} (this file's databases, or one it already has)` });
          continue;
        }
        const secret = isSecretProperty(property);
        let resolved: string | null = null;
        try {
          if (existing) resolved = await databaseValue(s, sealer, p, existing.id, property, 'read');
        } catch (err) {
          throw located(locate, path, err);
        }
        refs.set(path, { name, property, secret, databaseId: existing?.id ?? null, value: resolved });
      }
    }
  }
  return { refs, problems };
}
