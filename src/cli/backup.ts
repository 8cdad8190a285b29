// Backups of the embedded store: `berth backup --out FILE` writes the whole PGlite data
// directory (or, with EMBEDDED_DATABASE=postgres, the embedded server's: backup-postgres.ts) as a gzipped tarball (taking the DATA_DIR lock, so the server must be stopped);
// `berth restore --from FILE` loads one into an empty DATA_DIR. The encryption key is not in
// the tarball: keep DATA_DIR/encryption-key (or ENCRYPTION_KEY) with the backup.
// PostgreSQL deployments use pg_dump / pg_restore (docs/operations.md).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config/config.ts';
import { acquireDataDirLock } from '../db/lock.ts';
import { migrate } from '../db/migrate.ts';
import { openPglite } from '../db/pglite.ts';
import { checkEmbeddedKind, resolveEmbeddedKind } from '../db/embedded-kind.ts';
import { backupEmbeddedPostgres, NotAPostgresBackup, restoreEmbeddedPostgres } from './backup-postgres.ts';

function embeddedOnly(config: Config, command: string): void {
  if (config.databaseUrl) throw new Error(`${command} is for the embedded store; with DATABASE_URL use pg_dump / pg_restore`);
}

export async function backup(config: Config, file: string): Promise<void> {
  embeddedOnly(config, 'backup');
  const kind = resolveEmbeddedKind(config.dataDir, config.embeddedDatabase);
  const lock = acquireDataDirLock(config.dataDir);
  try {
    if (kind === 'postgres') {
      await backupEmbeddedPostgres(config.dataDir, file);
      process.stderr.write(`backup written to ${file}; keep ${join(resolve(config.dataDir), 'encryption-key')} (or ENCRYPTION_KEY) with it\n`);
      return;
    }
    const db = await openPglite(config.dataDir);
    try {
      if (db.native.kind !== 'pglite') throw new Error('not an embedded database');
      const dump = await db.native.pglite.dumpDataDir('gzip');
      writeFileSync(file, Buffer.from(await dump.arrayBuffer()), { mode: 0o600 });
    } finally {
      await db.close();
    }
  } finally {
    lock.release();
  }
  process.stderr.write(`backup written to ${file}; keep ${join(resolve(config.dataDir), 'encryption-key')} (or ENCRYPTION_KEY) with it\n`);
}

export async function restore(config: Config, file: string): Promise<void> {
  embeddedOnly(config, 'restore');
  if (config.embeddedDatabase === 'postgres') return restorePostgres(config, file);
  if (config.embeddedDatabase === undefined) {
    // unset: the archive says which store it is (a PGlite backup from before the default changed)
    try {
      return await restorePostgres(config, file);
    } catch (err) {
      if (!(err instanceof NotAPostgresBackup)) throw err;
    }
  }
  const pgdata = join(resolve(config.dataDir), 'pgdata');
  if (existsSync(pgdata) && readdirSync(pgdata).length > 0) {
    throw new Error(`${pgdata} is not empty; restore into a new DATA_DIR`);
  }
  const lock = acquireDataDirLock(config.dataDir);
  try {
    const db = await openPglite(config.dataDir, { loadDataDir: new Blob([readFileSync(file)]) });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
  } finally {
    lock.release();
  }
  process.stderr.write(`restored ${file} into ${pgdata}; put the backup's encryption key in place before starting\n`);
}

async function restorePostgres(config: Config, file: string): Promise<void> {
  const dir = resolve(config.dataDir);
  if (existsSync(join(dir, 'postgres')) && readdirSync(join(dir, 'postgres')).length > 0) {
    throw new Error(`${join(dir, 'postgres')} is not empty; restore into a new DATA_DIR`);
  }
  checkEmbeddedKind(dir, 'postgres');
  const lock = acquireDataDirLock(dir);
  try {
    await restoreEmbeddedPostgres(dir, file);
  } finally {
    lock.release();
  }
  process.stderr.write(`restored ${file} into ${join(dir, 'postgres')}; put the backup's encryption key in place before starting\n`);
}
