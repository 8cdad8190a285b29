// LLM provider request and response shapes (the seed's list item; create/edit are berth's own:
// no public API defines them). The credential is write-only: responses say has_credential.
import { Type, type Static } from 'typebox';
import { Paginated, Timestamp, Uuid } from '../../http/schemas.ts';

const PROVIDER_TYPES = ['CLAUDE', 'BEDROCK'] as const;
const ProviderType = Type.Union(PROVIDER_TYPES.map((v) => Type.Literal(v)));
const Scope = Type.Union([Type.Literal('ORGANIZATION'), Type.Literal('USER')], { description: 'ORGANIZATION (shared) or USER (personal to its creator)' });
const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });
const Text = Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()]));
const BaseUrl = Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()], {
  description: 'http or https URL of an Anthropic-compatible endpoint (a corporate proxy, a LiteLLM gateway) that workflows using this '
    + 'provider call instead of Anthropic\'s API (or Bedrock\'s endpoint); no query, fragment or user info. Omitted on edit: kept; '
    + 'empty string or null: none. A workflow\'s own model.settings base_url wins over it',
}));
const Credential = Type.Optional(Type.Union([Type.String({ maxLength: 16384, writeOnly: true }), Type.Null()], {
  description: 'write-only (sealed, never returned); omitted on edit: kept; empty string or null: removed',
}));

export const LlmProviderCreateRequest = Type.Object({
  name: Name,
  description: Text,
  type: ProviderType,
  scope: Type.Optional(Scope),
  region: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'cloud region; required for BEDROCK' })),
  base_url: BaseUrl,
  credential: Credential,
}, { additionalProperties: false });
export type LlmProviderCreateRequest = Static<typeof LlmProviderCreateRequest>;

export const LlmProviderEditRequest = Type.Object({
  name: Type.Optional(Name),
  description: Text,
  type: Type.Optional(ProviderType),
  scope: Type.Optional(Scope),
  region: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
  base_url: BaseUrl,
  credential: Credential,
}, { additionalProperties: false });
export type LlmProviderEditRequest = Static<typeof LlmProviderEditRequest>;

export const LlmProvider = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
  name: Type.String(),
  description: Type.String(),
  type: Type.String(),
  has_credential: Type.Boolean(),
  scope: Type.String(),
  owner_user_sub: Type.String({ description: "creator's OIDC subject; empty string when made by an API token" }),
  owner_name: Type.String(),
  region: Type.String(),
  base_url: Type.String({ description: 'Anthropic-compatible endpoint runs call instead of the default; empty string when none' }),
});
export type LlmProvider = Static<typeof LlmProvider>;

export const LlmProviderList = Paginated(LlmProvider);
