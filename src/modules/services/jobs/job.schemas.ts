// Job request and response shapes: the seed's job tables in full (source image or docker,
// schedule cron or lifecycle, build_settings), the public API's JobRequest/JobResponse otherwise.
import { Type, type Static } from 'typebox';
import { NullableString, Paginated, Uuid } from '../../../http/schemas.ts';
import {
  literalUnion, AP, AnnotationsGroup, CpuArchitecture, GitRepository, GitRepositoryRequest, GroupRefs, Healthchecks, HealthchecksRequest, LabelsGroup,
  Nullable, PortNumber, Registry, ServiceName, ServiceRecord,
} from '../common.schemas.ts';

const LIFECYCLE_TYPES = ['GENERIC', 'TERRAFORM', 'CLOUDFORMATION'] as const;

const CommandRequest = Type.Object({ arguments: Type.Optional(Nullable(Type.Array(Type.String()))), entrypoint: Type.Optional(NullableString) }, AP);
export const ScheduleRequest = Type.Object({
  on_start: Type.Optional(Nullable(CommandRequest)),
  on_stop: Type.Optional(Nullable(CommandRequest)),
  on_delete: Type.Optional(Nullable(CommandRequest)),
  cronjob: Type.Optional(Nullable(Type.Object({
    scheduled_at: Type.String({ description: 'five-field cron expression (Kubernetes CronJob syntax)' }),
    timezone: Type.Optional(Type.String({ description: 'IANA time zone, default Etc/UTC' })),
    arguments: Type.Optional(Nullable(Type.Array(Type.String()))),
    entrypoint: Type.Optional(NullableString),
  }, AP))),
  lifecycle_type: Type.Optional(literalUnion(LIFECYCLE_TYPES)),
}, { ...AP, description: 'a cron job fills only cronjob; a lifecycle job at least one of on_start, on_stop, on_delete' });
export type ScheduleRequest = Static<typeof ScheduleRequest>;

export const SourceRequest = Type.Object({
  image: Type.Optional(Nullable(Type.Object({
    image_name: Type.String({ minLength: 1, pattern: '^\\S+$' }), tag: Type.String({ minLength: 1, pattern: '^\\S+$' }), registry_id: Uuid,
  }, AP))),
  docker: Type.Optional(Nullable(Type.Object({
    git_repository: Type.Optional(Nullable(GitRepositoryRequest)),
    dockerfile_path: Type.Optional(NullableString),
    dockerfile_raw: Type.Optional(NullableString),
    docker_target_build_stage: Type.Optional(NullableString),
  }, AP))),
}, { ...AP, description: 'exactly one of image, docker' });
export type SourceRequest = Static<typeof SourceRequest>;

export const BuildSettingsRequest = Type.Object({
  timeout_max_sec: Type.Optional(Type.Integer({ minimum: 0, description: 'default 1800' })),
  cpu_max_in_milli: Type.Optional(Type.Integer({ minimum: 0, description: 'default 4000' })),
  ram_max_in_gib: Type.Optional(Type.Integer({ minimum: 0, description: 'default 8' })),
  ephemeral_storage_in_gib: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  disable_buildkit_cache: Type.Optional(Type.Boolean()),
  skip_git_submodules: Type.Optional(Type.Boolean()),
}, { ...AP, description: 'when sent, replaces all six members; omitted members take their defaults' });
export type BuildSettingsRequest = Static<typeof BuildSettingsRequest>;

const JobMembers = {
  description: Type.Optional(NullableString),
  cpu: Type.Optional(Type.Integer({ minimum: 1, description: 'millicores (default 500)' })),
  memory: Type.Optional(Type.Integer({ minimum: 1, description: 'MB (default 512)' })),
  gpu: Type.Optional(Type.Integer({ minimum: 0 })),
  ephemeral_storage_in_gib: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  max_nb_restart: Type.Optional(Type.Integer({ minimum: 0, description: 'default 0' })),
  max_duration_seconds: Type.Optional(Type.Integer({ minimum: 0, description: 'default 300' })),
  auto_preview: Type.Optional(Type.Boolean()),
  port: Type.Optional(Nullable(PortNumber)),
  healthchecks: Type.Optional(HealthchecksRequest),
  source: SourceRequest,
  schedule: ScheduleRequest,
  auto_deploy: Type.Optional(Nullable(Type.Boolean())),
  annotations_groups: Type.Optional(GroupRefs),
  labels_groups: Type.Optional(GroupRefs),
  icon_uri: Type.Optional(Type.String()),
  cpu_architecture: Type.Optional(CpuArchitecture),
  build_settings: Type.Optional(BuildSettingsRequest),
};

export const JobRequest = Type.Object({ name: ServiceName, ...JobMembers }, AP);
export type JobRequest = Static<typeof JobRequest>;

export const JobEditRequest = Type.Object({
  name: Type.Optional(ServiceName), ...JobMembers, source: Type.Optional(SourceRequest), schedule: Type.Optional(ScheduleRequest),
}, { ...AP, description: 'members sent change (source, schedule and build_settings replace whole); omitted members keep their value' });
export type JobEditRequest = Static<typeof JobEditRequest>;

const Command = Type.Object({ arguments: Type.Array(Type.String()), entrypoint: NullableString });
export const BuildSettings = Type.Object({
  timeout_max_sec: Type.Integer(), cpu_max_in_milli: Type.Integer(), ram_max_in_gib: Type.Integer(),
  ephemeral_storage_in_gib: Nullable(Type.Integer()), disable_buildkit_cache: Type.Boolean(), skip_git_submodules: Type.Boolean(),
});
export type BuildSettings = Static<typeof BuildSettings>;

export const Job = Type.Object({
  ...ServiceRecord,
  cpu: Type.Integer(), memory: Type.Integer(), gpu: Type.Integer(), ephemeral_storage_in_gib: Nullable(Type.Integer()),
  max_nb_restart: Type.Integer(), max_duration_seconds: Type.Integer(), auto_preview: Type.Boolean(), port: Nullable(Type.Integer()),
  healthchecks: Healthchecks,
  source: Type.Object({
    image: Type.Optional(Type.Object({ image_name: Type.String(), tag: Type.String(), registry_id: Uuid, registry: Registry })),
    docker: Type.Optional(Type.Object({
      git_repository: Nullable(GitRepository), dockerfile_path: NullableString, dockerfile_raw: NullableString, docker_target_build_stage: NullableString,
    })),
  }),
  job_type: Type.String({ description: 'CRON or LIFECYCLE' }),
  schedule: Type.Object({
    on_start: Type.Optional(Nullable(Command)), on_stop: Type.Optional(Nullable(Command)), on_delete: Type.Optional(Nullable(Command)),
    cronjob: Type.Optional(Type.Object({ scheduled_at: Type.String(), timezone: Type.String(), arguments: Type.Array(Type.String()), entrypoint: NullableString })),
    lifecycle_type: Type.Optional(Type.String()),
  }),
  auto_deploy: Nullable(Type.Boolean()),
  annotations_groups: Type.Array(AnnotationsGroup),
  labels_groups: Type.Array(LabelsGroup),
  cpu_architecture: NullableString,
  build_settings: BuildSettings,
});
export type Job = Static<typeof Job>;

export const JobList = Paginated(Job);
