// The request examples of the API reference (docs/decisions/0407): every request body of
// /openapi.json carries an example from src/http/examples, each example validates against its
// own schema with the validator the app uses for bodies (nothing removed as unknown, nothing
// refused), and no example is left over for an operation that does not exist.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeAjv } from '../../src/http/ajv.ts';
import { exampleOperationIds, requestExample } from '../../src/http/examples/index.ts';
import { startTestApp, type TestApp } from '../support/harness.ts';

interface Operation {
  method: string;
  path: string;
  operationId: string;
  schema: unknown;
  example: unknown;
}

/** paths of `sent` that are not in `kept` (what removeAdditional dropped as unknown members) */
function dropped(sent: unknown, kept: unknown, path = '$'): string[] {
  if (!sent || typeof sent !== 'object') return [];
  if (!kept || typeof kept !== 'object') return [path];
  return Object.entries(sent).flatMap(([k, v]) => (k in kept
    ? dropped(v, (kept as Record<string, unknown>)[k], Array.isArray(sent) ? `${path}[${k}]` : `${path}.${k}`)
    : [`${path}.${k}`]));
}

describe('request examples', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, any>>; components: Record<string, unknown> };
  let operations: Operation[];
  before(async () => {
    t = await startTestApp();
    doc = (await t.request('GET', '/openapi.json')).body;
    operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops)
      .filter(([, op]) => op.requestBody)
      .map(([method, op]) => {
        const json = op.requestBody.content['application/json'];
        return { method: method.toUpperCase(), path, operationId: op.operationId, schema: json.schema, example: json.example };
      }));
  });
  after(() => t.close());

  test('every request body of /openapi.json has an example, the one src/http/examples gives', () => {
    assert.ok(operations.length > 100, `${operations.length} operations with a body`);
    const missing = operations.filter((o) => o.example === undefined).map((o) => `${o.method} ${o.path} (${o.operationId})`);
    assert.deepEqual(missing, [], 'request bodies without an example');
    for (const o of operations) assert.deepEqual(o.example, requestExample(o.operationId, o.schema), o.operationId);
    const creates = operations.filter((o) => /^(create|edit)/.test(o.operationId));
    assert.ok(creates.length > 80 && creates.every((o) => o.example && typeof o.example === 'object' && Object.keys(o.example).length > 0),
      'every create and edit body has a non-empty example');
  });

  test('every example validates against its schema as the app validates bodies: nothing refused, nothing dropped', () => {
    const ajv = makeAjv(false);
    const problems: string[] = [];
    for (const o of operations.filter((op) => op.example !== undefined)) {
      // the schema with the document's components, so its $refs resolve as they do in the document
      const validate = ajv.compile({ components: doc.components, allOf: [o.schema] });
      const body = structuredClone(o.example);
      if (!validate(body)) {
        problems.push(`${o.operationId}: ${ajv.errorsText(validate.errors)}`);
        continue;
      }
      const unknown = dropped(o.example, body);
      if (unknown.length) problems.push(`${o.operationId}: unknown members ${unknown.join(', ')}`);
    }
    assert.deepEqual(problems, []);
  });

  test('the check fails on an example that is not valid', () => {
    const ajv = makeAjv(false);
    const createProject = operations.find((o) => o.operationId === 'createProject')!;
    const validate = ajv.compile({ components: doc.components, allOf: [createProject.schema] });
    assert.equal(validate({ description: 'no name' }), false);
    const withTypo = { name: 'Shop', descriptoin: 'typo' };
    const body = structuredClone(withTypo);
    assert.equal(validate(body), true, 'unknown members are dropped, not refused…');
    assert.deepEqual(dropped(withTypo, body), ['$.descriptoin'], '…and the test names them');
  });

  test('no example is left over: each names an operation of the document that takes a body', () => {
    const withBody = new Set(operations.map((o) => o.operationId));
    assert.deepEqual(exampleOperationIds().filter((id) => !withBody.has(id)), []);
  });
});
