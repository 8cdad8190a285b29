// berth's ingress: a Caddy process (never inside the API process) routing public host names to
// the loopback ports berth's containers publish. This module owns the Ingress interface the
// Docker driver calls: adopt-or-start the proxy, create/switch/remove host routes through
// Caddy's admin API one edit at a time, and read the live routes back for reconciliation.
// Pure config shapes live in caddy-config.ts, the process lifecycle in caddy-process.ts.
import {
  FAIL_DURATION, FALLBACK_ID, SERVER_ID, TRY_DURATION, IngressInputError,
  berthServer, caddyId, checkRoute, checkRouteId, fallbackJson, listenAddress, readRoutes, routeJson, upstreamsJson,
} from './caddy-config.ts';
import { AdminError, admin, findCaddy, lockStart, portFree, probeAdmin, refused, runningPid, startCaddy, stopCaddy } from './caddy-process.ts';

export { findCaddy, stopCaddy, IngressInputError };

export interface IngressRoute { id: string; hosts: string[]; upstreams: string[] }
export interface Ingress {
  /** adopt a running berth Caddy (its admin API answers on adminPort and carries berth's server) or start one */
  ensure(): Promise<void>;
  /** create the route, or switch an existing one's upstreams in place (no dropped connection, no 502 window) */
  upsert(route: IngressRoute): Promise<void>;
  remove(id: string): Promise<void>;
  list(): Promise<IngressRoute[]>;
  /** the proxy's own address (for health and tests), e.g. http://127.0.0.1:8000 */
  readonly address: string;
}
export interface CaddyOptions {
  dataDir: string; host: string; port: number; adminPort: number; caddyBin?: string;
  logger: { info(o: object | string, m?: string): void; warn(o: object | string, m?: string): void };
  /** INGRESS_DOMAIN: when given, every route host must be a name below it */
  domain?: string;
}

const ROUTES = `/config/apps/http/servers/${SERVER_ID}/routes`;

/** where to reach the proxy from this machine: a wildcard listen address is reached on loopback */
function proxyAddress(host: string, port: number): string {
  const reach = host === '' || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${listenAddress(reach, port)}`;
}

type RawRoute = { '@id'?: string; match?: Array<{ host?: string[] }>; handle?: Array<Record<string, any>> };

function sameHosts(a: string[], b: string[]): boolean {
  return a.length === b.length && [...a].sort().join(',') === [...b].sort().join(',');
}

/** a route this version of berth wrote (so switching only its upstreams keeps everything else right) */
function currentShape(raw: RawRoute): boolean {
  const h = raw.handle?.[0];
  return raw.handle?.length === 1 && h?.handler === 'reverse_proxy'
    && h.load_balancing?.try_duration === TRY_DURATION
    && h.load_balancing?.selection_policy?.policy === 'round_robin'
    && h.health_checks?.passive?.fail_duration === FAIL_DURATION;
}

export function createCaddyIngress(opts: CaddyOptions): Ingress {
  const { adminPort, logger } = opts;
  // every admin call of this object runs after the previous one finished: concurrent
  // deployments cannot interleave their read-then-edit sequences
  let tail: Promise<unknown> = Promise.resolve();
  function serial<T>(work: () => Promise<T>): Promise<T> {
    const next = tail.then(work, work);
    tail = next.catch(() => undefined);
    return next;
  }
  const call = (method: string, path: string, body?: unknown) => admin(adminPort, method, path, body);

  async function liveRoutes(): Promise<RawRoute[]> {
    const routes = await call('GET', ROUTES);
    return Array.isArray(routes) ? routes as RawRoute[] : [];
  }

  /** an adopted proxy gets the listen address and catch-all this configuration asks for */
  async function reconcileServer(config: unknown): Promise<void> {
    const server = berthServer(config)!;
    const listen = [listenAddress(opts.host, opts.port)];
    if (JSON.stringify(server.listen) !== JSON.stringify(listen)) {
      if (!(await portFree(opts.host, opts.port))) {
        throw new Error(`ingress: cannot listen on ${opts.host}:${opts.port}, the address is in use: set INGRESS_PORT to a free port`);
      }
      await call('PATCH', `/config/apps/http/servers/${SERVER_ID}/listen`, listen);
      logger.warn({ listen }, 'ingress: moved the running Caddy to the configured INGRESS_HOST/INGRESS_PORT');
    }
    const routes = Array.isArray(server.routes) ? server.routes as RawRoute[] : [];
    const last = routes[routes.length - 1];
    if (last?.['@id'] !== FALLBACK_ID) {
      if (routes.some((r) => r['@id'] === FALLBACK_ID)) await call('DELETE', `/id/${FALLBACK_ID}`);
      await call('POST', ROUTES, fallbackJson());
    }
  }

  const adminPortTaken = (detail: string) => new Error(`ingress: port 127.0.0.1:${adminPort} (INGRESS_ADMIN_PORT) is held by ${detail}, not berth's Caddy: stop it or set INGRESS_ADMIN_PORT to a free port`);

  async function ensure(): Promise<void> {
    const probe = await probeAdmin(adminPort);
    if (probe.state === 'foreign') throw adminPortTaken(probe.detail);
    if (probe.state === 'berth') return adopt(probe.config);
    const caddyBin = opts.caddyBin ?? findCaddy();
    if (!caddyBin || !findCaddy(caddyBin)) {
      throw new Error(`ingress: no caddy binary found (${opts.caddyBin ?? process.env.CADDY_BIN ?? 'caddy on PATH'}): install caddy or set CADDY_BIN`);
    }
    // berth processes of one data dir (api and worker roles) starting together: one starts Caddy,
    // the others wait and adopt it (Caddy binds with SO_REUSEPORT, so a second one would not fail)
    const release = await lockStart(opts.dataDir);
    try {
      const again = await probeAdmin(adminPort);
      if (again.state === 'berth') return adopt(again.config);
      if (again.state === 'foreign') throw adminPortTaken(again.detail);
      if (!(await portFree(opts.host, opts.port))) {
        throw new Error(`ingress: cannot listen on ${opts.host}:${opts.port}, the address is in use: set INGRESS_PORT to a free port`);
      }
      const pid = await startCaddy({ dataDir: opts.dataDir, host: opts.host, port: opts.port, adminPort, caddyBin });
      logger.info({ pid, adminPort, address: ingress.address }, 'ingress: started Caddy');
    } finally {
      await release();
    }
  }

  async function adopt(config: unknown): Promise<void> {
    await reconcileServer(config);
    logger.info({ adminPort, pid: runningPid(opts.dataDir), address: ingress.address }, 'ingress: adopted the running Caddy');
  }

  async function upsert(input: IngressRoute): Promise<void> {
    const route = checkRoute(input, opts.domain);
    const id = caddyId(route.id);
    const routes = await liveRoutes();
    for (const other of routes) {
      if (other['@id'] === id) continue;
      const taken = (other.match ?? []).flatMap((m) => m.host ?? []).find((h) => route.hosts.includes(h));
      if (taken) throw new IngressInputError(`ingress: host ${taken} is already routed by ${other['@id'] ?? 'another route'}`);
    }
    const existing = routes.find((r) => r['@id'] === id);
    if (!existing) {
      // inserted first: the catch-all 404 stays last
      await call('PUT', `${ROUTES}/0`, routeJson(route));
    } else if (sameHosts(existing.match?.[0]?.host ?? [], route.hosts) && existing.match?.length === 1 && currentShape(existing)) {
      // the gapless switch: only the upstream list changes, the listener and connections stay
      await call('PATCH', `/id/${id}/handle/0/upstreams`, upstreamsJson(route.upstreams));
    } else {
      await call('PATCH', `/id/${id}`, routeJson(route));
    }
  }

  async function remove(routeId: string): Promise<void> {
    const id = caddyId(checkRouteId(routeId));
    // more than one copy can only come from two berth processes racing; take them all away
    for (let i = 0; i < 10; i++) {
      try {
        await call('DELETE', `/id/${id}`);
      } catch (err) {
        if (err instanceof AdminError && err.status === 404) return;
        throw err;
      }
    }
  }

  /** a proxy that went away (killed, machine rebooted) is started again with its saved routes, once */
  async function healing<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (!refused(err)) throw err;
      logger.warn({ adminPort }, 'ingress: Caddy was not running; starting it again with its saved routes');
      await ensure();
      return work();
    }
  }

  const ingress: Ingress = {
    address: proxyAddress(opts.host, opts.port),
    ensure: () => serial(ensure),
    upsert: (route) => serial(() => healing(() => upsert(route))),
    remove: (id) => serial(() => healing(() => remove(id))),
    list: () => serial(() => healing(async () => readRoutes(await liveRoutes()))),
  };
  return ingress;
}
