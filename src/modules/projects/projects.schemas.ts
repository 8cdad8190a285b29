// Project request and response shapes (the public API's ProjectRequest/Project).
import { Type, type Static } from 'typebox';
import { BaseRecord, NullableString, Paginated, Uuid } from '../../http/schemas.ts';

export const ProjectRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }),
  description: Type.Optional(NullableString),
}, { additionalProperties: false });
export type ProjectRequest = Static<typeof ProjectRequest>;

export const Project = Type.Object({
  ...BaseRecord,
  name: Type.String(),
  description: Type.String(),
  organization: Type.Object({ id: Uuid }),
  associated_environments_count: Type.Integer(),
});
export type Project = Static<typeof Project>;
export const ProjectList = Paginated(Project);
