// The CLI's secret references: every `env:NAME` string of a berth.yaml, wherever it sits, is read
// from the CLI's environment into secret_values; names not set are listed (the server may still
// resolve them from an existing secret); other strings are not taken for references.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { secretValues } from '../../src/cli/client/commands/manifests.ts';

test('env:NAME references are filled from the environment, unset ones listed', () => {
  process.env.COMPOSE_TEST_DB_PASSWORD = 'hunter2';
  delete process.env.COMPOSE_TEST_MISSING;
  const doc = `project: { name: shop }
environments:
  - name: prod
    variables: { A: "env: not a ref", B: "prefix env:COMPOSE_TEST_DB_PASSWORD" }
    applications:
      - name: web
        secrets: { DB_PASSWORD: "env:COMPOSE_TEST_DB_PASSWORD", TOKEN: { from: "env:COMPOSE_TEST_MISSING" } }
`;
  assert.deepEqual(secretValues(doc), { values: { COMPOSE_TEST_DB_PASSWORD: 'hunter2' }, missing: ['COMPOSE_TEST_MISSING'] });
  assert.deepEqual(secretValues('project: [unclosed'), { values: {}, missing: [] });
  delete process.env.COMPOSE_TEST_DB_PASSWORD;
});
