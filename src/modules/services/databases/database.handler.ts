// Databases: services.spec holds {description, type, version, mode, accessibility, cpu, memory,
// storage, instance_type, annotations_groups, labels_groups, icon_uri}; services.secrets holds the
// generated master credentials, sealed: {login, password}. On the environment's network the host
// is stable per service (`<type>-<first 8 hex of the id>`) and the port is the type's default; a
// PUBLIC database is shown (host, port, masterCredentials) at its public address instead: the
// ingress host and the port reserved for it (public-access.ts, decision 0333).
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../../db/db.ts';
import type { Sealer } from '../../../lib/crypto.ts';
import { conflict } from '../../../lib/errors.ts';
import { checkCapacity, definedMembers, iconFor } from '../common.rules.ts';
import { expandGroups } from '../groups/groups.service.ts';
import type { ServiceRow } from '../services.repo.ts';
import { presentBase, type ServiceTypeHandler } from '../services.service.ts';
import { checkInstanceType, checkVersion, defaultMemory, defaultPort, type DatabaseMode, type DatabaseType } from './database.rules.ts';
import type { Credentials, Database, DatabaseEditRequest, DatabaseRequest } from './database.schemas.ts';
import { publicHost, releasePublicPort, reservePublicPort, reservedPorts, type PublicAccessConfig, type ReservedPorts } from './public-access.ts';

export interface DatabaseSpec {
  description: string | null; type: DatabaseType; version: string; mode: DatabaseMode; accessibility: string;
  cpu: number; memory: number; storage: number; instance_type: string | null;
  annotations_groups: { id: string }[]; labels_groups: { id: string }[]; icon_uri: string;
}

const EDITABLE = ['description', 'version', 'accessibility', 'cpu', 'memory', 'storage', 'instance_type', 'annotations_groups', 'labels_groups', 'icon_uri'] as const;

function checked(spec: DatabaseSpec, capacity: { cpu: number; memory: number; gpu: number }): DatabaseSpec {
  checkVersion(spec.type, spec.mode, spec.version);
  checkInstanceType(spec.mode, spec.instance_type);
  checkCapacity({ cpu: spec.cpu, memory: spec.memory, gpu: 0 }, capacity);
  return spec;
}

function generateCredentials(type: DatabaseType): { login: string; password: string } {
  return {
    login: type === 'REDIS' ? 'default' : `berth_${randomBytes(4).toString('hex')}`,
    password: randomBytes(24).toString('base64url'),
  };
}

/** a stored spec completed with defaults (rows written elsewhere may lack members) */
export function hydrateDatabaseSpec(stored: Record<string, unknown>): DatabaseSpec {
  const type = (stored.type ?? 'POSTGRESQL') as DatabaseType;
  const mode = (stored.mode ?? 'CONTAINER') as DatabaseMode;
  return {
    description: null, type, version: '16', mode, accessibility: 'PRIVATE', cpu: 250, memory: defaultMemory(type, mode), storage: 10,
    instance_type: null, annotations_groups: [], labels_groups: [], icon_uri: iconFor('DATABASE'), ...stored,
  } as DatabaseSpec;
}

function databaseHost(row: ServiceRow): string {
  return `${hydrateDatabaseSpec(row.spec).type.toLowerCase()}-${row.id.slice(0, 8)}`;
}

/**
 * Where clients connect: for a PUBLIC database with its reserved port, the public address;
 * otherwise the name and port on the environment's network.
 */
function databaseAddress(row: ServiceRow, reserved: ReservedPorts, config: PublicAccessConfig): { host: string; port: number } {
  const spec = hydrateDatabaseSpec(row.spec);
  const published = spec.accessibility === 'PUBLIC' ? reserved.get(row.id) : undefined;
  return published === undefined ? { host: databaseHost(row), port: defaultPort(spec.type) } : { host: published.host ?? publicHost(config), port: published.port };
}

/** the ids of the PUBLIC databases among rows */
const publicIds = (rows: ServiceRow[]) => rows.filter((r) => hydrateDatabaseSpec(r.spec).accessibility === 'PUBLIC').map((r) => r.id);

/** the master credentials as GET /database/{id}/masterCredentials answers them: at the address clients use */
export async function presentedCredentials(db: Queryable, row: ServiceRow, sealer: Sealer, config: PublicAccessConfig): Promise<Credentials> {
  return { ...openCredentials(row, sealer), ...databaseAddress(row, await reservedPorts(db, publicIds([row])), config) };
}

/** opens the sealed master credentials of a database row, with its address on the environment's network */
export function openCredentials(row: ServiceRow, sealer: Sealer): Credentials {
  const spec = hydrateDatabaseSpec(row.spec);
  if (!row.secrets.login || !row.secrets.password) throw conflict('This database has no master credentials');
  return { host: databaseHost(row), port: defaultPort(spec.type), login: sealer.open(row.secrets.login!), password: sealer.open(row.secrets.password!) };
}

export const databaseHandler: ServiceTypeHandler<DatabaseRequest, DatabaseEditRequest, Database> = {
  type: 'DATABASE',
  label: 'Database',
  async build(body, { env, sealer, config }) {
    const spec = checked({
      description: body.description ?? null, type: body.type, version: body.version, mode: body.mode,
      accessibility: body.accessibility ?? 'PRIVATE', cpu: body.cpu ?? 250, memory: body.memory ?? defaultMemory(body.type, body.mode),
      storage: body.storage ?? 10, instance_type: body.instance_type ?? null, annotations_groups: body.annotations_groups ?? [],
      labels_groups: body.labels_groups ?? [], icon_uri: body.icon_uri ?? iconFor('DATABASE'),
    }, env.capacity);
    const credentials = generateCredentials(body.type);
    return {
      spec, secrets: { login: sealer.seal(credentials.login), password: sealer.seal(credentials.password) },
      ...(spec.accessibility === 'PUBLIC' ? { afterInsert: async (tx: Queryable, inserted: ServiceRow) => { await reservePublicPort(tx, inserted.id, config); } } : {}),
    };
  },
  async rebuild(row, body, { env, db, config }) {
    const sent = definedMembers(body) as Record<string, unknown>;
    const spec = { ...hydrateDatabaseSpec(row.spec) } as unknown as Record<string, unknown>;
    for (const key of EDITABLE) if (key in sent) spec[key] = sent[key];
    const edited = checked(spec as unknown as DatabaseSpec, env.capacity);
    // the edit's transaction: a port that cannot be reserved leaves the database as it was
    if (edited.accessibility === 'PUBLIC') await reservePublicPort(db, row.id, config);
    else await releasePublicPort(db, row.id);
    return { spec: edited };
  },
  registryIds: () => [],
  presentFacts: (db, rows) => reservedPorts(db, publicIds(rows)),
  present(row, { env, groups, config, facts }) {
    const spec = hydrateDatabaseSpec(row.spec);
    return {
      ...presentBase(row, env), description: spec.description, icon_uri: spec.icon_uri,
      type: spec.type, version: spec.version, mode: spec.mode, accessibility: spec.accessibility,
      cpu: spec.cpu, memory: spec.memory, storage: spec.storage, instance_type: spec.instance_type,
      ...databaseAddress(row, (facts as ReservedPorts | undefined) ?? new Map(), config), disk_encrypted: false, ...expandGroups(spec, groups),
    };
  },
};
