// Schemas every route shares: ids, timestamps, the error body, pagination. TypeBox gives the
// validation, the TypeScript types and the OpenAPI document from these same objects.
import { Type, type TSchema } from 'typebox';

export const Uuid = Type.String({ format: 'uuid' });
export const Timestamp = Type.String({ format: 'date-time' });
export const NullableString = Type.Union([Type.String(), Type.Null()]);

export const ErrorBody = Type.Object(
  {
    status: Type.Integer(),
    error: Type.String(),
    message: Type.String(),
    code: Type.String({ description: 'stable machine-readable error code (snake_case)' }),
    request_id: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), { description: 'validation errors: every problem of the request (the first is `message`)' })),
  },
  { description: 'Error', additionalProperties: true },
);

const Pagination = Type.Object({
  page: Type.Integer(),
  page_size: Type.Integer(),
  total_count: Type.Integer({
    description: 'exact number of items in the list. Lists of projects, environments, services, deployments, deployment logs and '
      + 'webhook deliveries read it from a count kept up to date with every write, so it costs the same at 100 and 100,000 items; '
      + 'with `?name=` the matching items are counted',
  }),
  total_pages: Type.Integer(),
}, {
  description: 'Pages are read in the list\'s index order (oldest first for configuration, newest first for histories): the first '
    + 'pages cost the same whatever the list\'s size, page N reads N × page_size index entries.',
});

export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'page number, from 1' })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'items per page, 1 to 100' })),
});

/** lists of named resources also take `?name=` (exact, case-insensitive) */
export const NamedPageQuery = Type.Object({
  ...PageQuery.properties,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'only the item of this name (case-insensitive)' })),
});

export function Paginated<T extends TSchema>(item: T) {
  return Type.Object({ results: Type.Array(item), pagination: Pagination });
}

export function idParams<K extends string>(...names: K[]) {
  const props = Object.fromEntries(names.map((n) => [n, Uuid])) as Record<K, typeof Uuid>;
  return Type.Object(props);
}

/** base record members of every returned resource */
export const BaseRecord = {
  id: Uuid,
  created_at: Timestamp,
  updated_at: Type.Optional(Type.Union([Timestamp, Type.Null()])),
};

/** response map entry of operations that answer 204 with no body */
export const NoContent = { 204: Type.Null({ description: 'Success, no body' }) };

/** preValidation hook of routes whose body is optional (actions): no body validates as {}; the
 * OpenAPI document marks such request bodies as not required */
export const optionalBody = async (req: { body: unknown }) => {
  if (req.body === undefined || req.body === null) req.body = {};
};
