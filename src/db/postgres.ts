// PostgreSQL driver: a `pg` pool. Statements with parameters are named (prepared once per
// connection, their result's shape learnt once: pg-statement.ts) since the API's statements are
// static texts; int8 is parsed to number, timestamptz by timestamps.ts.
import pg from 'pg';
import type { Db, Queryable } from './types.ts';
import { withCommitHooks } from './commit-hooks.ts';
import { NO_CONSTRAINT_MESSAGES, translateDbError, type ConstraintMessages } from './errors.ts';
import { runNamed } from './pg-statement.ts';
import { timestamptzReader } from './timestamps.ts';

pg.types.setTypeParser(20, (v: string) => Number(v));
/** the timestamptz reader pg ships (postgres-date), for the shapes timestamps.ts leaves to it */
export const shippedTimestamptzReader = pg.types.getTypeParser(1184) as (text: string) => Date;
pg.types.setTypeParser(1184, timestamptzReader(shippedTimestamptzReader));

function queryable(client: pg.Pool | pg.PoolClient, constraints: ConstraintMessages): Queryable {
  return {
    async query<R>(text: string, params?: readonly unknown[]): Promise<R[]> {
      try {
        if (params && params.length > 0) return await runNamed<R>(client, text, params as unknown[]);
        return (await client.query(text)).rows as R[];
      } catch (err) {
        throw translateDbError(err, constraints);
      }
    },
    async exec(sql: string): Promise<void> {
      try {
        await client.query(sql);
      } catch (err) {
        throw translateDbError(err, constraints);
      }
    },
  };
}

/** `constraints`: the messages of violated constraints (errors.ts) */
export async function openPostgres(connectionString: string, max: number, constraints: ConstraintMessages = NO_CONSTRAINT_MESSAGES): Promise<Db> {
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30_000 });
  // a lost connection must not crash the process; requests fail with 503 and the pool reconnects
  pool.on('error', () => {});
  const base = queryable(pool, constraints);
  return {
    kind: 'postgres',
    native: { kind: 'postgres', connectionString },
    query: base.query,
    async transaction(fn) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw translateDbError(err, constraints);
      }
      try {
        await client.query('BEGIN');
        const { tx, committed } = withCommitHooks(queryable(client, constraints));
        const result = await fn(tx);
        await client.query('COMMIT');
        committed();
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw translateDbError(err, constraints);
      } finally {
        client.release();
      }
    },
    exec: base.exec,
    async ping() {
      await base.query('select 1');
    },
    async close() {
      await pool.end();
    },
  };
}
