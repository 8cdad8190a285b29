// Caddy's JSON config for berth's ingress, pure: the validation of everything that reaches the
// config (route ids, host names, upstream dial addresses), the shape of one route, the base
// config (berth's server, the admin endpoint, the catch-all 404) and the reading of the live
// routes back. No I/O here; caddy.ts sends these objects through the admin API.

export const SERVER_ID = 'berth';
export const ROUTE_PREFIX = 'berth-route-';
export const FALLBACK_ID = 'berth-fallback';
export const FALLBACK_BODY = 'no berth service at this address\n';

/** how long Caddy keeps retrying other upstreams for one request (a replica going away) */
export const TRY_DURATION = '5s';
/** how long an upstream that failed once is left out of the rotation */
export const FAIL_DURATION = '10s';

export interface RouteSpec { id: string; hosts: string[]; upstreams: string[] }

const ROUTE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const UPSTREAM = /^127\.0\.0\.1:([0-9]{1,5})$/;

export class IngressInputError extends Error {
  override name = 'IngressInputError';
}

/** a DNS name made of lower-case labels; with a domain, strictly below it */
export function checkHost(host: string, domain?: string): string {
  const name = host.toLowerCase();
  const labels = name.split('.');
  if (name.length > 253 || labels.some((l) => !LABEL.test(l))) {
    throw new IngressInputError(`ingress: host ${JSON.stringify(host)} is not a DNS name`);
  }
  if (domain !== undefined && domain !== '') {
    const suffix = `.${domain.toLowerCase()}`;
    if (!name.endsWith(suffix) || name.length === suffix.length) {
      throw new IngressInputError(`ingress: host ${JSON.stringify(host)} is not under the ingress domain ${domain}`);
    }
  }
  return name;
}

/** only loopback dial addresses: the proxy routes to berth's published container ports, nothing else */
export function checkUpstream(upstream: string): string {
  const m = UPSTREAM.exec(upstream);
  const port = m ? Number(m[1]) : 0;
  if (!m || port < 1 || port > 65535) {
    throw new IngressInputError(`ingress: upstream ${JSON.stringify(upstream)} is not 127.0.0.1:<port>`);
  }
  return `127.0.0.1:${port}`;
}

export function checkRouteId(id: string): string {
  if (!ROUTE_ID.test(id)) throw new IngressInputError(`ingress: route id ${JSON.stringify(id)} must be letters, digits, '.', '_' or '-'`);
  return id;
}

/** validated and normalised: hosts and upstreams deduplicated, at least one of each */
export function checkRoute(route: RouteSpec, domain?: string): RouteSpec {
  const id = checkRouteId(route.id);
  const hosts = [...new Set((route.hosts ?? []).map((h) => checkHost(h, domain)))];
  const upstreams = [...new Set((route.upstreams ?? []).map(checkUpstream))];
  if (hosts.length === 0) throw new IngressInputError(`ingress: route ${id} has no host`);
  if (upstreams.length === 0) throw new IngressInputError(`ingress: route ${id} has no upstream`);
  return { id, hosts, upstreams };
}

export function caddyId(routeId: string): string {
  return `${ROUTE_PREFIX}${routeId}`;
}

export function upstreamsJson(upstreams: string[]): Array<{ dial: string }> {
  return upstreams.map((dial) => ({ dial }));
}

/** one host-matched route: round robin over the replicas, passive health and retries so a replica going away fails no request */
export function routeJson(route: RouteSpec): object {
  return {
    '@id': caddyId(route.id),
    match: [{ host: route.hosts }],
    handle: [{
      handler: 'reverse_proxy',
      upstreams: upstreamsJson(route.upstreams),
      load_balancing: {
        selection_policy: { policy: 'round_robin' },
        try_duration: TRY_DURATION,
        try_interval: '100ms',
      },
      health_checks: { passive: { fail_duration: FAIL_DURATION, max_fails: 1 } },
    }],
    terminal: true,
  };
}

export function fallbackJson(): object {
  return {
    '@id': FALLBACK_ID,
    handle: [{
      handler: 'static_response',
      status_code: 404,
      headers: { 'Content-Type': ['text/plain; charset=utf-8'] },
      body: FALLBACK_BODY,
    }],
    terminal: true,
  };
}

export function listenAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** the admin endpoint: loopback only, Origin checked, config autosaved for `caddy run --resume` */
export function adminJson(adminPort: number): object {
  return {
    listen: `127.0.0.1:${adminPort}`,
    enforce_origin: true,
    origins: [`127.0.0.1:${adminPort}`],
    config: { persist: true },
  };
}

export function serverJson(host: string, port: number, routes: object[]): object {
  return {
    listen: [listenAddress(host, port)],
    automatic_https: { disable: true },
    routes: [...routes, fallbackJson()],
  };
}

/** the whole config Caddy starts from; `routes` are kept from an earlier run's autosave */
export function baseConfig(opts: { host: string; port: number; adminPort: number }, routes: object[] = []): object {
  return {
    admin: adminJson(opts.adminPort),
    apps: { http: { servers: { [SERVER_ID]: serverJson(opts.host, opts.port, routes) } } },
  };
}

interface RawRoute { '@id'?: unknown; match?: Array<{ host?: unknown }>; handle?: Array<{ upstreams?: Array<{ dial?: unknown }> }> }

export function isBerthRoute(raw: unknown): raw is RawRoute {
  const id = (raw as RawRoute | null)?.['@id'];
  return typeof id === 'string' && id.startsWith(ROUTE_PREFIX);
}

/** berth's routes out of the live `routes` array (the catch-all and anything foreign left out) */
export function readRoutes(raw: unknown): RouteSpec[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isBerthRoute).map((r) => ({
    id: String(r['@id']).slice(ROUTE_PREFIX.length),
    hosts: (r.match ?? []).flatMap((m) => (Array.isArray(m.host) ? m.host.map(String) : [])),
    upstreams: (r.handle?.[0]?.upstreams ?? []).map((u) => String(u.dial)),
  }));
}

/** the berth server of a full config, if this config is berth's */
export function berthServer(config: unknown): { listen?: unknown; routes?: unknown } | null {
  const servers = (config as { apps?: { http?: { servers?: Record<string, unknown> } } } | null)?.apps?.http?.servers;
  const server = servers?.[SERVER_ID];
  return server && typeof server === 'object' ? server as { listen?: unknown; routes?: unknown } : null;
}
