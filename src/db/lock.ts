// The DATA_DIR lock: PGlite has none of its own, and a second process writing the same data
// directory loses writes silently. The lock file holds the owner's pid; a stale one (its process
// gone) is taken over.
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { processAlive as alive } from '../lib/processes.ts';

export class LockHeldError extends Error {}

export interface DataDirLock { release(): void }

export function acquireDataDirLock(dataDir: string): DataDirLock {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'berth.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try { unlinkSync(path); } catch { /* already gone */ }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new LockHeldError(
          `DATA_DIR ${dir} is in use by another berth process (pid ${pid}); stop it first, or point DATA_DIR elsewhere`,
        );
      }
      try { unlinkSync(path); } catch { /* raced with another taker */ }
    }
  }
  throw new LockHeldError(`could not take the lock on DATA_DIR ${dir}`);
}
