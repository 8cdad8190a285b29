// The CLI's typed client is generated from berth's own OpenAPI document: the committed
// src/client/api-types.ts must be what `npm run api-types` produces from today's routes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { generateApiTypes, TYPES_FILE } from '../../scripts/api-types.ts';

test('src/client/api-types.ts is up to date with the routes (else: npm run api-types)', async () => {
  const fresh = await generateApiTypes();
  const committed = readFileSync(TYPES_FILE, 'utf8');
  assert.ok(fresh.includes('"/deployment/{deploymentId}/log/stream"'), 'the document holds the stream routes');
  assert.ok(fresh === committed, 'src/client/api-types.ts is stale: run npm run api-types and commit it');
});
