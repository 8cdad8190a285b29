// What runs a backup, a restore and a drill in the background (tasks backups.take, backups.restore,
// backups.drill; decision 0735). A backup streams the engine's native dump through compression
// and encryption into the organization's store, never whole in memory, then reads the stored
// object back and checks its SHA-256; only then is it SUCCEEDED. Anything that breaks makes it
// FAILED (its object removed), raises BACKUP_FAILED and a notification; a heartbeat lets the
// minute visit fail a backup whose worker died.
import { PassThrough, type Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Db } from '../../db/db.ts';
import type { DatabaseBackups, DriverService } from '../../engine/index.ts';
import { digest, openArchive, sealArchive } from './archive.ts';
import * as repo from './backups.repo.ts';
import type { BackupEvents } from './events.ts';
import type { OrganizationStore, Stores } from './stores.ts';

export interface RunnerDeps {
  db: Db;
  stores: Stores;
  /** the engine's dumps; null: this engine cannot take them */
  engine: () => DatabaseBackups | null;
  /** the database as the engine needs it (its plan: credentials, image) */
  driverService(databaseId: string): Promise<DriverService | null>;
  events: BackupEvents;
  heartbeatMs?: number;
}

export interface BackupRunner {
  take(backupId: string, signal: AbortSignal): Promise<repo.BackupRow | null>;
  drill(backupId: string, signal: AbortSignal): Promise<void>;
  /** streams the native dump of a successful backup (decrypted, decompressed) */
  read(backup: repo.BackupRow): Promise<Readable>;
  /** feeds a successful backup into a database through the engine */
  restoreInto(backup: repo.BackupRow, databaseId: string, signal: AbortSignal): Promise<void>;
}

/** both sides of a stream copy: the first failure aborts the other, and is the one thrown */
async function copy(run: (signal: AbortSignal) => [Promise<unknown>, Promise<unknown>], outer: AbortSignal): Promise<void> {
  const ac = new AbortController();
  const onAbort = () => ac.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  try {
    const sides = run(ac.signal);
    let first: unknown = null;
    await Promise.all(sides.map((p) => p.catch((err: unknown) => { first ??= err; ac.abort(err); })));
    if (first) throw first;
  } finally {
    outer.removeEventListener('abort', onAbort);
  }
}

export function createBackupRunner(deps: RunnerDeps): BackupRunner {
  const { db, stores } = deps;

  function engine(): DatabaseBackups {
    const e = deps.engine();
    if (!e) throw new Error('this engine cannot take database dumps');
    return e;
  }

  async function target(databaseId: string): Promise<DriverService> {
    const s = await deps.driverService(databaseId);
    if (!s) throw new Error('the database no longer exists');
    return s;
  }

  async function opened(backup: repo.BackupRow, at: OrganizationStore): Promise<Readable> {
    const source = await at.store.get(backup.object_key);
    const plain: Transform = openArchive(at.key);
    source.on('error', (err) => plain.destroy(err));
    return source.pipe(plain);
  }

  async function verify(at: OrganizationStore, key: string, expected: { sha256: string; size: number }): Promise<void> {
    const tap = digest();
    await pipeline(await at.store.get(key), tap.stream, new PassThrough().resume());
    const got = tap.result();
    if (got.sha256 !== expected.sha256 || got.size !== expected.size) {
      throw new Error(`the stored object does not match what was written (read back ${got.size} bytes, sha256 ${got.sha256.slice(0, 12)}…; wrote ${expected.size} bytes, ${expected.sha256.slice(0, 12)}…)`);
    }
  }

  async function fail(backup: repo.BackupRow, err: unknown, at: OrganizationStore | null): Promise<void> {
    const message = (err as Error)?.message ?? String(err);
    const failed = await repo.failBackup(db, backup.id, message);
    await at?.store.remove(backup.object_key).catch(() => undefined);
    if (failed) await deps.events.backupFailed(failed);
  }

  return {
    async take(backupId, signal) {
      const backup = await repo.findBackup(db, backupId);
      if (!backup) return null;
      if (!await repo.startBackup(db, backupId)) {
        // an earlier attempt of this task started it and is gone (berth stopped): it failed
        if (backup.status === 'RUNNING') await fail(backup, new Error('berth stopped while the backup ran'), null);
        return repo.findBackup(db, backupId);
      }
      const beat = setInterval(() => { repo.beat(db, backupId).catch(() => undefined); }, deps.heartbeatMs ?? 15_000);
      let at: OrganizationStore | null = null;
      try {
        at = await stores.holding(backup);
        const store = at;
        const dump = await engine().dump(await target(backup.database_id), signal);
        const tap = digest();
        const body = new PassThrough();
        await copy((inner) => [
          pipeline(dump, sealArchive(store.key), tap.stream, body, { signal: inner }),
          store.store.put(backup.object_key, body, inner),
        ], signal);
        const written = tap.result();
        await verify(store, backup.object_key, written);
        if (!await repo.succeedBackup(db, backupId, { size: written.size, checksum: written.sha256 })) {
          await store.store.remove(backup.object_key); // deleted (or failed by the visit) meanwhile
          return repo.findBackup(db, backupId);
        }
        const done = (await repo.findBackup(db, backupId))!;
        await deps.events.backupSucceeded(done);
        return done;
      } catch (err) {
        await fail(backup, err, at);
        return repo.findBackup(db, backupId);
      } finally {
        clearInterval(beat);
      }
    },

    async drill(backupId, signal) {
      const backup = await repo.findBackup(db, backupId);
      if (!backup || backup.status !== 'SUCCEEDED') return;
      try {
        const at = await stores.holding(backup);
        const report = await engine().drill(await target(backup.database_id), await opened(backup, at), signal);
        await repo.recordDrill(db, backupId, { counts: report.counts, error: null });
        await deps.events.drillSucceeded(backup);
      } catch (err) {
        const message = (err as Error)?.message ?? String(err);
        await repo.recordDrill(db, backupId, { counts: null, error: message });
        await deps.events.drillFailed(backup, message);
      }
    },

    async read(backup) {
      return opened(backup, await stores.holding(backup));
    },

    async restoreInto(backup, databaseId, signal) {
      const at = await stores.holding(backup);
      await engine().restore(await target(databaseId), await opened(backup, at), signal);
    },
  };
}
