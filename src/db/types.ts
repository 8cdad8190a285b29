// The types of the one database interface (Db, Queryable, Row, NativeHandle), in a leaf of their
// own: the drivers (pglite.ts, postgres.ts) and commit-hooks.ts implement them and db.ts, which
// opens those drivers, re-exports them, so the rest of berth imports them from db.ts as before.

type Row = Record<string, unknown>;

export interface Queryable {
  /** one parameterised statement; returns its rows */
  query<R = Row>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** several statements without parameters (migrations) */
  exec(sql: string): Promise<void>;
  /** in a transaction only: `fn` runs once it has committed (never when it rolls back) */
  afterCommit?(fn: () => void): void;
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

type NativeHandle =
  | { kind: 'pglite'; pglite: import('@electric-sql/pglite').PGlite }
  | { kind: 'postgres'; connectionString: string };
