// Member and invitation shapes (the public API's Member, InviteMember and their requests).
import { Type, type Static } from 'typebox';
import { BaseRecord, NullableString, Paginated, Timestamp, Uuid } from '../../http/schemas.ts';
import { ACTION_SCOPES, ROLES } from '../access/roles.ts';

const RoleName = Type.String({ description: 'OWNER, ADMIN, DEVOPS or VIEWER (case-insensitive; DEVELOPER is read as DEVOPS)' });

export const Member = Type.Object({
  ...BaseRecord,
  email: Type.String(),
  name: NullableString,
  nickname: NullableString,
  profile_picture_url: NullableString,
  last_activity_at: Type.Union([Timestamp, Type.Null()]),
  role: Type.String(),
  role_name: Type.String(),
  role_id: Uuid,
});
export type Member = Static<typeof Member>;
export const MemberList = Paginated(Member);

export const MemberRoleUpdateRequest = Type.Object({
  user_id: Uuid,
  role_id: Type.Optional(Uuid),
  role: Type.Optional(RoleName),
}, { additionalProperties: false });

export const MemberDeleteRequest = Type.Object({ user_id: Uuid }, { additionalProperties: false });

export const InviteMemberRequest = Type.Object({
  email: Type.String({ format: 'email', maxLength: 320 }),
  role: Type.Optional(RoleName),
  role_id: Type.Optional(Uuid),
}, { additionalProperties: false });
export type InviteMemberRequest = Static<typeof InviteMemberRequest>;

export const InviteMember = Type.Object({
  ...BaseRecord,
  email: Type.String(),
  role: Type.String(),
  role_id: Uuid,
  role_name: Type.String(),
  invitation_link: Type.String(),
  invitation_status: Type.Union([Type.Literal('PENDING'), Type.Literal('EXPIRED'), Type.Literal('ACCEPTED')]),
  inviter: Type.String(),
  organization_name: Type.String(),
  logo_url: NullableString,
  expires_at: Timestamp,
});
export type InviteMember = Static<typeof InviteMember>;
export const InviteMemberList = Paginated(InviteMember);

export const AvailableRoleList = Type.Object({
  results: Type.Array(Type.Object({ id: Uuid, name: Type.String() })),
});

const can = (action: keyof typeof ACTION_SCOPES) => Type.Boolean({ description: `true when the role allows: ${ACTION_SCOPES[action]}` });

/** the caller's own role in an organization (a berth route, decision 0605); role, role_name and role_id as in a Member */
export const CurrentRole = Type.Object({
  organization_id: Uuid,
  role: Type.Enum([...ROLES], { type: 'string', description: 'the caller\'s role, as `role` in a Member row' }),
  role_name: Type.String(),
  role_id: Uuid,
  principal: Type.Object({
    kind: Type.Union([Type.Literal('TOKEN'), Type.Literal('USER')], { description: 'an API token (its own role in its own organization) or a user (their membership)' }),
    id: Uuid,
    name: Type.String({ description: "the token's name; the user's name, else email, else OIDC subject" }),
  }),
  permissions: Type.Object({ read: can('read'), write: can('write'), manage: can('manage'), own: can('own') }, {
    description: 'what the role allows, by kind of action (the role table of the API reference); the server checks every request regardless',
  }),
});
export type CurrentRole = Static<typeof CurrentRole>;
