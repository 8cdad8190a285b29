// A compose translation as a berth.yaml document: one project, one environment, its applications,
// containers and databases in the members of berth's service requests, with the
// `yaml-language-server` comment that points editors at berth's JSON Schema, and the keys that
// were not translated listed in the file's head comment (so they stay in front of whoever
// reviews the file). Pure.
import { Document } from 'yaml';
import type { ApplicationOut, ContainerOut, DatabaseLink, DatabaseOut, ProbeOut, Translation } from './model.ts';

export interface EmitOptions {
  project: string;
  environment: string;
  /** where `berth import` was run from: the git repository builds come from */
  git: { url: string; branch: string } | null;
  /** the JSON Schema's address for the yaml-language-server comment */
  schemaUrl: string;
  /** the compose file's name, for the head comment */
  source: string;
}

/** what a service that depends on a database gets, each `<PREFIX>_<PROPERTY>` */
const DATABASE_PROPERTIES = ['HOST', 'PORT', 'USER', 'PASSWORD', 'URL'] as const;

/**
 * The variables a service gets for a database it depends on (`DB_HOST`… for a database `db`):
 * references to the database's generated credentials, resolved by berth at apply
 * (USER, PASSWORD and URL stored as secrets).
 */
function credentialVariables(link: DatabaseLink): Record<string, DatabaseVariable> {
  return Object.fromEntries(DATABASE_PROPERTIES.map((property) => [`${link.prefix}_${property}`, { from_database: { name: link.database, property } }]));
}

type DatabaseVariable = { from_database: { name: string; property: typeof DATABASE_PROPERTIES[number] } };

function probe(p: ProbeOut): Record<string, unknown> {
  return { type: p.type, ...Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'type')) };
}

function runtime(s: ApplicationOut | ContainerOut): Record<string, unknown> {
  const variables: Record<string, string | DatabaseVariable> = {};
  for (const v of s.variables) variables[v.key] = v.value;
  for (const link of s.databases) for (const [k, v] of Object.entries(credentialVariables(link))) if (!(k in variables)) variables[k] = v;
  return {
    ...(s.ports.length > 0 ? { ports: s.ports } : {}),
    ...(s.cpu !== null ? { cpu: s.cpu } : {}),
    ...(s.memory !== null ? { memory: s.memory } : {}),
    ...(s.instances !== null ? { min_running_instances: s.instances, max_running_instances: s.instances } : {}),
    ...(s.entrypoint !== null ? { entrypoint: s.entrypoint } : {}),
    ...(s.arguments !== null ? { arguments: s.arguments } : {}),
    ...(s.readiness_probe ? { healthchecks: { readiness_probe: probe(s.readiness_probe) } } : {}),
    ...(s.storage.length > 0 ? { storage: s.storage.map((v) => ({ mount_point: v.mount_point, size: v.size })) } : {}),
    ...(Object.keys(variables).length > 0 ? { variables } : {}),
  };
}

function application(s: ApplicationOut, git: EmitOptions['git']): Record<string, unknown> {
  return {
    git_repository: { url: git?.url ?? 'https://git.example.com/REPLACE/ME.git', branch: git?.branch ?? 'main', root_path: s.root_path },
    ...(s.dockerfile_path !== null ? { dockerfile_path: s.dockerfile_path } : {}),
    ...(s.docker_target_build_stage !== null ? { docker_target_build_stage: s.docker_target_build_stage } : {}),
    ...runtime(s),
  };
}

function container(s: ContainerOut): Record<string, unknown> {
  return { registry: s.registry, image_name: s.image_name, tag: s.tag, ...runtime(s) };
}

function database(s: DatabaseOut): Record<string, unknown> {
  return {
    type: s.type, version: s.version, mode: 'CONTAINER',
    ...(s.cpu !== null ? { cpu: s.cpu } : {}), ...(s.memory !== null ? { memory: s.memory } : {}), ...(s.storage !== null ? { storage: s.storage } : {}),
  };
}

/** the berth.yaml text of a translation */
export function emitManifest(t: Translation, options: EmitOptions): string {
  const apps = t.services.filter((s): s is ApplicationOut => s.kind === 'application');
  const containers = t.services.filter((s): s is ContainerOut => s.kind === 'container');
  const databases = t.services.filter((s): s is DatabaseOut => s.kind === 'database');
  const byName = <T extends { name: string }>(list: T[], f: (x: T) => Record<string, unknown>) => Object.fromEntries(list.map((x) => [x.name, f(x)]));
  const environment: Record<string, unknown> = {
    mode: 'DEVELOPMENT',
    ...(apps.length > 0 ? { applications: byName(apps, (s) => application(s, options.git)) } : {}),
    ...(containers.length > 0 ? { containers: byName(containers, container) } : {}),
    ...(databases.length > 0 ? { databases: byName(databases, database) } : {}),
  };
  const doc = new Document({ version: 1, project: { name: options.project }, environments: { [options.environment]: environment } });
  const head = [
    ` yaml-language-server: $schema=${options.schemaUrl}`,
    ` Imported from ${options.source} by berth import compose.`,
    ...(options.git ? [] : [' No git repository was found beside the compose file: set git_repository.url of the built services.']),
    ...(t.untranslated.length > 0
      ? [' Not translated (review before applying):', ...t.untranslated.map((u) => `   ${u.key}: ${u.why}`)]
      : [' Every key of the compose file was translated.']),
  ];
  doc.commentBefore = head.join('\n');
  return doc.toString({ lineWidth: 0 });
}
