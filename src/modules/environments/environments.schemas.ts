// Environment request and response shapes (the public API's CreateEnvironmentRequest,
// EnvironmentEditRequest, CloneEnvironmentRequest and Environment). The cluster is accepted as
// `cluster_id` (the seed's name) or `cluster` (the public clients').
import { Type, type Static } from 'typebox';
import { BaseRecord, NullableString, Paginated, Timestamp, Uuid } from '../../http/schemas.ts';

const CREATE_MODES = ['DEVELOPMENT', 'STAGING', 'PRODUCTION'] as const;
const ALL_MODES = ['DEVELOPMENT', 'STAGING', 'PRODUCTION', 'PREVIEW'] as const;
const CreateMode = Type.Union(CREATE_MODES.map((m) => Type.Literal(m)));
const AnyMode = Type.Union(ALL_MODES.map((m) => Type.Literal(m)));
const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });

export const CreateEnvironmentRequest = Type.Object({
  name: Name,
  mode: Type.Optional(CreateMode),
  cluster_id: Type.Optional(Uuid),
  cluster: Type.Optional(Uuid),
  auto_preview: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type CreateEnvironmentRequest = Static<typeof CreateEnvironmentRequest>;

export const EditEnvironmentRequest = Type.Object({
  name: Type.Optional(Name),
  mode: Type.Optional(CreateMode),
  auto_preview: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type EditEnvironmentRequest = Static<typeof EditEnvironmentRequest>;

export const CloneEnvironmentRequest = Type.Object({
  name: Name,
  mode: Type.Optional(AnyMode),
  cluster_id: Type.Optional(Uuid),
  cluster: Type.Optional(Uuid),
  expires_at: Type.Optional(Type.Union([Timestamp, Type.Null()])),
}, { additionalProperties: false });
export type CloneEnvironmentRequest = Static<typeof CloneEnvironmentRequest>;

export const Environment = Type.Object({
  ...BaseRecord,
  name: Type.String(),
  mode: Type.String(),
  cluster_id: Uuid,
  cluster_name: Type.String(),
  cloud_provider: Type.Object({ provider: Type.String(), cluster: Type.String() }),
  project: Type.Object({ id: Uuid }),
  organization: Type.Object({ id: Uuid }),
  auto_preview: Type.Boolean(),
  expires_at: Type.Union([Timestamp, Type.Null()], { description: 'set only on throwaway copies' }),
  cloned_from_id: Type.Union([Uuid, Type.Null()]),
  description: Type.Optional(NullableString),
});
export type Environment = Static<typeof Environment>;
export const EnvironmentList = Paginated(Environment);
