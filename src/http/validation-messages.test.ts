// Validation messages from real Ajv issues (allErrors, verbose): unions folded into "must be one
// of … ; got …", types named with the value sent, every problem kept, nested union problems reported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { Type } from 'typebox';
import { validationProblems, type ValidationIssue } from './validation-messages.ts';

const ajv = new Ajv({ allErrors: true, verbose: true, strict: false });
const Schema = Type.Object({
  name: Type.String({ minLength: 1 }),
  mode: Type.Union([Type.Literal('DEVELOPMENT'), Type.Literal('STAGING'), Type.Literal('PRODUCTION')]),
  kind: Type.Optional(Type.String({ enum: ['A', 'B'] })),
  limit: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  repo: Type.Optional(Type.Union([Type.Object({ url: Type.String(), branch: Type.Optional(Type.String({ minLength: 1 })) }), Type.Null()])),
  tags: Type.Optional(Type.Array(Type.String())),
  ports: Type.Optional(Type.Union([Type.Array(Type.Object({ protocol: Type.Union([Type.Literal('HTTP'), Type.Literal('TCP')]) })), Type.Null()])),
  settings: Type.Optional(Type.Object({}, { additionalProperties: { not: {} } })),
});
const validate = ajv.compile(Schema);

function problems(body: unknown) {
  assert.equal(validate(body), false);
  return validationProblems(validate.errors as ValidationIssue[], 'body');
}

test('an enum names every allowed value and what was sent', () => {
  assert.deepEqual(problems({ name: 'x', mode: 'PRODUCTON' }), [{ field: 'mode', message: 'mode must be one of DEVELOPMENT, STAGING, PRODUCTION; got "PRODUCTON"' }]);
  assert.deepEqual(problems({ name: 'x', mode: 'STAGING', kind: 'C' }), [{ field: 'kind', message: 'kind must be one of A, B; got "C"' }]);
});

test('every problem at once, in order, the first one first', () => {
  const all = problems({ mode: 3, limit: 'ten', tags: ['a', 2], settings: { nope: 1 } });
  assert.deepEqual(all.map((p) => p.message), [
    'name is required',
    'mode must be one of DEVELOPMENT, STAGING, PRODUCTION; got 3',
    'limit must be integer or null; got "ten"',
    'tags.1 must be string; got 2',
    'settings.nope is not a known field',
  ]);
});

test('a problem inside one branch of a union is reported where it is', () => {
  assert.deepEqual(problems({ name: 'x', mode: 'STAGING', repo: { url: 'u', branch: '' } }).map((p) => p.message), ['repo.branch must NOT have fewer than 1 characters']);
  assert.deepEqual(problems({ name: 'x', mode: 'STAGING', repo: 'github' }).map((p) => p.message), ['repo must be object or null; got "github"']);
  assert.deepEqual(problems({ name: 'x', mode: 'STAGING', ports: [{ protocol: 'HTTP' }, { protocol: 'SMTP' }] }),
    [{ field: 'ports.1.protocol', message: 'ports.1.protocol must be one of HTTP, TCP; got "SMTP"' }]);
});

test('no body at all is named as such; other contexts are prefixed', () => {
  assert.deepEqual(problems(undefined).map((p) => p.message), ['A JSON body is required']);
  const q = ajv.compile(Type.Object({ page: Type.Integer({ minimum: 1 }) }));
  q({ page: 0 });
  assert.deepEqual(validationProblems(q.errors as ValidationIssue[], 'querystring'), [{ field: 'querystring.page', message: 'querystring.page must be >= 1' }]);
});
