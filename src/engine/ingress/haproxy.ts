// berth's ingress: an HAProxy process (never inside the API process) routing public host names to
// the loopback ports berth's containers publish. This module owns the Ingress interface the
// Docker driver calls: adopt-or-start the proxy, create/switch/remove host routes through
// HAProxy's runtime API without any reload (so a deployment of one service never touches the
// connections of another, decision 0334), read the live routes back for reconciliation, and wait
// for the connections to a replaced version to end. A route's settings (access lists, auth, CORS,
// headers, limits: decision 0337) are rules of its slot backend, which the runtime API cannot
// change: a route whose rules differ from its slot's is written into the configuration and HAProxy
// reloaded; connections stay on the old worker until they end. Config shapes live in
// haproxy-config.ts and haproxy-rules.ts, the process lifecycle in haproxy-process.ts, and how it
// runs (a host process or a container, decision 0348) behind haproxy-launcher.ts.
import { existsSync, readFileSync } from 'node:fs';
import { caddyRoutes, stopEarlierCaddy } from './caddy-handover.ts';
import {
  HOSTS_MAP, ROUTES_MAP, RULES_MAP, boundAddress, haproxyConfig, parseMap, parseServers, parseSessions, serverName, slotName, slotNumber, slotsFor,
  type LiveServer, type SlotRoute,
} from './haproxy-config.ts';
import { rulesDigest, serverOptions } from './haproxy-rules.ts';
import {
  NotRunning, checkSocketPath, findHaproxy, ingressPaths, lockIngress, portFree, portTaken, probe, runtime, saveRoutes, savedRoutes, stopIngress, writeConfig,
} from './haproxy-process.ts';
import { IngressInputError } from './errors.ts';
import { checkRoute, checkRouteId, listenAddress, proxyAddress, type RouteSpec } from './routes.ts';
import { DEFAULT_ROUTE_SETTINGS, checkSettings, type RouteSettings } from './settings.ts';
import { tlsConfigCurrent, tlsEditor, type TlsListen } from './haproxy-tls.ts';
import { hostLauncher, type HaproxyLauncher } from './haproxy-launcher.ts';

export { findHaproxy, stopIngress };

/** `settings` absent: the route keeps the settings it has (a new route gets the defaults) */
interface IngressRoute { id: string; hosts: string[]; upstreams: string[]; settings?: RouteSettings }
export interface Ingress {
  /** adopt the running HAProxy of this data dir (its runtime API answers with berth's config) or start one */
  ensure(): Promise<void>;
  /** create the route, or switch an existing one's upstreams in place (no reload unless its settings change: no connection of any route is closed) */
  upsert(route: IngressRoute): Promise<void>;
  /** change the settings of an existing route, its hosts and upstreams as they are (a reload when its rules change); false when there is no such route */
  updateSettings(id: string, settings: RouteSettings): Promise<boolean>;
  remove(id: string): Promise<void>;
  list(): Promise<IngressRoute[]>;
  /** wait until the proxy holds no connection to any of these upstreams, at most timeoutMs; how many are still open */
  drain(upstreams: string[], timeoutMs: number, signal?: AbortSignal): Promise<number>;
  /** the proxy's own address (for health and tests), e.g. http://127.0.0.1:8000 */
  readonly address: string;
  /** its TLS listener, e.g. https://127.0.0.1:8443 (null: none) */
  readonly httpsAddress: string | null;
  /** route a custom domain as the service host `target` (an alias a redeploy never touches); `https`: its certificate is live, HTTP redirects */
  setDomain(domain: string, target: string, https: boolean): Promise<void>;
  removeDomain(domain: string): Promise<void>;
  /** HTTP to `host` (a `*.` name: every host one label under it) redirects to HTTPS */
  setHttps(host: string, on: boolean): Promise<void>;
  /** install or replace the certificate served for `host` (runtime API, no reload: open connections keep theirs) */
  setCertificate(host: string, chainPem: string, keyPem: string): Promise<void>;
  removeCertificate(host: string): Promise<void>;
}
export interface HaproxyOptions {
  dataDir: string; host: string; port: number; haproxyBin?: string;
  logger: { info(o: object | string, m?: string): void; warn(o: object | string, m?: string): void };
  /** INGRESS_DOMAIN: when given, every route host must be a name below it */
  domain?: string;
  /** ENGINE=swarm: the Swarm nodes' addresses, which routes may dial besides loopback (kept current by the swarm driver) */
  upstreamHosts?: ReadonlySet<string>;
  /** slot backends a fresh proxy starts with (tests use a few to exercise the growth reload) */
  initialSlots?: number;
  /** the TLS listener and where ACME challenges are answered (haproxy-tls.ts) */
  tls?: TlsListen;
  /** how HAProxy runs (haproxy-launcher.ts: a host process, or a container); absent: the host binary (haproxyBin) */
  launcher?: HaproxyLauncher;
}

/** a slot as the running proxy has it; `digest`: of the rules its backend was loaded with (null: unknown, an older berth's config) */
interface LiveSlot { n: number; id: string | null; hosts: string[]; servers: LiveServer[]; digest: string | null }
interface Live { slots: LiveSlot[]; hostSlot: Map<string, number> }

const routeOf = (s: LiveSlot): SlotRoute => ({ slot: s.n, id: s.id!, hosts: s.hosts, upstreams: s.servers.filter((x) => !x.maint).map((x) => x.upstream) });

export function createHaproxyIngress(opts: HaproxyOptions): Ingress {
  const { logger } = opts;
  const paths = ingressPaths(opts.dataDir);
  const launcher = opts.launcher ?? hostLauncher(opts.dataDir, opts.haproxyBin);
  const listen = listenAddress(opts.host, opts.port);
  // calls of this object run one after the other; the data dir's lock orders them with other processes'
  let tail: Promise<unknown> = Promise.resolve();
  function serial<T>(work: () => Promise<T>): Promise<T> {
    const next = tail.then(work, work);
    tail = next.catch(() => undefined);
    return next;
  }
  async function locked<T>(work: () => Promise<T>): Promise<T> {
    const release = await lockIngress(opts.dataDir);
    try { return await work(); } finally { await release(); }
  }
  const call = (command: string) => runtime(paths.socket, command);
  const tls = tlsEditor(paths.dir, call);
  /** a command whose answer must match `ok` (most answer nothing when they succeed) */
  async function must(command: string, ok = /^$/): Promise<void> {
    const out = (await call(command)).trim();
    if (!ok.test(out)) throw new Error(`ingress: HAProxy refused "${command}": ${out.split('\n')[0]}`);
  }

  async function readLive(): Promise<Live> {
    const [backends, hosts, owners, servers, rules] = await Promise.all([
      call('show backend'), call(`show map ${HOSTS_MAP}`), call(`show map ${ROUTES_MAP}`), call('show servers state'), call(`show map ${RULES_MAP}`),
    ]);
    const slots = new Map<number, LiveSlot>();
    for (const b of backends.split('\n')) {
      const n = slotNumber(b.trim());
      if (n !== null) slots.set(n, { n, id: null, hosts: [], servers: [], digest: null });
    }
    for (const [slot, id] of parseMap(owners)) { const s = slots.get(slotNumber(slot) ?? -1); if (s) s.id = id; }
    for (const [slot, digest] of parseMap(rules)) { const s = slots.get(slotNumber(slot) ?? -1); if (s) s.digest = digest; }
    const hostSlot = new Map<string, number>();
    for (const [host, slot] of parseMap(hosts)) {
      const s = slots.get(slotNumber(slot) ?? -1);
      if (s) { s.hosts.push(host); hostSlot.set(host, s.n); }
    }
    for (const server of parseServers(servers)) slots.get(slotNumber(server.backend) ?? -1)?.servers.push(server);
    return { slots: [...slots.values()].sort((a, b) => a.n - b.n), hostSlot };
  }
  const owned = (live: Live) => live.slots.filter((s) => s.id !== null);
  /** the settings berth last gave each route (routes.json) */
  const savedSettings = () => new Map(savedRoutes(paths).map((r) => [r.id, r.settings ?? DEFAULT_ROUTE_SETTINGS]));
  /** the live routes with their settings, as a new configuration must have them */
  function liveRoutes(live: Live, except?: string): SlotRoute[] {
    const settings = savedSettings();
    return owned(live).filter((s) => s.id !== except).map((s) => ({ ...routeOf(s), settings: settings.get(s.id!) ?? DEFAULT_ROUTE_SETTINGS }));
  }

  /** these routes in a pool of `slots`, loaded by a reload (pool growth, a moved listener, a route's new rules) */
  async function reload(routes: SlotRoute[], slots: number, why: string): Promise<void> {
    if ((await launcher.running()) === null) throw new Error(`ingress: cannot reload HAProxy (${why}): it was not started from ${opts.dataDir} as ${launcher.description}`);
    const config = { host: opts.host, port: opts.port, slots, routes, tls: opts.tls };
    await launcher.check(haproxyConfig(config));
    writeConfig(paths, config);
    await launcher.reload();
    saveRoutes(paths, routes.slice().sort((a, b) => a.slot - b.slot));
    logger.info({ slots, listen }, `ingress: reloaded HAProxy (${why}); open connections stay on the previous worker until they end`);
  }

  /** the route written into the configuration with its rules, in its slot (or a free one, or a new one): one reload */
  async function rewrite(live: Live, route: SlotRoute | Omit<SlotRoute, 'slot'>, why: string): Promise<void> {
    const others = liveRoutes(live, route.id);
    const slot = live.slots.find((s) => s.id === route.id) ?? live.slots.find((s) => s.id === null && s.hosts.length === 0);
    const n = slot?.n ?? live.slots.length;
    await reload([...others, { ...route, slot: n }], slot ? live.slots.length : slotsFor(others.length + 1, live.slots.length * 2), why);
  }

  /** servers in maintenance with no connection left are deleted (HAProxy refuses while any is open) */
  async function sweep(live: Live): Promise<void> {
    for (const s of live.slots) {
      for (const server of s.servers.filter((x) => x.maint)) await call(`del server ${server.backend}/${server.name}`);
    }
  }

  async function upsert(input: IngressRoute): Promise<void> {
    const settings = input.settings ? checkSettings(input.settings) : savedSettings().get(input.id) ?? DEFAULT_ROUTE_SETTINGS;
    const route = { ...checkRoute(input, opts.domain, opts.upstreamHosts), settings };
    const digest = rulesDigest(settings, route.id);
    const live = await readLive();
    for (const host of route.hosts) {
      const owner = live.slots.find((s) => s.n === live.hostSlot.get(host));
      if (owner?.id && owner.id !== route.id) throw new IngressInputError(`ingress: host ${host} is already routed by ${owner.id}`);
    }
    // a free slot whose backend already has the route's rules (the default ones, mostly) takes it without a reload
    const slot = live.slots.find((s) => s.id === route.id) ?? live.slots.find((s) => s.id === null && s.hosts.length === 0 && s.digest === digest);
    if (!slot || slot.digest !== digest) {
      const free = live.slots.some((s) => s.id === null && s.hosts.length === 0);
      return rewrite(live, route, slot ? `the rules of route ${route.id} changed` : free ? `route ${route.id} has rules of its own` : 'more routes than slot backends');
    }
    if (slot.id === null) {
      // a slot left half-written (a berth process stopped mid-edit) keeps nothing of it
      for (const server of slot.servers.filter((x) => !x.maint)) {
        await must(`set server ${slotName(slot.n)}/${server.name} state maint`);
        server.maint = true;
      }
    }
    const backend = slotName(slot.n);
    let added = false;
    // the new replicas first, then the host names, then the old replicas out: no request finds none
    for (const upstream of route.upstreams) {
      const existing = slot.servers.find((x) => x.name === serverName(upstream));
      if (existing && !existing.maint) continue;
      if (existing) {
        await must(`set server ${backend}/${existing.name} state ready`);
        existing.maint = false;
      } else {
        await must(`add server ${backend}/${serverName(upstream)} ${upstream}${serverOptions(settings)}`, /^New server registered\.$/);
        await must(`enable server ${backend}/${serverName(upstream)}`);
        added = true;
      }
    }
    // servers added at run time get their sticky cookie value when the backend's dynamic cookies are (re)enabled
    if (added && settings.sticky) await must(`enable dynamic-cookie backend ${backend}`);
    if (slot.id !== route.id) await must(`${slot.id === null ? 'add' : 'set'} map ${ROUTES_MAP} ${backend} ${route.id}`);
    for (const host of route.hosts) {
      if (live.hostSlot.get(host) === slot.n) continue;
      await must(`${live.hostSlot.has(host) ? 'set' : 'add'} map ${HOSTS_MAP} ${host} ${backend}`);
    }
    for (const host of slot.hosts.filter((h) => !route.hosts.includes(h))) await must(`del map ${HOSTS_MAP} ${host}`);
    for (const server of slot.servers.filter((x) => !x.maint && !route.upstreams.includes(x.upstream))) {
      await must(`set server ${backend}/${server.name} state maint`);
      server.maint = true;
    }
    await sweep(live);
    saveRoutes(paths, [...liveRoutes(live, route.id), { ...route, slot: slot.n }].sort((a, b) => a.slot - b.slot));
  }

  async function updateSettings(routeId: string, input: RouteSettings): Promise<boolean> {
    const id = checkRouteId(routeId);
    const settings = checkSettings(input);
    const live = await readLive();
    const slot = live.slots.find((s) => s.id === id);
    if (!slot) return false;
    if (slot.digest !== rulesDigest(settings, id)) await rewrite(live, { ...routeOf(slot), settings }, `the settings of route ${id} changed`);
    else saveRoutes(paths, [...liveRoutes(live, id), { ...routeOf(slot), settings }].sort((a, b) => a.slot - b.slot));
    return true;
  }

  async function remove(routeId: string): Promise<void> {
    const id = checkRouteId(routeId);
    const live = await readLive();
    for (const slot of live.slots.filter((s) => s.id === id)) {
      for (const host of slot.hosts) await must(`del map ${HOSTS_MAP} ${host}`);
      await must(`del map ${ROUTES_MAP} ${slotName(slot.n)}`);
      for (const server of slot.servers.filter((x) => !x.maint)) {
        await must(`set server ${slotName(slot.n)}/${server.name} state maint`);
        server.maint = true;
      }
      slot.id = null;
    }
    await sweep(live);
    saveRoutes(paths, liveRoutes(live));
  }

  async function drain(upstreams: string[], timeoutMs: number, signal?: AbortSignal): Promise<number> {
    const wanted = new Set(upstreams);
    const until = Date.now() + timeoutMs;
    for (;;) {
      const [servers, stats] = await Promise.all([call('show servers state'), call('show stat')]);
      const sessions = parseSessions(stats);
      const open = parseServers(servers).filter((s) => wanted.has(s.upstream))
        .reduce((n, s) => n + (sessions.get(`${s.backend}/${s.name}`) ?? 0), 0);
      if (open === 0 || Date.now() >= until || signal?.aborted) return open;
      await new Promise((r) => setTimeout(r, Math.min(200, Math.max(0, until - Date.now()))));
    }
  }

  const adminTaken = (detail: string) => new Error(`ingress: ${paths.socket} is held by ${detail}, not berth's HAProxy: stop it, or remove the socket file if nothing uses it`);

  /** an adopted proxy listening elsewhere than INGRESS_HOST/INGRESS_PORT ask is moved there (one reload) */
  async function adopt(): Promise<void> {
    let config = '';
    try { config = readFileSync(paths.configFile, 'utf8'); } catch { /* none: leave it */ }
    const bound = boundAddress(config);
    if (bound !== null && bound !== listen) {
      await locked(async () => {
        if (!(await portFree(opts.host, opts.port))) throw portTaken(opts.host, opts.port);
        const live = await readLive();
        await reload(liveRoutes(live), live.slots.length, `moved to ${listen}`);
      });
    } else if (config !== '' && !tlsConfigCurrent(config, listen, opts.tls)) {
      // an older berth's proxy, or another INGRESS_HTTPS_PORT: the TLS listener comes with one reload
      await locked(async () => {
        const live = await readLive();
        await reload(liveRoutes(live), live.slots.length, 'its HTTPS listener or custom-domain rules changed');
      });
    }
    // ACME challenges go to this berth process's API (a restarted berth may listen elsewhere)
    if (opts.tls?.acmeUpstream) await tls.pointAcme(opts.tls.acmeUpstream);
    const running = await launcher.running();
    if (running === null) logger.warn({ runtime: launcher.description }, 'ingress: adopted a running HAProxy this runtime did not start: it serves, but cannot be reloaded; `berth ingress stop` and a restart of berth run it as configured');
    logger.info({ proxy: running, address: ingress.address }, 'ingress: adopted the running HAProxy');
  }

  async function ensure(): Promise<void> {
    checkSocketPath(paths);
    const first = await probe(paths);
    if (first.state === 'foreign') throw adminTaken(first.detail);
    if (first.state === 'berth') return adopt();
    await launcher.prepare();
    // berth processes of one data dir starting together: one starts HAProxy, the others wait and
    // adopt it (HAProxy binds with SO_REUSEPORT, so a second one would not fail)
    const started = await locked(async () => {
      const again = await probe(paths);
      if (again.state === 'foreign') throw adminTaken(again.detail);
      if (again.state === 'berth') return null;
      await handOver();
      if (!(await portFree(opts.host, opts.port))) throw portTaken(opts.host, opts.port);
      const routes = savedRoutes(paths).map((r, slot) => ({ ...r, slot }));
      writeConfig(paths, { host: opts.host, port: opts.port, slots: slotsFor(routes.length, opts.initialSlots), routes, tls: opts.tls });
      return launcher.start({ host: opts.host, port: opts.port });
    });
    if (started === null) return adopt();
    logger.info({ proxy: started, address: ingress.address, routes: savedRoutes(paths).length }, `ingress: started HAProxy (${launcher.description})`);
  }

  /** the Caddy an earlier berth left running for this data dir gives its port and routes to HAProxy */
  async function handOver(): Promise<void> {
    if (!existsSync(paths.saved)) {
      const routes = caddyRoutes(paths.dir).flatMap((r) => { try { return [checkRoute(r, opts.domain, opts.upstreamHosts)]; } catch { return []; } });
      if (routes.length > 0) saveRoutes(paths, routes);
    }
    const pid = await stopEarlierCaddy(paths.dir);
    if (pid !== null) logger.warn({ pid, routes: savedRoutes(paths).length }, 'ingress: stopped the Caddy an earlier berth started; HAProxy serves its routes now (decision 0334)');
  }

  /** a proxy that went away (killed, machine rebooted) is started again with its saved routes, once */
  async function healing<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (!(err instanceof NotRunning)) throw err;
      logger.warn({ socket: paths.socket }, 'ingress: HAProxy was not running; starting it again with its saved routes');
      await ensure();
      return work();
    }
  }

  const ingress: Ingress = {
    address: proxyAddress(opts.host, opts.port),
    ensure: () => serial(ensure),
    upsert: (route) => serial(() => healing(() => locked(() => upsert(route)))),
    // not healing: a process that does not run the proxy (an API process elsewhere) must not start one; the next deployment applies them
    updateSettings: (id, settings) => serial(() => locked(() => updateSettings(id, settings))),
    remove: (id) => serial(() => healing(() => locked(() => remove(id)))),
    list: () => serial(() => healing(async () => owned(await readLive()).map((s) => { const { slot: _, ...r } = routeOf(s); return r as RouteSpec; }))),
    // not behind the other calls: a drain waits for up to INGRESS_DRAIN_SECONDS, other deployments must not
    drain: (upstreams, timeoutMs, signal) => healing(() => drain(upstreams, timeoutMs, signal)),
    httpsAddress: opts.tls?.httpsPort ? proxyAddress(opts.host, opts.tls.httpsPort).replace(/^http:/, 'https:') : null,
    setDomain: (domain, target, https) => serial(() => healing(() => locked(() => tls.setDomain(domain, target, https)))),
    removeDomain: (domain) => serial(() => healing(() => locked(() => tls.removeDomain(domain)))),
    setHttps: (host, on) => serial(() => healing(() => locked(() => tls.setHttps(host, on)))),
    setCertificate: (host, chain, key) => serial(() => healing(() => locked(() => tls.setCertificate(host, chain, key)))),
    removeCertificate: (host) => serial(() => healing(() => locked(() => tls.removeCertificate(host)))),
  };
  return ingress;
}
