// Makes the initdb template an empty PGlite cluster starts from (src/db/pglite-template.ts,
// decision 0710). Run by `npm install` (the prepare script); safe to run again: it is made only
// when the installed PGlite has none. `--force` makes it anew. A failure does not fail the
// install: without a template, PGlite runs initdb on an empty cluster as it always could.
import { existsSync } from 'node:fs';
import { openPglite } from '../src/db/pglite.ts';
import { pgliteTemplatePath, savePgliteTemplate } from '../src/db/pglite-template.ts';

const path = pgliteTemplatePath();
if (existsSync(path) && !process.argv.includes('--force')) {
  process.stdout.write(`PGlite template: ${path} (already made)\n`);
} else {
  const started = performance.now();
  try {
    const db = await openPglite('memory://', { template: false });
    try {
      if (db.native.kind === 'pglite') await savePgliteTemplate(path, db.native.pglite);
    } finally {
      await db.close();
    }
    process.stdout.write(`PGlite template: ${path} made in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  } catch (err) {
    process.stderr.write(`PGlite template not made (an empty PGlite cluster will run initdb instead): ${err instanceof Error ? err.message : String(err)}\n`);
  }
}
