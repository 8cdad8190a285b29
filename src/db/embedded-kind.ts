// Which embedded database a DATA_DIR holds: PGlite keeps its files in DATA_DIR/pgdata, embedded
// PostgreSQL in DATA_DIR/postgres. Switching EMBEDDED_DATABASE on a DATA_DIR that holds the other
// one's data would start on an empty database and look like lost data: refuse with what to do.
// With EMBEDDED_DATABASE unset, the kind DATA_DIR already holds is used (an install from before
// the default changed keeps its PGlite data), and a new DATA_DIR gets the default.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_EMBEDDED_DATABASE, type EmbeddedDatabase } from '../config/config.ts';

/** a problem with the embedded database a person can act on: printed as one line, no stack */
export class EmbeddedDatabaseError extends Error {}

function holdsData(dir: string): boolean {
  try {
    return existsSync(dir) && readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

/** the kind to open on dataDir: the configured one (checked against what is there), else the
 * one the directory holds, else the default */
export function resolveEmbeddedKind(dataDir: string, configured: EmbeddedDatabase | undefined): EmbeddedDatabase {
  if (configured) {
    checkEmbeddedKind(dataDir, configured);
    return configured;
  }
  const dir = resolve(dataDir);
  if (existsSync(join(dir, 'postgres', 'PG_VERSION'))) return 'postgres';
  if (holdsData(join(dir, 'pgdata'))) return 'pglite';
  return DEFAULT_EMBEDDED_DATABASE;
}

export function checkEmbeddedKind(dataDir: string, wanted: EmbeddedDatabase): void {
  const dir = resolve(dataDir);
  const pglite = holdsData(join(dir, 'pgdata'));
  const postgres = existsSync(join(dir, 'postgres', 'PG_VERSION'));
  if (wanted === 'postgres' && pglite && !postgres) {
    throw new EmbeddedDatabaseError(`DATA_DIR ${dir} holds a PGlite database (pgdata/), not an embedded PostgreSQL one: `
      + 'set EMBEDDED_DATABASE=pglite to keep using it, or use another DATA_DIR');
  }
  if (wanted === 'pglite' && postgres && !pglite) {
    throw new EmbeddedDatabaseError(`DATA_DIR ${dir} holds an embedded PostgreSQL database (postgres/), not a PGlite one: `
      + 'set EMBEDDED_DATABASE=postgres to keep using it, or use another DATA_DIR');
  }
}
