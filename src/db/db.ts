// The one database interface the rest of berth sees, over PostgreSQL (`pg` pool) and embedded
// PGlite alike: parameterised queries returning rows, transactions, multi-statement exec.
// Driver errors are translated here, once (see errors.ts). openDb picks the database: DATABASE_URL,
// else the embedded one of EMBEDDED_DATABASE (embedded-postgres.ts or pglite.ts).

import type { ConstraintMessages } from './errors.ts';
import type { Db } from './types.ts';

// the types live in a leaf (types.ts) that the drivers import; everyone else imports them from here
export type { Db, Queryable } from './types.ts';

export interface OpenDbOptions {
  databaseUrl?: string;
  /** a directory, or 'memory://' (always PGlite) */
  dataDir: string;
  poolSize?: number;
  /** which embedded database when there is no databaseUrl (EMBEDDED_DATABASE); unset: the one
   * dataDir holds, else the default (embedded-kind.ts) */
  embedded?: 'postgres' | 'pglite';
  onLog?: (line: string) => void;
  /** the messages of violated constraints (errors.ts: the app's are src/modules/constraints.ts); unset: none */
  constraints?: ConstraintMessages;
}

/** DATABASE_URL: that server. Else an embedded one in dataDir: PostgreSQL run by berth (its
 * close() also stops the server, after the pool) or PGlite. */
export async function openDb(options: OpenDbOptions): Promise<Db> {
  if (options.databaseUrl) {
    const { openPostgres } = await import('./postgres.ts');
    return openPostgres(options.databaseUrl, options.poolSize ?? 10, options.constraints);
  }
  const { resolveEmbeddedKind } = await import('./embedded-kind.ts');
  const kind = options.dataDir === 'memory://' ? 'pglite' : resolveEmbeddedKind(options.dataDir, options.embedded);
  if (kind === 'postgres') {
    const { startEmbeddedPostgres } = await import('./embedded-postgres.ts');
    const { openPostgres } = await import('./postgres.ts');
    const server = await startEmbeddedPostgres(options.dataDir, { onLog: options.onLog });
    let db: Db;
    try {
      db = await openPostgres(server.url, options.poolSize ?? 10, options.constraints);
    } catch (err) {
      await server.stop();
      throw err;
    }
    return {
      ...db,
      async close() {
        try {
          await db.close();
        } finally {
          await server.stop();
        }
      },
    };
  }
  const { openPglite } = await import('./pglite.ts');
  return openPglite(options.dataDir, { constraints: options.constraints });
}
