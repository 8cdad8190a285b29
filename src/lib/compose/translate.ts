// docker-compose → berth: reads a compose file (the Compose Specification's common subset) into
// berth's services, in the members of berth's own service requests, and lists by name every key
// it does not translate with why. Nothing is dropped silently. Pure: the caller reads files
// (env_file) through `readFile`, relative to the compose file's folder.
//
// - `build` → an application built from the git repository the compose file lives in
//   (context → root_path, dockerfile → dockerfile_path, target → docker_target_build_stage,
//   args → variables: berth passes a service's variables to its build as build arguments);
//   `image` → a container (registry host, image name, tag).
// - postgres, mysql, mariadb, redis and mongo images → databases (type, version from the tag);
//   berth generates their credentials, and every service that depends on one gets them wired as
//   variables (see `DatabaseLink`).
//
// The parts, one concern each: model.ts (the shapes), untranslated.ts (why a key is left out),
// runtime.ts (applications and containers), healthchecks.ts, resources.ts (images, deploy
// resources, volumes, commands), databases.ts.
import { parseDocument } from 'yaml';
import { databasePrefix, DATABASE_IMAGES, translateDatabase } from './databases.ts';
import { ComposeError, type DatabaseLink, type ServiceOut, type Translation, type TranslateOptions } from './model.ts';
import { parseImage } from './resources.ts';
import { translateRuntime } from './runtime.ts';
import { GENERIC_WHY, TOP_LEVEL_WHY, isMap, note, text, type Context } from './untranslated.ts';
import { parseEnvFile } from './values.ts';

export { ComposeError };

/** translates a compose file's text; throws ComposeError when it is not a compose file at all */
export function translateCompose(source: string, options: TranslateOptions): Translation {
  const doc = parseDocument(source, { merge: true, prettyErrors: true });
  if (doc.errors.length > 0) throw new ComposeError(doc.errors.map((e) => e.message).join('\n'));
  const root = doc.toJS({ maxAliasCount: 1000 }) as unknown;
  if (!isMap(root) || !isMap(root.services)) throw new ComposeError('no services: not a compose file');
  const dotEnv = new Map<string, string>();
  const dotEnvText = options.readFile('.env');
  if (dotEnvText !== null) for (const l of parseEnvFile(dotEnvText)) if (l.value !== null) dotEnv.set(l.key, l.value);
  const ctx: Context = { untranslated: [], options, dotEnv };

  for (const k of Object.keys(root)) {
    if (k === 'services' || k === 'name' || k === 'volumes') continue;
    note(ctx, k, k.startsWith('x-') ? 'an extension field: read only where YAML anchors use it' : TOP_LEVEL_WHY[k] ?? GENERIC_WHY);
  }
  const named = new Set<string>();
  if (isMap(root.volumes)) {
    for (const [name, def] of Object.entries(root.volumes)) {
      named.add(name);
      if (isMap(def)) for (const k of Object.keys(def)) note(ctx, `volumes.${name}.${k}`, 'berth storage is a disk of the service; drivers and options do not apply');
    }
  }

  const services: ServiceOut[] = [];
  for (const [svc, def] of Object.entries(root.services)) {
    if (!isMap(def)) throw new ComposeError(`services.${svc}: not a map`);
    const image = typeof def.image === 'string' && def.build === undefined ? parseImage(text(ctx, `services.${svc}.image`, def.image)) : null;
    const dbType = image && image.registry === 'docker.io' ? DATABASE_IMAGES[image.repository] : undefined;
    const out = dbType ? translateDatabase(ctx, svc, def, dbType, image!, named) : translateRuntime(ctx, svc, def, named);
    if (out) services.push(out);
  }

  // depends_on a database → its credentials; on anything else → reported (no start order in berth)
  const byName = new Map(services.map((s) => [s.name, s]));
  for (const s of services) {
    if (s.kind === 'database') continue;
    const links: DatabaseLink[] = [];
    for (const { database } of s.databases) {
      const target = byName.get(database);
      if (!target) note(ctx, `services.${s.name}.depends_on.${database}`, `${database} is not a service of the file`);
      else if (target.kind === 'database') {
        const prefix = databasePrefix(database);
        links.push({ database, type: target.type, prefix });
        note(ctx, `services.${s.name}.depends_on.${database}`, `${prefix}_HOST, ${prefix}_PORT, ${prefix}_USER, ${prefix}_PASSWORD and ${prefix}_URL are set on ${s.name} from ${database}'s credentials, which berth generates (from_database; the last three as secrets); berth starts services together, so ${s.name} should retry until ${database} answers`);
      }
      else note(ctx, `services.${s.name}.depends_on.${database}`, `berth starts an environment's services together: ${s.name} should retry until ${database} answers`);
    }
    s.databases = links;
  }
  const name = typeof root.name === 'string' ? root.name : null;
  return { name, services, untranslated: ctx.untranslated };
}
