// The runtime plan of a service (src/engine/plan.ts), read from the database for a real engine:
// its typed spec, its effective variables with secrets opened (only for the container's
// environment; never logged or returned), its registry's credentials, its repository's git token
// (for the clone only), a database's master credentials, and the DNS names other services use for it.
import type { Platform } from '../../platform.ts';
import { imageReference, registryAuthFor, type JobPlan, type PortPlan, type ProbePlan, type RegistryAuth, type RuntimePlan, type SourcePlan } from '../../engine/index.ts';
import type { Queryable } from '../../db/db.ts';
import { notFound } from '../../lib/errors.ts';
import { gitPlanOf } from '../git-tokens/git-credentials.ts';
import { registryAt, registryCredentials } from '../registries/registries.service.ts';
import type { Healthchecks, Probe, Registry } from '../services/common.schemas.ts';
import { defaultPort } from '../services/databases/database.rules.ts';
import { reservedPorts } from '../services/databases/public-access.ts';
import { loadServiceSpec } from '../services/service-spec.ts';
import { autoscalePolicy } from '../services/autoscale.rules.ts';
import { resolveEffectiveVariables } from '../variables/effective.ts';
import { serviceHost } from '../variables/effective.rules.ts';

/** reads go through `db` only, so a plan can be built inside a transaction; `config` gives SWARM_REGISTRY (build pushes) */
type Ctx = { db: Queryable; sealer: Platform['sealer']; config?: Pick<Platform['config'], 'swarmRegistry'> };

/** the credentials for pushing built images to SWARM_REGISTRY: those of the organization's container registry at that address */
async function pushAuthOf(ctx: Ctx, organizationId: string): Promise<RegistryAuth | null> {
  const address = ctx.config?.swarmRegistry;
  if (!address) return null;
  const registry = await registryAt(ctx.db, ctx.sealer, organizationId, address);
  return registry ? registryAuthFor(registry, `${address}/berth/image:tag`) : null;
}

function probePlan(probe: Probe | null | undefined): ProbePlan | null {
  if (!probe) return null;
  const t = probe.type;
  const timing = {
    initialDelaySeconds: probe.initial_delay_seconds, periodSeconds: probe.period_seconds, timeoutSeconds: probe.timeout_seconds,
    successThreshold: probe.success_threshold, failureThreshold: probe.failure_threshold,
  };
  if (t.http) return { kind: 'http', port: t.http.port, path: t.http.path || '/', command: [], ...timing };
  if (t.tcp) return { kind: 'tcp', port: t.tcp.port, path: '/', command: [], ...timing };
  if (t.exec) return { kind: 'exec', port: null, path: '/', command: t.exec.command, ...timing };
  if (t.grpc) return { kind: 'tcp', port: t.grpc.port, path: '/', command: [], ...timing };
  return null;
}

function probes(h: Healthchecks | undefined): Pick<RuntimePlan, 'readiness' | 'liveness'> {
  return { readiness: probePlan(h?.readiness_probe), liveness: probePlan(h?.liveness_probe) };
}

async function imageSource(ctx: Ctx, organizationId: string, registry: Registry | null, imageName: string, tag: string): Promise<SourcePlan> {
  const credentials = registry ? await registryCredentials(ctx.db, ctx.sealer, organizationId, registry.id) : null;
  const ref = imageReference(registry?.url ?? null, imageName, tag);
  const auth = registry ? registryAuthFor({ kind: registry.kind, url: registry.url, credentials }, ref) : null;
  return { kind: 'image', ref, auth };
}

const command = (c: { entrypoint: string | null; arguments: string[] } | null | undefined) =>
  c ? { entrypoint: c.entrypoint, args: c.arguments } : null;

export async function buildRuntimePlan(ctx: Ctx, serviceId: string): Promise<RuntimePlan> {
  const loaded = await loadServiceSpec(ctx.db, serviceId);
  if (!loaded) throw notFound('Service');
  const variables = await resolveEffectiveVariables(ctx.db, ctx.sealer, serviceId);
  const env: Record<string, string> = {};
  const files: RuntimePlan['files'] = [];
  for (const v of variables) {
    if (v.mount_path) files.push({ path: v.mount_path, content: v.value });
    else env[v.key] = v.value;
  }
  const aliases = [loaded.slug, serviceHost({ slug: loaded.slug, environmentId: loaded.environmentId })];
  const base: RuntimePlan = {
    source: null, env, files, cpuMilli: 500, memoryMiB: 512, replicas: 1, ports: [], readiness: null, liveness: null,
    entrypoint: null, args: [], volumes: [], aliases, database: null, job: null,
  };
  const ports = (list: Array<{ internal_port: number; publicly_accessible: boolean; is_default: boolean; name: string }>): PortPlan[] =>
    list.map((p) => ({ internalPort: p.internal_port, publiclyAccessible: p.publicly_accessible, isDefault: p.is_default, name: p.name }));
  switch (loaded.type) {
    case 'APPLICATION':
    case 'CONTAINER': {
      const s = loaded.spec;
      const source: SourcePlan = loaded.type === 'APPLICATION'
        ? {
          kind: 'git', dockerfilePath: loaded.spec.dockerfile_path, dockerfileRaw: null, target: loaded.spec.docker_target_build_stage,
          git: await gitPlanOf(ctx.db, ctx.sealer, loaded.organizationId, loaded.spec.git_repository),
          pushAuth: await pushAuthOf(ctx, loaded.organizationId),
        }
        : await imageSource(ctx, loaded.organizationId, loaded.registry, loaded.spec.image_name, loaded.spec.tag);
      return {
        ...base, source, cpuMilli: s.cpu, memoryMiB: s.memory, replicas: s.min_running_instances, ports: ports(s.ports),
        // autoscaled (decision 0338): a deployment keeps the replicas running now, up to this
        maxReplicas: autoscalePolicy(s as unknown as Record<string, unknown>, loaded.advancedSettings)?.max ?? s.min_running_instances,
        ...probes(s.healthchecks), entrypoint: s.entrypoint, args: s.arguments,
        volumes: s.storage.map((st) => ({ key: st.id, mountPoint: st.mount_point })),
      };
    }
    case 'DATABASE': {
      const s = loaded.spec;
      const credentials = loaded.openCredentials(ctx.sealer);
      const publicAccess = s.accessibility === 'PUBLIC';
      return {
        ...base, cpuMilli: s.cpu, memoryMiB: s.memory, aliases: [...aliases, credentials.host],
        database: {
          type: s.type, version: s.version, mode: s.mode, port: defaultPort(s.type), login: credentials.login,
          password: credentials.password, host: credentials.host, publicAccess,
          publicPort: publicAccess ? (await reservedPorts(ctx.db, [serviceId])).get(serviceId)?.port ?? null : null,
        },
      };
    }
    case 'JOB': {
      const s = loaded.spec;
      const source: SourcePlan = 'image' in s.source
        ? await imageSource(ctx, loaded.organizationId, loaded.registry, s.source.image.image_name, s.source.image.tag)
        : {
          kind: 'git', dockerfilePath: s.source.docker.dockerfile_path, dockerfileRaw: s.source.docker.dockerfile_raw,
          target: s.source.docker.docker_target_build_stage,
          git: s.source.docker.git_repository ? await gitPlanOf(ctx.db, ctx.sealer, loaded.organizationId, s.source.docker.git_repository) : null,
          pushAuth: await pushAuthOf(ctx, loaded.organizationId),
        };
      const schedule = s.schedule;
      const job: JobPlan = 'cronjob' in schedule
        ? {
          jobType: 'CRON', maxDurationSeconds: s.max_duration_seconds, maxRestarts: s.max_nb_restart,
          cron: { schedule: schedule.cronjob.scheduled_at, timezone: schedule.cronjob.timezone, entrypoint: schedule.cronjob.entrypoint, args: schedule.cronjob.arguments },
          onStart: null, onStop: null, onDelete: null,
        }
        : {
          jobType: 'LIFECYCLE', maxDurationSeconds: s.max_duration_seconds, maxRestarts: s.max_nb_restart, cron: null,
          onStart: command(schedule.on_start), onStop: command(schedule.on_stop), onDelete: command(schedule.on_delete),
        };
      return {
        ...base, source, cpuMilli: s.cpu, memoryMiB: s.memory, ports: s.port ? ports([{ internal_port: s.port, publicly_accessible: false, is_default: true, name: 'p' }]) : [],
        ...probes(s.healthchecks), job,
      };
    }
    default:
      return base;
  }
}
