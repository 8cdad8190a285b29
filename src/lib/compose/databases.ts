// Database images of a compose file (postgres, mysql, mariadb, redis, mongo from Docker Hub) as
// berth databases: the type, the version from the tag (unsupported majors pinned and said so),
// resources and storage; their credential settings are noted, not carried (berth generates them),
// and the prefix of the variables a dependent service gets for one (`DB_` for a service `db`).
import type { DatabaseOut, DatabaseType } from './model.ts';
import { resources, volumes, type parseImage } from './resources.ts';
import { GENERIC_WHY, SERVICE_WHY, isMap, note, type Context } from './untranslated.ts';

/** the database images berth runs itself, by repository name (without registry or `library/`) */
export const DATABASE_IMAGES: Record<string, DatabaseType> = { postgres: 'POSTGRESQL', mysql: 'MYSQL', mariadb: 'MYSQL', redis: 'REDIS', mongo: 'MONGODB' };

/** the supported major versions of CONTAINER databases (decision 0142), and the one `latest` becomes */
const VERSIONS: Record<DatabaseType, { majors: number[]; latest: string }> = {
  POSTGRESQL: { majors: [10, 11, 12, 13, 14, 15, 16, 17], latest: '17' },
  MYSQL: { majors: [5, 8], latest: '8' },
  MONGODB: { majors: [4, 5, 6, 7, 8], latest: '8' },
  REDIS: { majors: [5, 6, 7], latest: '7' },
};

/** a database's version from its image tag: "16-alpine" → "16", "8.0.36" → "8.0.36"; unsupported majors become the newest supported */
function databaseVersion(ctx: Context, key: string, type: DatabaseType, repository: string, tag: string): string {
  const { majors, latest } = VERSIONS[type];
  if (repository === 'mariadb') {
    note(ctx, key, `MariaDB ${tag} runs as berth's MYSQL database, version ${latest} (berth has no MariaDB type; it speaks the same protocol)`);
    return latest;
  }
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(tag);
  if (!m) {
    if (tag !== 'latest') note(ctx, key, `tag "${tag}" names no version; pinned to ${latest}`);
    return latest;
  }
  if (!majors.includes(Number(m[1]))) {
    note(ctx, key, `version ${m[1]} is not one berth runs (${majors.join(', ')}); pinned to ${latest}`);
    return latest;
  }
  return [m[1], m[2], m[3]].filter((x) => x !== undefined).join('.');
}

const DATABASE_SERVICE_KEYS = new Set(['image', 'environment', 'env_file', 'volumes', 'deploy', 'depends_on', 'healthcheck', 'ports', 'expose', 'command', 'restart', 'container_name']);

export function translateDatabase(ctx: Context, svc: string, def: Record<string, unknown>, type: DatabaseType, image: ReturnType<typeof parseImage>, named: Set<string>): DatabaseOut {
  const key = `services.${svc}`;
  const version = databaseVersion(ctx, `${key}.image`, type, image.repository, image.tag);
  const res = resources(ctx, svc, def.deploy);
  if (res.instances !== null && res.instances !== 1) note(ctx, `${key}.deploy.replicas`, 'a berth database runs one instance');
  const vols = def.volumes === undefined ? [] : volumes(ctx, svc, def.volumes, named, ctx.options.volumeSizeGb ?? 10);
  for (const [k, v] of Object.entries(def)) {
    if (k === 'environment' || k === 'env_file') {
      const names = Array.isArray(v) ? v.map((e) => String(e).split('=')[0]) : isMap(v) ? Object.keys(v) : [String(v)];
      note(ctx, `${key}.${k}`, `${names.join(', ')}: berth generates the database's credentials and gives them to the services that depend on it`);
    } else if (k === 'healthcheck') note(ctx, `${key}.healthcheck`, 'berth probes its databases itself with their own client');
    else if (k === 'ports') note(ctx, `${key}.ports`, 'berth databases are private to the environment; set accessibility: PUBLIC in berth.yaml to publish one');
    else if (k === 'command') note(ctx, `${key}.command`, 'berth runs its databases with their image\'s own command');
    else if (k === 'depends_on' || k === 'expose') note(ctx, `${key}.${k}`, 'a database needs nothing to start');
    else if (!DATABASE_SERVICE_KEYS.has(k)) note(ctx, `${key}.${k}`, SERVICE_WHY[k] ?? GENERIC_WHY);
    else if (k === 'restart' || k === 'container_name') note(ctx, `${key}.${k}`, SERVICE_WHY[k]!);
  }
  return { kind: 'database', name: svc, type, version, cpu: res.cpu, memory: res.memory, storage: vols.length > 0 ? vols[0]!.size : null };
}

/** the variable prefix of a database's credentials: its name upper case, other characters as `_` */
export function databasePrefix(name: string): string {
  const p = name.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return /^[A-Z]/.test(p) ? p : `DB_${p}`;
}
