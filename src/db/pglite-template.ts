// A freshly initialized PGlite cluster, kept as a tarball so that an empty DATA_DIR (and every
// in-memory test database) starts from a copy of it instead of running PostgreSQL's initdb in
// WebAssembly: about 1 s instead of about 4 s on a 2-vCPU machine (decision 0710). `npm install`
// makes it (scripts/pglite-template.ts, from the prepare script) in node_modules/.cache/berth;
// without one, PGlite runs initdb as before. The file is named by PGlite's version, so a cluster
// made by another PGlite is never loaded. It holds initdb's output only: berth's tables still come
// from its migrations, run on every start.
import type { PGlite } from '@electric-sql/pglite';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;

function pgliteVersion(): string {
  const manifest = readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8');
  return (JSON.parse(manifest) as { version: string }).version;
}

/** where the template of the installed PGlite lives */
export function pgliteTemplatePath(): string {
  return join(root, 'node_modules/.cache/berth', `pglite-${pgliteVersion()}.tar.gz`);
}

/** the template at `path` as PGlite's loadDataDir takes it, or undefined when there is none */
export function readPgliteTemplate(path: string): Blob | undefined {
  if (!existsSync(path)) return undefined;
  return new Blob([readFileSync(path)]);
}

/** forgets a template PGlite could not load, so the next empty start does not try it again */
export function discardPgliteTemplate(path: string): void {
  rmSync(path, { force: true });
}

/**
 * Writes the cluster of `pglite` (one that initdb has just made) to `path`, whole or not at all:
 * written beside it, then renamed.
 */
export async function savePgliteTemplate(path: string, pglite: PGlite): Promise<void> {
  const dump = await pglite.dumpDataDir('gzip');
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  renameSync(partial, path);
}
