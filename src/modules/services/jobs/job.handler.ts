// Jobs: services.spec holds {description, cpu, memory, gpu, ephemeral_storage_in_gib,
// max_nb_restart, max_duration_seconds, auto_preview, port, healthchecks, source (image | docker),
// schedule (cronjob | on_start/on_stop/on_delete + lifecycle_type), auto_deploy,
// annotations_groups, labels_groups, icon_uri, cpu_architecture, build_ephemeral_storage_in_gib}.
// build_settings are the job's build.* advanced settings (one source of truth, services.advanced_settings).
import { applyAdvancedSettingsPatch, completeAdvancedSettings, type SettingValue } from '../advanced-settings/index.ts';
import { expandGroups } from '../groups/groups.service.ts';
import { checkCapacity, definedMembers, iconFor, normalizeHealthchecks, presentGitRepository } from '../common.rules.ts';
import type { Healthchecks } from '../common.schemas.ts';
import { missingRegistry, requireRegistry } from '../containers/container.handler.ts';
import { requireGitTokens } from '../../git-tokens/git-credentials.ts';
import type { ServiceRow } from '../services.repo.ts';
import { presentBase, storedAdvancedSettings, type HandlerContext, type ServiceTypeHandler } from '../services.service.ts';
import { advancedToBuildSettings, buildSettingsToAdvanced, jobType, normalizeSchedule, normalizeSource, type StoredSchedule, type StoredSource } from './job.rules.ts';
import type { Job, JobEditRequest, JobRequest } from './job.schemas.ts';

export interface JobSpec {
  description: string | null; cpu: number; memory: number; gpu: number; ephemeral_storage_in_gib: number | null;
  max_nb_restart: number; max_duration_seconds: number; auto_preview: boolean; port: number | null; healthchecks: Healthchecks;
  source: StoredSource; schedule: StoredSchedule; auto_deploy: boolean | null; annotations_groups: { id: string }[];
  labels_groups: { id: string }[]; icon_uri: string; cpu_architecture: string | null; build_ephemeral_storage_in_gib: number | null;
}

const SCALARS = ['description', 'cpu', 'memory', 'gpu', 'ephemeral_storage_in_gib', 'max_nb_restart', 'max_duration_seconds', 'auto_preview',
  'port', 'healthchecks', 'auto_deploy', 'annotations_groups', 'labels_groups', 'icon_uri', 'cpu_architecture'] as const;

async function merge(current: JobSpec, advanced: Record<string, unknown>, body: JobEditRequest, { env, db }: HandlerContext) {
  const sent = definedMembers(body) as Record<string, unknown>;
  const spec = { ...current } as unknown as Record<string, unknown>;
  for (const key of SCALARS) if (key in sent) spec[key] = sent[key];
  const next = spec as unknown as JobSpec;
  if (body.source) {
    next.source = normalizeSource(body.source);
    if ('image' in next.source) await requireRegistry(db, env.organizationId, next.source.image.registry_id, 'source.image.registry_id');
    else await requireGitTokens(db, env.organizationId, [{ id: next.source.docker.git_repository?.git_token_id, field: 'source.docker.git_repository.git_token_id' }]);
  }
  if (body.schedule) next.schedule = normalizeSchedule(body.schedule);
  next.healthchecks = normalizeHealthchecks(next.healthchecks, next.port);
  checkCapacity(next, env.capacity);
  let advancedSettings = advanced;
  if (body.build_settings) {
    const { settings, ephemeral } = buildSettingsToAdvanced(body.build_settings);
    const complete = applyAdvancedSettingsPatch(completeAdvancedSettings('job', advanced) as Record<string, SettingValue>, settings);
    advancedSettings = storedAdvancedSettings('job', complete);
    next.build_ephemeral_storage_in_gib = ephemeral;
  }
  return { spec: next, advancedSettings };
}

function jobDefaults(autoPreview: boolean): JobSpec {
  return {
    description: null, cpu: 500, memory: 512, gpu: 0, ephemeral_storage_in_gib: null, max_nb_restart: 0, max_duration_seconds: 300,
    auto_preview: autoPreview, port: null, healthchecks: {},
    source: { docker: { git_repository: null, dockerfile_path: null, dockerfile_raw: null, docker_target_build_stage: null } },
    schedule: { on_start: null, on_stop: null, on_delete: null, lifecycle_type: 'GENERIC' },
    auto_deploy: null, annotations_groups: [], labels_groups: [], icon_uri: iconFor('JOB'), cpu_architecture: null, build_ephemeral_storage_in_gib: null,
  };
}

/** a stored spec completed with defaults (rows written elsewhere may lack members) */
export function hydrateJobSpec(stored: Record<string, unknown>): JobSpec {
  return { ...jobDefaults(false), ...stored } as JobSpec;
}

export const jobHandler: ServiceTypeHandler<JobRequest, JobEditRequest, Job> = {
  type: 'JOB',
  label: 'Job',
  async build(body, ctx) {
    const source = normalizeSource(body.source);
    const initial: JobSpec = { ...jobDefaults(ctx.env.autoPreview), source, schedule: normalizeSchedule(body.schedule), auto_deploy: 'docker' in source };
    return merge(initial, {}, body, ctx);
  },
  async rebuild(row, body, ctx) {
    return merge(hydrateJobSpec(row.spec), row.advanced_settings, body, ctx);
  },
  registryIds: (row: ServiceRow) => {
    const source = hydrateJobSpec(row.spec).source;
    return 'image' in source ? [source.image.registry_id] : [];
  },
  present(row, { env, registries, groups }) {
    const spec = hydrateJobSpec(row.spec);
    const source = 'image' in spec.source
      ? { image: { ...spec.source.image, registry: registries.get(spec.source.image.registry_id) ?? missingRegistry(spec.source.image.registry_id) } }
      : { docker: { ...spec.source.docker, git_repository: spec.source.docker.git_repository ? presentGitRepository(spec.source.docker.git_repository) : null } };
    return {
      ...presentBase(row, env), description: spec.description, icon_uri: spec.icon_uri,
      cpu: spec.cpu, memory: spec.memory, gpu: spec.gpu, ephemeral_storage_in_gib: spec.ephemeral_storage_in_gib,
      max_nb_restart: spec.max_nb_restart, max_duration_seconds: spec.max_duration_seconds, auto_preview: spec.auto_preview, port: spec.port,
      healthchecks: spec.healthchecks, source, job_type: jobType(spec.schedule), schedule: spec.schedule, auto_deploy: spec.auto_deploy,
      ...expandGroups(spec, groups), cpu_architecture: spec.cpu_architecture,
      build_settings: advancedToBuildSettings(completeAdvancedSettings('job', row.advanced_settings), spec.build_ephemeral_storage_in_gib),
    };
  },
};
