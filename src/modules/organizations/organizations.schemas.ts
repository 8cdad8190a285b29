// Organization request and response shapes (the public API's OrganizationRequest/Organization).
import { Type, type Static } from 'typebox';
import { BaseRecord, NullableString, Paginated, Uuid } from '../../http/schemas.ts';

const PLANS = ['FREE', 'TEAM', 'TEAM_YEARLY', 'ENTERPRISE', 'ENTERPRISE_YEARLY', 'PROFESSIONAL', 'BUSINESS',
  'USER_2025', 'TEAM_2025', 'BUSINESS_2025', 'ENTERPRISE_2025'] as const;

const Plan = Type.Union(PLANS.map((p) => Type.Literal(p)));
const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });
const OptionalText = Type.Optional(NullableString);

export const OrganizationRequest = Type.Object({
  name: Name,
  description: OptionalText,
  plan: Type.Optional(Plan),
  website_url: OptionalText,
  repository: OptionalText,
  logo_url: OptionalText,
  icon_url: OptionalText,
  admin_emails: Type.Optional(Type.Union([Type.Array(Type.String({ format: 'email' }), { maxItems: 100 }), Type.Null()])),
}, { additionalProperties: false });
export type OrganizationRequest = Static<typeof OrganizationRequest>;

export const Organization = Type.Object({
  ...BaseRecord,
  name: Type.String(),
  description: NullableString,
  plan: Type.String(),
  website_url: NullableString,
  repository: NullableString,
  logo_url: NullableString,
  icon_url: NullableString,
  admin_emails: Type.Array(Type.String()),
  owner: Type.Union([Uuid, Type.Null()], { description: 'id of the owning user; null for an organization created by the bootstrap' }),
});
export type Organization = Static<typeof Organization>;

export const OrganizationList = Paginated(Organization);

export const TransferOwnershipRequest = Type.Object({ user_id: Uuid }, { additionalProperties: false });
