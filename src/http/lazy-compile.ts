// Request validators and response serializers compiled on a route's first request instead of at
// start (issue 15): compiled code for ~140 routes × their parts was most of the HTTP app's idle
// memory (docs/performance.md), and a process serves few of its routes most of the time. The
// behaviour is Fastify's own: an Ajv validator (its `errors` read by Fastify after a `false`) and
// a fast-json-stringify serializer, each built once, on first use (nullable primitives given to
// the serializer as type lists: nullablesAsTypeLists).
import type { ValidateFunction } from 'ajv';
import fastJson from 'fast-json-stringify';

type Validator = ((data: unknown) => boolean) & { errors?: ValidateFunction['errors'] };

export function compileOnFirstUse(compile: () => ValidateFunction): Validator {
  let compiled: ValidateFunction | undefined;
  const validate: Validator = (data) => {
    compiled ??= compile();
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  };
  return validate;
}

export function serializeOnFirstUse(schema: unknown): (data: unknown) => string {
  let compiled: ((data: unknown) => string) | undefined;
  return (data) => (compiled ??= fastJson(nullablesAsTypeLists(schema) as Parameters<typeof fastJson>[0]) as (data: unknown) => string)(data);
}

const PRIMITIVE_TYPES = new Set(['string', 'number', 'integer', 'boolean']);
/** members whose values are data, not schemas */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);

/**
 * A response schema as the serializer is given it: a nullable primitive as TypeBox writes it,
 * `anyOf: [S, { type: 'null' }]`, becomes S with `type: [S.type, 'null']`. The JSON written is
 * the same; fast-json-stringify then tests for null instead of running a validator per branch
 * (with a format, a regular expression per value: ~0.9 µs per non-null timestamp, issue 15).
 * Returns a copy: the route's own schema (validation, OpenAPI) stays as it is.
 */
export function nullablesAsTypeLists(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullablesAsTypeLists);
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = schema as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = DATA_KEYWORDS.has(key) ? value : nullablesAsTypeLists(value);
  const options = copy.anyOf;
  if (!Array.isArray(options) || options.length !== 2) return copy;
  const nullAt = options.findIndex((o) => (o as { type?: unknown }).type === 'null');
  const other = options[1 - nullAt] as Record<string, unknown> | undefined;
  if (nullAt === -1 || !other || typeof other.type !== 'string' || !PRIMITIVE_TYPES.has(other.type)) return copy;
  if (['anyOf', 'oneOf', 'allOf', '$ref', 'enum', 'const'].some((k) => k in other)) return copy;
  const { anyOf: _anyOf, ...siblings } = copy;
  return { ...other, ...siblings, type: [other.type, 'null'] };
}
