// The one Ajv configuration of berth's request validation: bodies (no coercion, every problem at
// once, defaults applied, unknown members of closed objects dropped) and query strings and path
// parameters (coerced). The routes, berth's MCP tools and the request-examples test use it.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** the validator of bodies (coerce false) and of query strings and path parameters (coerce true) */
export function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: true,
    useDefaults: true,
    // bodies: every problem at once (docs/decisions/0402); verbose: errors carry what was sent
    allErrors: !coerce,
    verbose: true,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}
