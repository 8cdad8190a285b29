// Which embedded database a DATA_DIR holds: PGlite keeps its files in DATA_DIR/pgdata, embedded
// PostgreSQL in DATA_DIR/postgres. Switching EMBEDDED_DATABASE on a DATA_DIR that holds the other
// one's data would start on an empty database and look like lost data: refuse with what to do.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

function holdsData(dir: string): boolean {
  try {
    return existsSync(dir) && readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

export function checkEmbeddedKind(dataDir: string, wanted: 'postgres' | 'pglite'): void {
  const dir = resolve(dataDir);
  const pglite = holdsData(join(dir, 'pgdata'));
  const postgres = existsSync(join(dir, 'postgres', 'PG_VERSION'));
  if (wanted === 'postgres' && pglite && !postgres) {
    throw new Error(`DATA_DIR ${dir} holds a PGlite database (pgdata/), not an embedded PostgreSQL one: `
      + 'set EMBEDDED_DATABASE=pglite to keep using it, or use another DATA_DIR');
  }
  if (wanted === 'pglite' && postgres && !pglite) {
    throw new Error(`DATA_DIR ${dir} holds an embedded PostgreSQL database (postgres/), not a PGlite one: `
      + 'set EMBEDDED_DATABASE=postgres to keep using it, or use another DATA_DIR');
  }
}
