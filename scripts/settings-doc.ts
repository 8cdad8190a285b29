// Writes docs/advanced-settings.md, the table of what each engine does with each advanced
// setting, from the engine support table (src/modules/services/advanced-settings/engine-support.ts).
// Run with `npm run docs:settings` after changing a row; test/services/settings-support.test.ts
// fails while the file is stale.
import { writeFileSync } from 'node:fs';
import { ADVANCED_SETTINGS_CATALOGUE } from '../src/modules/services/advanced-settings/catalogue.ts';
import { engineSupportMarkdown } from '../src/modules/services/advanced-settings/engine-support.ts';

export const SETTINGS_DOC = new URL('../docs/advanced-settings.md', import.meta.url);

export const settingsDoc = (): string => engineSupportMarkdown(ADVANCED_SETTINGS_CATALOGUE);

if (import.meta.main) {
  writeFileSync(SETTINGS_DOC, settingsDoc());
  process.stderr.write('wrote docs/advanced-settings.md\n');
}
