// Migration runner: applies migrations/NNNN_name.sql in order, each in its own transaction,
// recording it in schema_migrations. An advisory lock serialises concurrent starters on PostgreSQL.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));
const LOCK_KEY = 727_071_001;

export interface Migration { version: string; name: string; sql: string }

function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: f.slice(0, 4), name: f.slice(5, -4), sql: readFileSync(dir + f, 'utf8') }));
}

export function latestVersion(migrations = loadMigrations()): string {
  return migrations.at(-1)?.version ?? '0000';
}

export async function migrate(db: Db, migrations = loadMigrations()): Promise<string[]> {
  await db.exec(`create table if not exists schema_migrations (
    version text primary key, name text not null, applied_at timestamptz not null default now())`);
  const applied: string[] = [];
  // a start on an up-to-date database reads the list once instead of locking per migration
  const already = new Set((await db.query<{ version: string }>('select version from schema_migrations')).map((r) => r.version));
  for (const m of migrations) {
    if (already.has(m.version)) continue;
    const done = await db.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock($1)', [LOCK_KEY]);
      const rows = await tx.query('select 1 from schema_migrations where version = $1', [m.version]);
      if (rows.length > 0) return false;
      await tx.exec(m.sql);
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [m.version, m.name]);
      return true;
    });
    if (done) applied.push(`${m.version}_${m.name}`);
  }
  return applied;
}

/** the highest applied version, or null when the table is missing */
export async function appliedVersion(db: Db): Promise<string | null> {
  const rows = await db.query<{ v: string | null }>(
    `select (select max(version) from schema_migrations) as v
      where to_regclass('schema_migrations') is not null`,
  ).catch(() => []);
  return rows[0]?.v ?? null;
}
