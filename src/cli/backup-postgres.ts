// Backups of the embedded PostgreSQL store (EMBEDDED_DATABASE=postgres): `berth backup` takes the
// DATA_DIR lock (berth must be stopped), stops a server a killed berth may have left running, and
// writes DATA_DIR/postgres and its password file as a gzipped tarball: a file copy of a stopped
// cluster, which PostgreSQL starts from as it is. `berth restore` unpacks one into a DATA_DIR with
// no database, then starts the server once and applies migrations. File owners are kept (as root,
// tar restores them), so the server runs as the same identity as before (decision 0703).
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import tar from 'tar-fs';
import { embeddedPaths, startEmbeddedPostgres, stopOrphan } from '../db/embedded-postgres.ts';
import { openPostgres } from '../db/postgres.ts';
import { migrate } from '../db/migrate.ts';

/** the archive is not an embedded PostgreSQL backup (a PGlite one, or something else) */
export class NotAPostgresBackup extends Error {}

export async function backupEmbeddedPostgres(dataDir: string, file: string): Promise<void> {
  const paths = embeddedPaths(dataDir);
  if (!existsSync(join(paths.pgdata, 'PG_VERSION'))) throw new Error(`${paths.pgdata} holds no embedded PostgreSQL database`);
  await stopOrphan(paths.pgdata);
  await pipeline(
    tar.pack(resolve(dataDir), { entries: ['postgres', 'postgres-password'], ignore: (name) => name.endsWith('postmaster.pid') }),
    createGzip(),
    createWriteStream(file, { mode: 0o600 }),
  );
}

export async function restoreEmbeddedPostgres(dataDir: string, file: string): Promise<void> {
  const dir = resolve(dataDir);
  const paths = embeddedPaths(dir);
  const staging = join(dir, `.restore-${process.pid}`);
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  try {
    await pipeline(createReadStream(file), createGunzip(), tar.extract(staging));
    if (!existsSync(join(staging, 'postgres', 'PG_VERSION')) || !existsSync(join(staging, 'postgres-password'))) {
      throw new NotAPostgresBackup(`${file} is not a backup of an embedded PostgreSQL store (a PGlite one restores with EMBEDDED_DATABASE=pglite)`);
    }
    renameSync(join(staging, 'postgres'), paths.pgdata);
    renameSync(join(staging, 'postgres-password'), paths.passwordFile);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const server = await startEmbeddedPostgres(dir);
  try {
    const db = await openPostgres(server.url, 2);
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
  } finally {
    await server.stop();
  }
}
