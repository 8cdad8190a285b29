// The test database: one per test process. Embedded: an in-memory PGlite, migrated once.
// With DATABASE_URL: a fresh database created on that server (named with the run's prefix, so
// test/run.ts drops every one of them when the run ends), so concurrent runs never meet.
// With BERTH_TEST_EMBEDDED=postgres (and no DATABASE_URL): one embedded PostgreSQL server for the
// test process (src/db/embedded-postgres.ts) in BERTH_TEST_EMBEDDED_DIR (test/run.ts makes it and
// removes it after the run) or a temp dir, and the database is made there as on DATABASE_URL; the
// server stops by itself when the test process exits (its watchdog).
import pg from 'pg';
import type { Db } from '../../src/db/db.ts';
import { openDb } from '../../src/db/db.ts';
import { migrate } from '../../src/db/migrate.ts';
import { CONSTRAINT_MESSAGES } from '../../src/modules/constraints.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let shared: Promise<{ db: Db; url: string | undefined }> | undefined;

const DB_PREFIX = process.env.BERTH_TEST_DB_PREFIX ?? `berth_test_${process.pid}`;

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

let embeddedAdmin: Promise<string> | undefined;

/** the admin URL of the test process's embedded PostgreSQL server (started on first use) */
function embeddedPostgresAdminUrl(): Promise<string> {
  embeddedAdmin ??= (async () => {
    const { startEmbeddedPostgres } = await import('../../src/db/embedded-postgres.ts');
    const dir = process.env.BERTH_TEST_EMBEDDED_DIR ?? mkdtempSync(join(tmpdir(), 'berth-test-epg-'));
    return (await startEmbeddedPostgres(dir)).adminUrl;
  })();
  return embeddedAdmin;
}

/** the PostgreSQL server tests run on: DATABASE_URL, or the embedded one with BERTH_TEST_EMBEDDED=postgres */
async function adminDatabaseUrl(): Promise<string | undefined> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  if (process.env.BERTH_TEST_EMBEDDED === 'postgres') return embeddedPostgresAdminUrl();
  return undefined;
}

/** the process's test database, migrated; `url` is set when it is a PostgreSQL server */
export function testDatabase(): Promise<{ db: Db; url: string | undefined }> {
  shared ??= (async () => {
    const adminUrl = await adminDatabaseUrl();
    const url = adminUrl ? await createDatabase(adminUrl) : undefined;
    const db = await openDb({ databaseUrl: url, dataDir: 'memory://', poolSize: 10, constraints: CONSTRAINT_MESSAGES });
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
