// Body generation for fuzzing: values drawn from a route's own JSON schema (so many pass
// validation and reach the service), then mutated (wrong types, extremes, unknown members,
// odd unicode) so the validators and rules see what real clients get wrong. Seeded, repeatable.

export type Schema = Record<string, any>;

export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD_STRINGS = ['', ' ', 'a'.repeat(300), '💥', 'null', '0', '-1', '../../etc/passwd', "'; drop table users; --",
  '<script>', '\u0000', 'ÄÖÜ', '*/5 * * * *', '10.0.0.0/8', 'https://example.com', 'not a url', '1e309', '{}', '[]'];

/** components.schemas of the document, for `$ref`s */
let definitions: Record<string, Schema> = {};
export function useDefinitions(defs: Record<string, Schema>): void {
  definitions = defs;
}

export function generate(schema: Schema | undefined, rnd: () => number, depth = 0): unknown {
  if (schema?.$ref) schema = definitions[String(schema.$ref).replace('#/components/schemas/', '')];
  if (!schema || depth > 6) return null;
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return pick(schema.enum);
  if (schema.anyOf) return generate(pick(schema.anyOf), rnd, depth + 1);
  if (schema.oneOf) return generate(pick(schema.oneOf), rnd, depth + 1);
  if (schema.not) return undefined;
  const type = Array.isArray(schema.type) ? pick(schema.type) : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [key, sub] of Object.entries<Schema>(schema.properties ?? {})) {
        if (required.has(key) || rnd() < 0.6) {
          const v = generate(sub, rnd, depth + 1);
          if (v !== undefined) out[key] = v;
        }
      }
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object' && !schema.additionalProperties.not && rnd() < 0.3) {
        out[`k${Math.floor(rnd() * 100)}`] = generate(schema.additionalProperties, rnd, depth + 1);
      }
      return out;
    }
    case 'array': {
      const min = schema.minItems ?? 0;
      const max = Math.min(schema.maxItems ?? 4, min + 4);
      const n = min + Math.floor(rnd() * (max - min + 1));
      return Array.from({ length: n }, () => generate(schema.items, rnd, depth + 1));
    }
    case 'integer': {
      const min = schema.minimum ?? (rnd() < 0.2 ? -5 : 0);
      const max = schema.maximum ?? min + (rnd() < 0.1 ? 1_000_000 : 5000);
      return Math.floor(min + rnd() * (max - min + 1));
    }
    case 'number':
      return (schema.minimum ?? 0) + rnd() * 1000;
    case 'boolean':
      return rnd() < 0.5;
    case 'null':
      return null;
    case 'string':
    default:
      return generateString(schema, rnd);
  }
}

function generateString(schema: Schema, rnd: () => number): string {
  switch (schema.format) {
    case 'uuid': return crypto.randomUUID();
    case 'email': return `user${Math.floor(rnd() * 1e6)}@example.com`;
    case 'date-time': return new Date(Date.now() + Math.floor(rnd() * 1e10)).toISOString();
    case 'uri': return `https://example.com/${Math.floor(rnd() * 1e6)}`;
  }
  if (rnd() < 0.15) return ODD_STRINGS[Math.floor(rnd() * ODD_STRINGS.length)]!;
  const len = Math.max(schema.minLength ?? 1, Math.min(schema.maxLength ?? 24, 1 + Math.floor(rnd() * 24)));
  let s = `f${Math.floor(rnd() * 1e9).toString(36)}`;
  while (s.length < len) s += 'x';
  return s.slice(0, Math.max(len, 1));
}

/** one random mutation of a generated value: the things clients get wrong */
export function mutate(value: unknown, rnd: () => number): unknown {
  const wrong = [() => 'string', () => 42, () => -1, () => 1.5, () => true, () => null, () => [], () => ({}), () => 'x'.repeat(5000), () => 2 ** 53 + 1];
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  if (value === null || typeof value !== 'object') return pick(wrong)();
  if (Array.isArray(value)) {
    if (value.length === 0 || rnd() < 0.3) return [...value, pick(wrong)()];
    const i = Math.floor(rnd() * value.length);
    return value.map((v, j) => (j === i ? mutate(v, rnd) : v));
  }
  const obj = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(obj);
  const r = rnd();
  if (keys.length === 0 || r < 0.15) obj[`unknown_${Math.floor(rnd() * 100)}`] = pick(wrong)();
  else if (r < 0.3) delete obj[pick(keys)];
  else {
    const k = pick(keys);
    obj[k] = rnd() < 0.5 ? mutate(obj[k], rnd) : pick(wrong)();
  }
  return obj;
}
