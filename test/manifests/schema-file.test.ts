// The committed JSON Schema of berth.yaml is the one the code makes (npm run schema:manifest),
// it validates the README's example and refuses a secret written as a value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { manifestSchemaText, parseManifest } from '../../src/modules/manifests/document.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const committed = readFileSync(new URL('../../schemas/berth.schema.json', import.meta.url), 'utf8');

function readmeExample(): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Your environment as a file'));
  const match = /```yaml\n([\s\S]*?)```/.exec(section);
  assert.ok(match, 'the README section has a yaml example');
  return match[1]!;
}

test('schemas/berth.schema.json is up to date (npm run schema:manifest)', () => {
  assert.equal(committed, manifestSchemaText());
});

test('the committed schema validates the README example and refuses a secret value', () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(committed));
  const example = parse(readmeExample()) as any;
  assert.ok(validate(example), JSON.stringify(validate.errors));
  assert.ok(parseManifest(readmeExample(), 'README.md').ok);
  const withValue = structuredClone(example) as any;
  withValue.environments.staging.secrets.STRIPE_KEY = 'sk_live_123';
  assert.equal(validate(withValue), false);
  const misspelt = structuredClone(example) as any;
  misspelt.environments.staging.applications.web.cpus = 2;
  assert.equal(validate(misspelt), false);
});
