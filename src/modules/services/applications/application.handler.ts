// Applications: the spec stored in services.spec is the runtime members (runtime.rules.ts) plus
// git_repository {url, branch, root_path, git_token_id, provider}, build_mode, dockerfile_path and
// docker_target_build_stage. No secrets: git_token_id names a git token of the organization (400
// otherwise). Defaults: build_mode DOCKER, dockerfile_path "Dockerfile", auto_deploy true (a git
// source), auto_preview from the environment.
import { requireGitTokens } from '../../git-tokens/git-credentials.ts';
import type { ServiceRow } from '../services.repo.ts';
import { presentBase, type ServiceTypeHandler } from '../services.service.ts';
import { normalizeGitRepository, presentGitRepository, type StoredGitRepository } from '../common.rules.ts';
import { mergeRuntime, pickRuntime, presentRuntime, runtimeDefaults, type RuntimeSpec } from '../runtime.rules.ts';
import type { Application, ApplicationEditRequest, ApplicationRequest } from './application.schemas.ts';

export interface ApplicationSpec extends RuntimeSpec {
  git_repository: StoredGitRepository;
  build_mode: 'DOCKER';
  dockerfile_path: string | null;
  docker_target_build_stage: string | null;
}

function buildMembers(current: Omit<ApplicationSpec, keyof RuntimeSpec>, body: ApplicationEditRequest): Omit<ApplicationSpec, keyof RuntimeSpec> {
  return {
    git_repository: body.git_repository ? normalizeGitRepository(body.git_repository) : current.git_repository,
    build_mode: 'DOCKER',
    dockerfile_path: body.dockerfile_path === undefined ? current.dockerfile_path : (body.dockerfile_path ?? 'Dockerfile'),
    docker_target_build_stage: body.docker_target_build_stage === undefined ? current.docker_target_build_stage : body.docker_target_build_stage,
  };
}

/** a stored spec completed with defaults (rows written elsewhere, e.g. by factories or older code, may lack members) */
export function hydrateApplicationSpec(stored: Record<string, unknown>): ApplicationSpec {
  return {
    ...runtimeDefaults('APPLICATION', false, true),
    git_repository: { url: '', branch: 'main', root_path: '/', git_token_id: null, provider: null },
    build_mode: 'DOCKER', dockerfile_path: 'Dockerfile', docker_target_build_stage: null,
    ...stored,
  } as ApplicationSpec;
}

export const applicationHandler: ServiceTypeHandler<ApplicationRequest, ApplicationEditRequest, Application> = {
  type: 'APPLICATION',
  label: 'Application',
  async build(body, { env, db }) {
    const runtime = mergeRuntime(runtimeDefaults('APPLICATION', env.autoPreview, true), body, env.capacity);
    const initial = { git_repository: normalizeGitRepository(body.git_repository), build_mode: 'DOCKER' as const, dockerfile_path: 'Dockerfile', docker_target_build_stage: null };
    const spec: ApplicationSpec = { ...runtime, ...buildMembers(initial, body) };
    await requireGitTokens(db, env.organizationId, [{ id: spec.git_repository.git_token_id, field: 'git_repository.git_token_id' }]);
    return { spec };
  },
  async rebuild(row, body, { env, db }) {
    const current = hydrateApplicationSpec(row.spec);
    const runtime = mergeRuntime(pickRuntime(current as unknown as Record<string, unknown>), body, env.capacity);
    const spec: ApplicationSpec = { ...runtime, ...buildMembers(current, body) };
    if (body.git_repository) await requireGitTokens(db, env.organizationId, [{ id: spec.git_repository.git_token_id, field: 'git_repository.git_token_id' }]);
    return { spec };
  },
  registryIds: () => [],
  present(row: ServiceRow, { env, groups }) {
    const spec = hydrateApplicationSpec(row.spec);
    return {
      ...presentBase(row, env), ...presentRuntime(spec, groups),
      git_repository: presentGitRepository(spec.git_repository), build_mode: spec.build_mode,
      dockerfile_path: spec.dockerfile_path, docker_target_build_stage: spec.docker_target_build_stage,
    };
  },
};
