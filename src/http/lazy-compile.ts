// Request validators and response serializers compiled on a route's first request instead of at
// start (issue 15): compiled code for ~140 routes × their parts was most of the HTTP app's idle
// memory (docs/performance.md), and a process serves few of its routes most of the time. The
// behaviour is Fastify's own: an Ajv validator (its `errors` read by Fastify after a `false`) and
// a fast-json-stringify serializer, each built once, on first use.
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
  return (data) => (compiled ??= fastJson(schema as Parameters<typeof fastJson>[0]) as (data: unknown) => string)(data);
}
