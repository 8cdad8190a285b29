// A file replaced whole or not at all: written beside itself, then renamed over it (a reader or a
// crash never sees half a file).
import { renameSync, rmSync, writeFileSync } from 'node:fs';

export function writeFileAtomic(path: string, text: string, mode = 0o644): void {
  rmSync(`${path}.tmp`, { force: true });
  writeFileSync(`${path}.tmp`, text, { mode });
  renameSync(`${path}.tmp`, path);
}
