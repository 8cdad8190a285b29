// Unknown body members are dropped for compatibility (docs/decisions/0003), but silently dropping
// a typo like `git_repository.brnch` hides it: the response names every dropped member in
// `X-Berth-Ignored-Fields`. The body's shape is copied before validation and compared after it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteHooks } from './route-hooks.ts';

const IGNORED_FIELDS_HEADER = 'x-berth-ignored-fields';
const MAX_LISTED = 20;

function segment(key: string): string {
  return /^[\w$@-]+$/.test(key) ? key : encodeURIComponent(key);
}

/** paths of members present in `before` and absent from `after` (what validation removed); a
 * member's path is built only when it was removed or holds members of its own */
export function droppedPaths(before: unknown, after: unknown, prefix = '', out: string[] = []): string[] {
  if (Array.isArray(before)) {
    if (!Array.isArray(after)) return out;
    before.forEach((item, i) => {
      if (item !== null && typeof item === 'object') droppedPaths(item, after[i], `${prefix}[${i}]`, out);
    });
    return out;
  }
  if (before === null || typeof before !== 'object' || after === null || typeof after !== 'object' || Array.isArray(after)) return out;
  for (const key of Object.keys(before)) {
    const value = (before as Record<string, unknown>)[key];
    if (!Object.hasOwn(after, key)) out.push(prefix ? `${prefix}.${segment(key)}` : segment(key));
    else if (value !== null && typeof value === 'object') droppedPaths(value, (after as Record<string, unknown>)[key], prefix ? `${prefix}.${segment(key)}` : segment(key), out);
  }
  return out;
}

/** the body's members without their values (validation only removes members, and the comparison
 * only looks at which are there): 1 µs for a job's body where structuredClone took 6 µs */
export function skeleton(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(skeleton);
  if (value === null || typeof value !== 'object') return null;
  // no prototype: a member named __proto__ is copied as a member
  const out: Record<string, unknown> = Object.create(null);
  for (const key in value) if (Object.hasOwn(value, key)) out[key] = skeleton((value as Record<string, unknown>)[key]);
  return out;
}

/** on routes with a body schema only */
export function installIgnoredFieldsHeader(hooks: RouteHooks): void {
  const snapshots = new WeakMap<FastifyRequest, unknown>();
  hooks.add('preValidation', (route) => (route.schema?.body ? snapshot : undefined));
  hooks.add('preHandler', (route) => (route.schema?.body ? compare : undefined));

  async function snapshot(request: FastifyRequest) {
    if (request.body !== null && typeof request.body === 'object') snapshots.set(request, skeleton(request.body));
  }
  async function compare(request: FastifyRequest, reply: FastifyReply) {
    const before = snapshots.get(request);
    if (before === undefined) return;
    const dropped = droppedPaths(before, request.body);
    if (dropped.length === 0) return;
    const listed = dropped.slice(0, MAX_LISTED).join(', ');
    reply.header(IGNORED_FIELDS_HEADER, dropped.length > MAX_LISTED ? `${listed}, (+${dropped.length - MAX_LISTED} more)` : listed);
  }
}
