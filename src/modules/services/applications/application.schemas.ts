// Application request and response shapes (the public API's ApplicationRequest/Application):
// a git repository built with a Dockerfile, plus the shared runtime members.
import { Type, type Static } from 'typebox';
import { NullableString, Paginated } from '../../../http/schemas.ts';
import {
  AP, GitRepository, GitRepositoryRequest, RuntimeRequestMembers, RuntimeResponseMembers, ServiceName, ServiceRecord,
} from '../common.schemas.ts';

const BuildMode = Type.Literal('DOCKER');

const ApplicationMembers = {
  git_repository: GitRepositoryRequest,
  build_mode: Type.Optional(BuildMode),
  dockerfile_path: Type.Optional(NullableString),
  docker_target_build_stage: Type.Optional(NullableString),
  ...RuntimeRequestMembers,
};

export const ApplicationRequest = Type.Object({ name: ServiceName, ...ApplicationMembers }, AP);
export type ApplicationRequest = Static<typeof ApplicationRequest>;

export const ApplicationEditRequest = Type.Object({
  name: Type.Optional(ServiceName),
  ...ApplicationMembers,
  git_repository: Type.Optional(GitRepositoryRequest),
}, { ...AP, description: 'members sent change; members omitted keep their value' });
export type ApplicationEditRequest = Static<typeof ApplicationEditRequest>;

export const Application = Type.Object({
  ...ServiceRecord,
  git_repository: GitRepository,
  build_mode: Type.String(),
  dockerfile_path: NullableString,
  docker_target_build_stage: NullableString,
  ...RuntimeResponseMembers,
});
export type Application = Static<typeof Application>;

export const ApplicationList = Paginated(Application);
