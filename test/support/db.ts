// The test database: one per test process. Embedded: an in-memory PGlite, migrated once.
// With DATABASE_URL: a fresh database created on that server (named with the run's prefix, so
// test/run.ts drops every one of them when the run ends), so concurrent runs never meet.
import pg from 'pg';
import type { Db } from '../../src/db/db.ts';
import { openDb } from '../../src/db/db.ts';
import { migrate } from '../../src/db/migrate.ts';

let shared: Promise<{ db: Db; url: string | undefined }> | undefined;

export const DB_PREFIX = process.env.BERTH_TEST_DB_PREFIX ?? `berth_test_${process.pid}`;

async function createDatabase(adminUrl: string): Promise<string> {
  const name = `${DB_PREFIX}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** drops every database this run created (called by test/run.ts) */
export async function dropRunDatabases(adminUrl: string, prefix: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const { rows } = await admin.query<{ datname: string }>('select datname from pg_database where datname like $1', [`${prefix}\\_%`]);
  for (const r of rows) await admin.query(`drop database if exists ${r.datname} with (force)`).catch(() => {});
  await admin.end();
}

/** the process's test database, migrated; `url` is set when it is a PostgreSQL server */
export function testDatabase(): Promise<{ db: Db; url: string | undefined }> {
  shared ??= (async () => {
    const adminUrl = process.env.DATABASE_URL;
    const url = adminUrl ? await createDatabase(adminUrl) : undefined;
    const db = await openDb({ databaseUrl: url, dataDir: 'memory://', poolSize: 10 });
    await migrate(db);
    return { db, url };
  })();
  return shared;
}

/** a fresh, empty database URL on the PostgreSQL server (for multi-process tests), or undefined */
export async function freshPostgresUrl(): Promise<string | undefined> {
  const adminUrl = process.env.DATABASE_URL;
  return adminUrl ? createDatabase(adminUrl) : undefined;
}
