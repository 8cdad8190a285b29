// 201 and 202 answers say where to look next: `Location` names the created resource (found among
// the registered routes: `<collection>/<id>`, `/<kind>/<id>` or beside the parent of an action), and a deployment's 202 also
// carries `Link` to its status and its logs (an environment action's to the environment's
// status and deployment history).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { methodsOf, type RouteHooks } from './route-hooks.ts';

type Patterns = () => ReadonlyArray<{ method: string; regex: RegExp }>;

interface Answer { id?: unknown; service_id?: unknown; deployments?: unknown }

/** on routes that may answer 201 or 202 (every method but GET and HEAD) */
export function installLocationHeaders(hooks: RouteHooks, patterns: Patterns): void {
  const exists = (path: string) => patterns().some((p) => p.regex.test(path));
  hooks.add('preSerialization', (route) => {
    if (!methodsOf(route).some((m) => m !== 'GET' && m !== 'HEAD')) return undefined;
    // which of the candidate shapes names a route depends on the route alone (a path parameter
    // never holds a '/'): found on the route's first creation, then reused (the search tests
    // every route's pattern)
    let shape: number | undefined;
    return (request: FastifyRequest, reply: FastifyReply, payload: unknown) => locate(request, reply, payload, (candidates) => {
      shape ??= candidates.findIndex((c) => exists(c));
      return candidates[shape];
    });
  });

  async function locate(request: FastifyRequest, reply: FastifyReply, payload: unknown, pick: (candidates: string[]) => string | undefined) {
    if ((reply.statusCode !== 201 && reply.statusCode !== 202) || payload === null || typeof payload !== 'object') return payload;
    const body = payload as Answer;
    if (typeof body.id !== 'string') return payload;
    // the URL as the client sent it: /api/v1 is rewritten away before routing
    const path = (request.originalUrl ?? request.url).split('?')[0]!.replace(/\/+$/, '');
    const prefix = path.startsWith('/api/v1/') ? '/api/v1' : '';
    if (typeof body.service_id === 'string') {
      const deployment = `${prefix}/deployment/${body.id}`;
      reply.header('location', deployment);
      reply.header('link', `<${deployment}>; rel="status", <${deployment}/log>; rel="logs"`);
      return payload;
    }
    if (Array.isArray(body.deployments)) {
      const env = `${prefix}/environment/${body.id}`;
      reply.header('location', `${env}/status`);
      reply.header('link', `<${env}/status>; rel="status", <${env}/deploymentHistoryV2>; rel="history"`);
      return payload;
    }
    // <collection>/<id>, /<kind>/<id>, or beside the parent of an action (…/{id}/alias → …/<id>)
    // (routes are matched without the prefix; the answer keeps the client's prefix)
    const routed = path.slice(prefix.length);
    const segments = routed.split('/').filter(Boolean);
    const candidates = [`${routed}/${body.id}`, `/${segments.at(-1)}/${body.id}`];
    if (segments.length > 2) candidates.push(`/${segments.slice(0, -2).join('/')}/${body.id}`);
    const found = pick(candidates);
    if (found) reply.header('location', `${prefix}${found}`);
    return payload;
  }
}
