// API token shapes (the public API's OrganizationApiTokenCreateRequest / Create / list item).
import { Type, type Static } from 'typebox';
import { BaseRecord, NullableString, Paginated, Uuid } from '../../http/schemas.ts';

export const ApiTokenCreateRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }),
  description: Type.Optional(NullableString),
  role: Type.Optional(Type.String({ description: 'OWNER, ADMIN, DEVOPS or VIEWER' })),
  role_id: Type.Optional(Type.Union([Uuid, Type.Null()])),
  scope: Type.Optional(Type.Union([Type.Literal('ADMIN'), Type.Null()], { description: 'deprecated: ADMIN is read as role ADMIN' })),
}, { additionalProperties: false });
export type ApiTokenCreateRequest = Static<typeof ApiTokenCreateRequest>;

const TokenCore = {
  ...BaseRecord,
  name: Type.String(),
  description: Type.String(),
  role: Type.String(),
  role_name: Type.String(),
  role_id: Uuid,
  creator_name: NullableString,
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
};

export const ApiToken = Type.Object(TokenCore);
export type ApiToken = Static<typeof ApiToken>;

export const ApiTokenCreated = Type.Object({
  ...TokenCore,
  token: Type.String({ description: 'the secret, shown only in this response: send it as `Authorization: Token <token>`' }),
});
export type ApiTokenCreated = Static<typeof ApiTokenCreated>;

export const ApiTokenList = Paginated(ApiToken);
export const ApiTokenQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  name: Type.Optional(Type.String({ description: 'only tokens whose name contains this (case-insensitive)' })),
});
