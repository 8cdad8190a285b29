// Databases: services.spec holds {description, type, version, mode, accessibility, cpu, memory,
// storage, instance_type, annotations_groups, labels_groups, icon_uri}; services.secrets holds the
// generated master credentials, sealed: {login, password}. Host is stable per service
// (`<type>-<first 8 hex of the id>`), the port is the type's default.
import { randomBytes } from 'node:crypto';
import type { Sealer } from '../../../lib/crypto.ts';
import { conflict } from '../../../lib/errors.ts';
import { checkCapacity, definedMembers, iconFor } from '../common.rules.ts';
import { expandGroups } from '../groups/groups.service.ts';
import type { ServiceRow } from '../services.repo.ts';
import { presentBase, type ServiceTypeHandler } from '../services.service.ts';
import { checkInstanceType, checkVersion, defaultMemory, defaultPort, type DatabaseMode, type DatabaseType } from './database.rules.ts';
import type { Credentials, Database, DatabaseEditRequest, DatabaseRequest } from './database.schemas.ts';

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

export function databaseHost(row: ServiceRow): string {
  return `${hydrateDatabaseSpec(row.spec).type.toLowerCase()}-${row.id.slice(0, 8)}`;
}

/** opens the sealed master credentials of a database row */
export function openCredentials(row: ServiceRow, sealer: Sealer): Credentials {
  const spec = hydrateDatabaseSpec(row.spec);
  if (!row.secrets.login || !row.secrets.password) throw conflict('This database has no master credentials');
  return { host: databaseHost(row), port: defaultPort(spec.type), login: sealer.open(row.secrets.login!), password: sealer.open(row.secrets.password!) };
}

export const databaseHandler: ServiceTypeHandler<DatabaseRequest, DatabaseEditRequest, Database> = {
  type: 'DATABASE',
  label: 'Database',
  async build(body, { env, sealer }) {
    const spec = checked({
      description: body.description ?? null, type: body.type, version: body.version, mode: body.mode,
      accessibility: body.accessibility ?? 'PRIVATE', cpu: body.cpu ?? 250, memory: body.memory ?? defaultMemory(body.type, body.mode),
      storage: body.storage ?? 10, instance_type: body.instance_type ?? null, annotations_groups: body.annotations_groups ?? [],
      labels_groups: body.labels_groups ?? [], icon_uri: body.icon_uri ?? iconFor('DATABASE'),
    }, env.capacity);
    const credentials = generateCredentials(body.type);
    return { spec, secrets: { login: sealer.seal(credentials.login), password: sealer.seal(credentials.password) } };
  },
  async rebuild(row, body, { env }) {
    const sent = definedMembers(body) as Record<string, unknown>;
    const spec = { ...hydrateDatabaseSpec(row.spec) } as unknown as Record<string, unknown>;
    for (const key of EDITABLE) if (key in sent) spec[key] = sent[key];
    return { spec: checked(spec as unknown as DatabaseSpec, env.capacity) };
  },
  registryIds: () => [],
  present(row, { env, groups }) {
    const spec = hydrateDatabaseSpec(row.spec);
    return {
      ...presentBase(row, env), description: spec.description, icon_uri: spec.icon_uri,
      type: spec.type, version: spec.version, mode: spec.mode, accessibility: spec.accessibility,
      cpu: spec.cpu, memory: spec.memory, storage: spec.storage, instance_type: spec.instance_type,
      host: databaseHost(row), port: defaultPort(spec.type), disk_encrypted: false, ...expandGroups(spec, groups),
    };
  },
};
