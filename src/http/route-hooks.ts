// Hooks that only some routes need, attached to those routes as they are registered instead of
// running on every request to return early: a GET by id no longer passes through idempotency,
// audit, ignored-fields and Location hooks at all (issue 15; decision 0705). Each installer names
// a hook kind and a function of the route that returns the hook for it, or nothing; the hooks
// attached to a route run in install order, before the route's own hooks of the same kind (as
// hooks added to the whole app would). A hook every route needs may be made here too when it is
// cheaper knowing its route than finding it per request (request metrics, metrics.ts).
import type { FastifyInstance, RouteOptions } from 'fastify';

type RouteHookName = 'preValidation' | 'preHandler' | 'preSerialization' | 'onSend' | 'onResponse';
// the hook signatures differ by kind; Fastify checks them when the route is built
type AnyHook = (...args: never[]) => unknown;

export interface RouteHooks {
  /** `forRoute` runs once per route at registration: the hook for that route, or undefined */
  add(name: RouteHookName, forRoute: (route: RouteOptions) => AnyHook | undefined): void;
}

const NAMES: readonly RouteHookName[] = ['preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse'];

export function routeHooks(app: FastifyInstance): RouteHooks {
  const registered: Array<{ name: RouteHookName; forRoute: (route: RouteOptions) => AnyHook | undefined }> = [];
  app.addHook('onRoute', (route) => {
    const hooks = route as unknown as Record<RouteHookName, AnyHook | AnyHook[] | undefined>;
    for (const name of NAMES) {
      const mine = registered.filter((r) => r.name === name).map((r) => r.forRoute(route)).filter((h) => h !== undefined);
      if (mine.length === 0) continue;
      const own = hooks[name];
      hooks[name] = [...mine, ...(own === undefined ? [] : Array.isArray(own) ? own : [own])];
    }
  });
  return { add: (name, forRoute) => { registered.push({ name, forRoute }); } };
}

/** the route's methods (a route may be registered for several) */
export function methodsOf(route: RouteOptions): string[] {
  return Array.isArray(route.method) ? route.method : [route.method];
}
