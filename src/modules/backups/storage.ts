// Where backup archives are kept (decision 0725): one BackupStore interface over a local
// directory on the berth host and any S3-compatible bucket (storage-s3.ts, loaded only when an
// S3 store is first used: the AWS SDK is large). A failed or aborted put leaves no object under
// its key; keys are relative paths checked here for both kinds.
import { randomBytes } from 'node:crypto';
import { constants as fsc, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { byteCounter, checkObjectKey, StoreObjectMissing, type BackupStore, type S3Target } from './storage-base.ts';

export { StoreObjectMissing, type BackupStore, type S3Target } from './storage-base.ts';

function fsProblem(err: unknown, what: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied'
    : code === 'ENOSPC' ? 'no space left on the device'
      : code === 'EROFS' ? 'read-only file system'
        : code === 'ENOTDIR' || code === 'EEXIST' ? 'a path component is not a directory'
          : (err as Error).message;
  return new Error(`${what}: ${why}`, { cause: err });
}

export function localStore(dir: string): BackupStore {
  const root = resolve(dir);
  const pathOf = (key: string) => {
    checkObjectKey(key);
    return join(root, key);
  };
  return {
    kind: 'LOCAL',
    async put(key, body, signal) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const temp = join(dirname(path), `.${key.split('/').pop()}.partial-${randomBytes(6).toString('hex')}`);
      const counter = byteCounter();
      try {
        // flush: fsync before close, so a renamed file is whole on disk
        await pipeline(body, counter.stream, createWriteStream(temp, { flags: 'wx', mode: 0o600, flush: true }), { signal });
        await rename(temp, path);
      } catch (err) {
        await rm(temp, { force: true }).catch(() => undefined);
        throw err;
      }
      await syncDir(dirname(path));
      return { size: counter.bytes() };
    },
    async get(key) {
      const path = pathOf(key);
      try {
        const handle = await open(path, fsc.O_RDONLY);
        return handle.createReadStream();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new StoreObjectMissing(key);
        throw err;
      }
    },
    async remove(key) {
      await unlink(pathOf(key)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    },
    async check() {
      try {
        await mkdir(root, { recursive: true, mode: 0o700 });
      } catch (err) {
        throw fsProblem(err, `cannot create the backup directory ${root}`);
      }
      const probe = join(root, `.berth-check-${randomBytes(6).toString('hex')}`);
      const data = randomBytes(32);
      try {
        await writeFile(probe, data, { mode: 0o600, flag: 'wx' });
      } catch (err) {
        throw fsProblem(err, `cannot write in the backup directory ${root}`);
      }
      try {
        if (!(await readFile(probe)).equals(data)) throw new Error(`the backup directory ${root} did not give back what was written`);
      } finally {
        await rm(probe, { force: true });
      }
    },
  };
}

async function syncDir(path: string): Promise<void> {
  const handle = await open(path, fsc.O_RDONLY).catch(() => null);
  if (!handle) return;
  await handle.sync().catch(() => undefined);
  await handle.close();
}

export function s3Store(target: S3Target): BackupStore {
  let loaded: Promise<BackupStore> | null = null;
  const real = () => (loaded ??= import('./storage-s3.ts').then((m) => m.createS3Store(target)));
  return {
    kind: 'S3',
    put: async (key, body, signal) => {
      checkObjectKey(key);
      return (await real()).put(key, body, signal);
    },
    get: async (key) => {
      checkObjectKey(key);
      return (await real()).get(key);
    },
    remove: async (key) => {
      checkObjectKey(key);
      return (await real()).remove(key);
    },
    check: async () => (await real()).check(),
  };
}
