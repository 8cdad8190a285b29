// What services and databases of a compose file share: image references (registry, repository,
// tag), deploy resources and replicas (cpu in millicores, memory in MiB), named volumes as storage
// (bind mounts and tmpfs reported), and command/entrypoint word splitting.
import { cpuMilli, sizeMiB, splitWords } from './values.ts';
import { GENERIC_WHY, isMap, note, text, type Context } from './untranslated.ts';

/** the image reference split: registry host, repository (without `library/`), tag */
export function parseImage(ref: string): { registry: string; repository: string; tag: string } {
  const at = ref.indexOf('@');
  const noDigest = at >= 0 ? ref.slice(0, at) : ref;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  const tag = colon > slash ? noDigest.slice(colon + 1) : 'latest';
  const name = colon > slash ? noDigest.slice(0, colon) : noDigest;
  const first = name.split('/')[0]!;
  const hasRegistry = name.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  const registry = hasRegistry ? first : 'docker.io';
  let repository = hasRegistry ? name.slice(first.length + 1) : name;
  if (registry === 'docker.io' && repository.startsWith('library/')) repository = repository.slice('library/'.length);
  return { registry, repository, tag };
}

export function commandOf(ctx: Context, key: string, value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return splitWords(text(ctx, key, value));
  if (Array.isArray(value)) return value.map((w, i) => text(ctx, `${key}[${i}]`, w));
  note(ctx, key, 'neither a string nor a list');
  return null;
}

export function resources(ctx: Context, svc: string, deploy: unknown): { cpu: number | null; memory: number | null; instances: number | null } {
  const out = { cpu: null as number | null, memory: null as number | null, instances: null as number | null };
  if (deploy === undefined) return out;
  const key = `services.${svc}.deploy`;
  if (!isMap(deploy)) { note(ctx, key, 'not a map'); return out; }
  for (const [k, v] of Object.entries(deploy)) {
    if (k === 'replicas') {
      if (typeof v === 'number' && Number.isInteger(v) && v >= 0) out.instances = v; else note(ctx, `${key}.replicas`, 'not a whole number');
    } else if (k === 'resources' && isMap(v)) {
      for (const [rk, rv] of Object.entries(v)) {
        if (rk === 'limits' && isMap(rv)) {
          for (const [lk, lv] of Object.entries(rv)) {
            if (lk === 'cpus') { out.cpu = cpuMilli(lv); if (out.cpu === null) note(ctx, `${key}.resources.limits.cpus`, 'not a number of CPUs'); }
            else if (lk === 'memory') { out.memory = sizeMiB(lv); if (out.memory === null) note(ctx, `${key}.resources.limits.memory`, 'not a size'); }
            else note(ctx, `${key}.resources.limits.${lk}`, 'berth limits CPU and memory only');
          }
        } else if (rk === 'reservations') {
          note(ctx, `${key}.resources.reservations`, 'berth reserves what it limits: the limits are the service\'s cpu and memory');
        } else note(ctx, `${key}.resources.${rk}`, GENERIC_WHY);
      }
    } else if (k === 'restart_policy') {
      note(ctx, `${key}.restart_policy`, 'berth always restarts a service that stops');
    } else if (k === 'update_config' || k === 'rollback_config') {
      note(ctx, `${key}.${k}`, 'berth rolls out a new version once it is ready, then stops the old one');
    } else {
      note(ctx, `${key}.${k}`, GENERIC_WHY);
    }
  }
  return out;
}

/** named volumes mounted by a service → storage; bind mounts and tmpfs are reported */
export function volumes(ctx: Context, svc: string, value: unknown, named: Set<string>, size: number): Array<{ mount_point: string; size: number; volume: string }> {
  if (!Array.isArray(value)) { note(ctx, `services.${svc}.volumes`, 'not a list'); return []; }
  const out: Array<{ mount_point: string; size: number; volume: string }> = [];
  value.forEach((entry, i) => {
    const key = `services.${svc}.volumes[${i}]`;
    let source: string | null = null;
    let target: string | null = null;
    let type = 'volume';
    if (isMap(entry)) {
      type = String(entry.type ?? 'volume');
      source = typeof entry.source === 'string' ? entry.source : null;
      target = typeof entry.target === 'string' ? entry.target : null;
    } else {
      const parts = String(entry).split(':');
      if (parts.length === 1) { target = parts[0]!; source = null; } else { source = parts[0]!; target = parts[1]!; }
      if (source && (source.startsWith('.') || source.startsWith('/') || source.startsWith('~'))) type = 'bind';
    }
    if (type === 'bind') { note(ctx, key, `bind mount of ${source}: berth runs services from their image, not from the host's files`); return; }
    if (type !== 'volume' || !target || !target.startsWith('/')) { note(ctx, key, `${type} mount: berth mounts named volumes only`); return; }
    if (source === null) { note(ctx, key, `anonymous volume at ${target}: it is lost with the container in compose too; not kept`); return; }
    if (!named.has(source)) note(ctx, key, `volume ${source} is not declared under the top-level volumes; imported as storage anyway`);
    out.push({ mount_point: target, size, volume: source });
  });
  return out;
}
