// Pure rules of jobs: the schedule (a cron job fills only cronjob, with a valid five-field cron
// and IANA time zone; a lifecycle job at least one of on_start/on_stop/on_delete), the source
// (exactly one of image and docker; a docker source needs a git repository or a raw Dockerfile),
// and build_settings, which are the job's build.* advanced settings plus an ephemeral storage.
import { isValidTimeZone, parseCron } from '../../../lib/cron.ts';
import { badRequest } from '../../../lib/errors.ts';
import { defaultAdvancedSettings } from '../advanced-settings/index.ts';
import { normalizeGitRepository, type StoredGitRepository } from '../common.rules.ts';
import type { BuildSettings, BuildSettingsRequest, ScheduleRequest, SourceRequest } from './job.schemas.ts';

interface StoredCommand { arguments: string[]; entrypoint: string | null }
export type StoredSchedule =
  | { cronjob: { scheduled_at: string; timezone: string; arguments: string[]; entrypoint: string | null } }
  | { on_start: StoredCommand | null; on_stop: StoredCommand | null; on_delete: StoredCommand | null; lifecycle_type: string };
export type StoredSource =
  | { image: { image_name: string; tag: string; registry_id: string } }
  | { docker: { git_repository: StoredGitRepository | null; dockerfile_path: string | null; dockerfile_raw: string | null; docker_target_build_stage: string | null } };

export function jobType(schedule: StoredSchedule): 'CRON' | 'LIFECYCLE' {
  return 'cronjob' in schedule ? 'CRON' : 'LIFECYCLE';
}

export function normalizeSchedule(s: ScheduleRequest): StoredSchedule {
  const lifecycle = (['on_start', 'on_stop', 'on_delete'] as const).filter((k) => s[k] !== undefined && s[k] !== null);
  const cron = s.cronjob ?? null;
  if (cron && lifecycle.length > 0) throw badRequest('schedule: a cron job fills only cronjob; on_start, on_stop and on_delete are for lifecycle jobs');
  if (!cron && lifecycle.length === 0) throw badRequest('schedule: a cron job needs cronjob, a lifecycle job at least one of on_start, on_stop, on_delete');
  if (cron) {
    const parsed = parseCron(cron.scheduled_at);
    if (!parsed.ok) throw badRequest(`schedule.cronjob.scheduled_at: ${parsed.reason}`);
    const timezone = cron.timezone ?? 'Etc/UTC';
    if (!isValidTimeZone(timezone)) throw badRequest(`schedule.cronjob.timezone: "${timezone}" is not an IANA time zone`);
    return { cronjob: { scheduled_at: cron.scheduled_at, timezone, arguments: cron.arguments ?? [], entrypoint: cron.entrypoint ?? null } };
  }
  const command = (c: { arguments?: string[] | null; entrypoint?: string | null } | null | undefined): StoredCommand | null =>
    c ? { arguments: c.arguments ?? [], entrypoint: c.entrypoint ?? null } : null;
  return { on_start: command(s.on_start), on_stop: command(s.on_stop), on_delete: command(s.on_delete), lifecycle_type: s.lifecycle_type ?? 'GENERIC' };
}

/** shape only; whether an image's registry belongs to the organization is checked by the handler */
export function normalizeSource(s: SourceRequest): StoredSource {
  const image = s.image ?? null;
  const docker = s.docker ?? null;
  if ((image === null) === (docker === null)) throw badRequest('source must hold exactly one of image, docker');
  if (image) return { image: { image_name: image.image_name, tag: image.tag, registry_id: image.registry_id } };
  const d = docker!;
  const git = d.git_repository ? normalizeGitRepository(d.git_repository, 'source.docker.git_repository') : null;
  const raw = d.dockerfile_raw ?? null;
  if (git === null && (raw === null || raw.trim() === '')) throw badRequest('source.docker needs a git_repository or a dockerfile_raw');
  return {
    docker: {
      git_repository: git,
      dockerfile_path: d.dockerfile_path ?? (git && raw === null ? 'Dockerfile' : null),
      dockerfile_raw: raw,
      docker_target_build_stage: d.docker_target_build_stage ?? null,
    },
  };
}

const BUILD_KEYS = {
  timeout_max_sec: 'build.timeout_max_sec',
  cpu_max_in_milli: 'build.cpu_max_in_milli',
  ram_max_in_gib: 'build.ram_max_in_gib',
  disable_buildkit_cache: 'build.disable_buildkit_cache',
  skip_git_submodules: 'build.skip_git_submodules',
} as const;

/**
 * build_settings sent as a whole: the five build.* advanced settings it maps to (omitted members
 * back to their defaults, not to current values) and the build ephemeral storage (default null).
 */
export function buildSettingsToAdvanced(b: BuildSettingsRequest): { settings: Record<string, number | boolean>; ephemeral: number | null } {
  const defaults = defaultAdvancedSettings('job') as unknown as Record<string, number | boolean>;
  const settings: Record<string, number | boolean> = {};
  for (const [member, key] of Object.entries(BUILD_KEYS)) {
    const sent = b[member as keyof typeof BUILD_KEYS];
    settings[key] = sent ?? defaults[key]!;
  }
  return { settings, ephemeral: b.ephemeral_storage_in_gib ?? null };
}

export function advancedToBuildSettings(complete: Readonly<Record<string, unknown>>, ephemeral: number | null): BuildSettings {
  return {
    timeout_max_sec: complete[BUILD_KEYS.timeout_max_sec] as number,
    cpu_max_in_milli: complete[BUILD_KEYS.cpu_max_in_milli] as number,
    ram_max_in_gib: complete[BUILD_KEYS.ram_max_in_gib] as number,
    ephemeral_storage_in_gib: ephemeral,
    disable_buildkit_cache: complete[BUILD_KEYS.disable_buildkit_cache] as boolean,
    skip_git_submodules: complete[BUILD_KEYS.skip_git_submodules] as boolean,
  };
}
