// Writes the JSON Schema of berth.yaml (decision 0745) to schemas/berth.schema.json from the
// TypeBox document (src/modules/manifests/manifest.schemas.ts), the same one GET
// /manifests/schema.json serves. Run with `npm run schema:manifest` after changing the document or
// an API request schema it reuses; test/manifests/schema-file.test.ts fails while it is stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { manifestSchemaText } from '../src/modules/manifests/document.ts';

export const SCHEMA_FILE = new URL('../schemas/berth.schema.json', import.meta.url);

if (import.meta.main) {
  mkdirSync(new URL('../schemas/', import.meta.url), { recursive: true });
  writeFileSync(SCHEMA_FILE, manifestSchemaText());
  process.stderr.write('wrote schemas/berth.schema.json\n');
}
