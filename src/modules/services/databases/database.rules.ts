// Pure rules of databases: the supported major versions per type and mode (qovery-facts §2.7,
// engine validation 2025-08), default memory per type and mode, the default port, and the
// instance_type rule (MANAGED only).
import { badRequest } from '../../../lib/errors.ts';

export const DATABASE_TYPES = ['POSTGRESQL', 'MYSQL', 'MONGODB', 'REDIS'] as const;
export type DatabaseType = (typeof DATABASE_TYPES)[number];
export const DATABASE_MODES = ['CONTAINER', 'MANAGED'] as const;
export type DatabaseMode = (typeof DATABASE_MODES)[number];

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

const SUPPORTED_MAJOR_VERSIONS: Readonly<Record<DatabaseMode, Readonly<Record<DatabaseType, readonly number[]>>>> = {
  CONTAINER: { POSTGRESQL: range(10, 17), MYSQL: [5, 8], MONGODB: range(4, 8), REDIS: range(5, 7) },
  MANAGED: { POSTGRESQL: range(11, 17), MYSQL: [5, 8], MONGODB: [4, 5], REDIS: range(5, 7) },
};

const VERSION = /^(\d+)(\.\d+){0,2}$/;

/** null when supported, else the 400 message */
export function versionProblem(type: DatabaseType, mode: DatabaseMode, version: string): string | null {
  const m = VERSION.exec(version);
  if (!m) return `version "${version}" is not a version number (e.g. 16 or 8.0)`;
  const supported = SUPPORTED_MAJOR_VERSIONS[mode][type];
  if (!supported.includes(Number(m[1]))) {
    return `version ${version} is not supported for ${type} in ${mode} mode (supported major versions: ${supported.join(', ')})`;
  }
  return null;
}

export function checkVersion(type: DatabaseType, mode: DatabaseMode, version: string): void {
  const problem = versionProblem(type, mode, version);
  if (problem) throw badRequest(problem);
}

export function defaultMemory(type: DatabaseType, mode: DatabaseMode): number {
  if (mode === 'MANAGED') return 100;
  return { POSTGRESQL: 100, REDIS: 100, MYSQL: 512, MONGODB: 256 }[type];
}

export function defaultPort(type: DatabaseType): number {
  return { POSTGRESQL: 5432, MYSQL: 3306, MONGODB: 27017, REDIS: 6379 }[type];
}

export function checkInstanceType(mode: DatabaseMode, instanceType: string | null): void {
  if (mode === 'CONTAINER' && instanceType !== null) throw badRequest('instance_type is only for MANAGED databases');
}
