// Database request and response shapes (the public API's DatabaseRequest/DatabaseEditRequest/
// Database) and the master credentials. The password appears only in Credentials.
import { Type, type Static } from 'typebox';
import { NullableString, Paginated } from '../../../http/schemas.ts';
import { literalUnion, AP, AnnotationsGroup, GroupRefs, LabelsGroup, Nullable, ServiceName, ServiceRecord } from '../common.schemas.ts';
import { DATABASE_MODES, DATABASE_TYPES } from './database.rules.ts';

const ACCESSIBILITIES = ['PRIVATE', 'PUBLIC'] as const;

const HOST = 'where clients connect: PUBLIC, the ingress host (INGRESS_HOST, or INGRESS_DOMAIN when INGRESS_HOST is every address; on the swarm engine, once deployed, the address of the node it is published on); PRIVATE, the name on the environment\'s network';
const PORT = 'PUBLIC: the host port reserved for the database (DATABASE_PUBLIC_PORTS), published from its next deployment; PRIVATE: the database\'s own port';

const EditableMembers = {
  description: Type.Optional(NullableString),
  version: Type.String({ minLength: 1, maxLength: 32, description: 'checked against the supported major versions of the type and mode' }),
  accessibility: Type.Optional(literalUnion(ACCESSIBILITIES)),
  cpu: Type.Optional(Type.Integer({ minimum: 1, description: 'millicores (default 250)' })),
  memory: Type.Optional(Type.Integer({ minimum: 1, description: 'MB (default: MANAGED 100; CONTAINER PostgreSQL/Redis 100, MySQL 512, MongoDB 256)' })),
  storage: Type.Optional(Type.Integer({ minimum: 1, description: 'GB (default 10)' })),
  instance_type: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  annotations_groups: Type.Optional(GroupRefs),
  labels_groups: Type.Optional(GroupRefs),
  icon_uri: Type.Optional(Type.String()),
};

export const DatabaseRequest = Type.Object({
  name: ServiceName, type: literalUnion(DATABASE_TYPES), mode: literalUnion(DATABASE_MODES), ...EditableMembers,
}, AP);
export type DatabaseRequest = Static<typeof DatabaseRequest>;

export const DatabaseEditRequest = Type.Object({
  name: Type.Optional(ServiceName), ...EditableMembers, version: Type.Optional(EditableMembers.version),
}, { ...AP, description: 'members sent change; type and mode cannot change' });
export type DatabaseEditRequest = Static<typeof DatabaseEditRequest>;

export const Database = Type.Object({
  ...ServiceRecord,
  type: Type.String(), version: Type.String(), mode: Type.String(), accessibility: Type.String(),
  cpu: Type.Integer(), memory: Type.Integer(), storage: Type.Integer(), instance_type: NullableString,
  host: Type.String({ description: HOST }), port: Type.Integer({ description: PORT }), disk_encrypted: Type.Boolean(),
  annotations_groups: Type.Array(AnnotationsGroup), labels_groups: Type.Array(LabelsGroup),
});
export type Database = Static<typeof Database>;

export const DatabaseList = Paginated(Database);

export const Credentials = Type.Object({
  host: Type.String({ description: HOST }), port: Type.Integer({ description: PORT }), login: Type.String(), password: Type.String(),
});
export type Credentials = Static<typeof Credentials>;
