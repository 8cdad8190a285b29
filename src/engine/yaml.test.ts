// The manifest YAML writer: every JSON-like document, including keys and values that YAML 1.1
// or 1.2 would read as something else (null, on, yes, true, "1e3", "", "-", ":", dates…), reads
// back unchanged through the `yaml` package under both versions. Property test with fast-check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { toYaml } from './yaml.ts';

const TRICKY = [
  'null', 'Null', 'NULL', '~', 'on', 'On', 'off', 'yes', 'no', 'Y', 'n', 'true', 'False', '1e3', '-1E-3', '0o17', '0x1F', '017',
  '1:20', '.inf', '-.Inf', '.nan', '', ' ', '-', '- x', ':', 'a: b', '? q', '#c', 'a #b', '!tag', '&anchor', '*alias', '%dir',
  '@at', '`tick', '{}', '[]', '{a: 1}', '"', "'", '\t', '\n', 'two\nlines', ' lead', 'trail ', '2026-01-01', '2026-01-01T10:00:00Z',
  '12', '1_000', '+1', '.5', '---', '...', '<<', '=', '|', '>', 'é', '😀',
];

const text = fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...TRICKY) }, { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) });
const scalar = fc.oneof(
  text, fc.boolean(), fc.constant(null), fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(text, tie('value'), { maxKeys: 5, noNullPrototype: true }),
}));
const documents = fc.array(fc.dictionary(text, value, { maxKeys: 6, noNullPrototype: true }), { minLength: 1, maxLength: 3 });

function readBack(yaml: string, version: '1.1' | '1.2'): unknown[] {
  return parseAllDocuments(yaml, { version }).map((d) => {
    if (d.errors.length > 0) throw new Error(`${version}: ${d.errors[0]!.message}\n${yaml}`);
    return d.toJS();
  });
}

test('every document reads back unchanged under YAML 1.2 and 1.1', () => {
  fc.assert(fc.property(documents, (docs) => {
    const yaml = toYaml(docs);
    assert.deepStrictEqual(readBack(yaml, '1.2'), docs);
    assert.deepStrictEqual(readBack(yaml, '1.1'), docs);
  }), { numRuns: 1000 });
});

test('the keys and values the hand-written writer got wrong are quoted; ordinary ones stay plain', () => {
  const yaml = toYaml([{ null: 'null', on: 'on', yes: 'yes', true: 'true', count: '1e3', empty: '', dash: '-', colon: ':', kind: 'Deployment' }]);
  assert.equal(yaml, '"null": "null"\n"on": "on"\n"yes": "yes"\n"true": "true"\ncount: "1e3"\nempty: ""\ndash: "-"\ncolon: ":"\nkind: Deployment\n');
  assert.equal(toYaml([{ a: 1 }, { b: [true, null] }]), 'a: 1\n---\nb:\n  - true\n  - null\n');
});
