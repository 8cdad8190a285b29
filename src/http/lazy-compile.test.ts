// Response serializers get nullable primitives as type lists: the same JSON as the schema as
// written, for every shape of value, and the route's schema is left as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fastJson from 'fast-json-stringify';
import { Type } from 'typebox';
import { nullablesAsTypeLists, serializeOnFirstUse } from './lazy-compile.ts';
import { Organization, OrganizationList } from '../modules/organizations/organizations.schemas.ts';
import { Environment } from '../modules/environments/environments.schemas.ts';

const organization = {
  id: '448f178b-1772-4d8f-9be8-30c16a928cf3', created_at: '2026-11-25T13:37:54.187Z', updated_at: '2026-11-25T14:00:00.000Z',
  name: 'acme "quoted"', description: null, plan: 'FREE', website_url: 'https://acme.test', repository: null, logo_url: null,
  icon_url: null, admin_emails: ['a@acme.test'], owner: null,
};

test('nullable primitives become type lists; other unions, data keywords and the original are untouched', () => {
  const schema = Type.Object({
    at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when' }),
    n: Type.Optional(Type.Union([Type.Null(), Type.Integer()])),
    kind: Type.Union([Type.Literal('A'), Type.Literal('B')]),
    maybeObject: Type.Union([Type.Object({ x: Type.String() }), Type.Null()]),
    choice: Type.Union([Type.String({ enum: ['x', 'y'] }), Type.Null()]),
    fallback: Type.String({ default: { anyOf: [{ type: 'string' }, { type: 'null' }] } }),
  });
  const before = JSON.stringify(schema);
  const out = nullablesAsTypeLists(schema) as { properties: Record<string, Record<string, unknown>> };
  assert.equal(JSON.stringify(schema), before, 'the route schema is not changed');
  assert.deepEqual(out.properties.at!.type, ['string', 'null']);
  assert.equal(out.properties.at!.format, 'date-time');
  assert.equal(out.properties.at!.description, 'when');
  assert.equal(out.properties.at!.anyOf, undefined);
  assert.deepEqual(out.properties.n!.type, ['integer', 'null']);
  assert.ok(Array.isArray(out.properties.kind!.anyOf), 'a union of literals stays a union');
  assert.ok(Array.isArray(out.properties.maybeObject!.anyOf), 'only primitives are rewritten');
  assert.ok(Array.isArray(out.properties.choice!.anyOf), 'an enum keeps its validation');
  assert.deepEqual(out.properties.fallback!.default, { anyOf: [{ type: 'string' }, { type: 'null' }] }, 'data is not a schema');
});

test('the serializer writes the same JSON as one built from the schema as written', () => {
  const cases: Array<[unknown, unknown[]]> = [
    [Organization, [organization, { ...organization, description: 'x', repository: 'r', owner: '0f3c5c34-9b9e-4e57-8a53-4a4b9b3f0d11', updated_at: null }]],
    [OrganizationList, [{ results: [organization, { ...organization, updated_at: undefined }], pagination: { page: 1, page_size: 10, total_count: 2, total_pages: 1 } }]],
    [Environment, [{
      id: organization.id, created_at: organization.created_at, updated_at: null, name: 'e', mode: 'DEVELOPMENT', cluster_id: organization.id,
      cluster_name: 'c', cloud_provider: { provider: 'aws', cluster: 'eu' }, project: { id: organization.id }, organization: { id: organization.id },
      auto_preview: false, expires_at: '2026-12-01T00:00:00.000Z', cloned_from_id: null,
    }]],
  ];
  for (const [schema, values] of cases) {
    const asWritten = fastJson(schema as Parameters<typeof fastJson>[0]);
    const served = serializeOnFirstUse(schema);
    for (const value of values) assert.equal(served(value), asWritten(value));
  }
});
