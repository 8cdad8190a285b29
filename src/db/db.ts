// The one database interface the rest of berth sees, over PostgreSQL (`pg` pool) and embedded
// PGlite alike: parameterised queries returning rows, transactions, multi-statement exec.
// Driver errors are translated here, once (see errors.ts).

export type Row = Record<string, unknown>;

export interface Queryable {
  /** one parameterised statement; returns its rows */
  query<R = Row>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** several statements without parameters (migrations) */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** runs fn in one transaction; commits when it resolves, rolls back when it throws.
   * Never await network or timers inside: on PGlite a transaction holds the whole database. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** the driver underneath, for the task queue's own connection */
  readonly native: NativeHandle;
}

export type NativeHandle =
  | { kind: 'pglite'; pglite: import('@electric-sql/pglite').PGlite }
  | { kind: 'postgres'; connectionString: string };

export async function openDb(options: { databaseUrl?: string; dataDir: string; poolSize?: number }): Promise<Db> {
  if (options.databaseUrl) {
    const { openPostgres } = await import('./postgres.ts');
    return openPostgres(options.databaseUrl, options.poolSize ?? 10);
  }
  const { openPglite } = await import('./pglite.ts');
  return openPglite(options.dataDir);
}
