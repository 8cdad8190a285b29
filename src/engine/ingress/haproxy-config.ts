// HAProxy's side of berth's ingress, pure: the configuration file HAProxy starts (and reloads)
// from, the two map files it loads, and the reading of its runtime API's answers. Routing is a
// map lookup: the Host header (port cut, lower-cased) → one of a fixed pool of "slot" backends
// (hosts.map); which route owns a slot is a second map (routes.map). Servers (the replicas'
// loopback ports) are added, put in maintenance and deleted at run time, so a route change is a
// few runtime commands and never a reload: connections to other routes are not touched
// (decision 0334). Each slot backend carries its route's rules (haproxy-rules.ts; free slots the
// default ones) and rules.map says which rules each slot has (decision 0337). No I/O here.
import { DEFAULT_DIGEST, backendRules, rulesDigest, serverOptions, userlist } from './haproxy-rules.ts';
import { listenAddress, type RouteSpec } from './routes.ts';
import { DEFAULT_ROUTE_SETTINGS } from './settings.ts';
import { acmeBackendLines, frontendTlsLines, type TlsListen } from './haproxy-tls.ts';

const FRONTEND = 'berth';
export const FALLBACK = 'berth-fallback';
const SLOT_PREFIX = 'berth-slot-';
export const HOSTS_MAP = 'hosts.map';
export const ROUTES_MAP = 'routes.map';
export const RULES_MAP = 'rules.map';
export const SOCKET_NAME = 'admin.sock';
const FALLBACK_BODY = 'no berth service at this address\n';
/** slot backends a fresh proxy starts with; the pool doubles (one reload) when routes fill it */
const INITIAL_SLOTS = 128;

export interface SlotRoute extends RouteSpec { slot: number }
/** who owns the runtime socket: berth's user, also when HAProxy runs as root in a container (decision 0348) */
export interface SocketOwner { uid: number; gid: number }

export const slotName = (n: number): string => `${SLOT_PREFIX}${n}`;
export const slotNumber = (backend: string): number | null =>
  backend.startsWith(SLOT_PREFIX) && /^\d+$/.test(backend.slice(SLOT_PREFIX.length)) ? Number(backend.slice(SLOT_PREFIX.length)) : null;
/** a replica's server name inside its slot: its loopback port */
/** a server's name in its backend: u<port> on loopback, u<a>_<b>_<c>_<d>_<port> on a Swarm node (two nodes may publish one port) */
export const serverName = (upstream: string): string => {
  const at = upstream.lastIndexOf(':');
  const host = upstream.slice(0, at);
  return host === '127.0.0.1' ? `u${upstream.slice(at + 1)}` : `u${host.replace(/\./g, '_')}_${upstream.slice(at + 1)}`;
};

/** enough slots for `routes` routes with room to grow: INITIAL_SLOTS, doubled as often as needed */
export function slotsFor(routes: number, atLeast = INITIAL_SLOTS): number {
  let slots = Math.max(1, atLeast);
  while (slots < routes + 1) slots *= 2;
  return slots;
}

/**
 * The whole configuration. Paths are relative: HAProxy runs with `-C <dataDir>/ingress`. Timeouts
 * are inactivity limits, long on purpose (an SSE stream or a WebSocket may be quiet for minutes);
 * retries go to another replica (redispatch) on a refused connection, and on an empty answer only
 * for GET, HEAD and OPTIONS.
 */
export function haproxyConfig(o: { host: string; port: number; slots: number; routes: SlotRoute[]; tls?: TlsListen; socketOwner?: SocketOwner }): string {
  const bySlot = new Map(o.routes.map((r) => [r.slot, r]));
  const slots = Array.from({ length: o.slots }, (_, n) => {
    const route = bySlot.get(n);
    const settings = route?.settings ?? DEFAULT_ROUTE_SETTINGS;
    return [
      `backend ${slotName(n)}`,
      '  balance roundrobin',
      ...backendRules(n, route?.id ?? null, settings),
      ...(route?.upstreams ?? []).map((u) => `  server ${serverName(u)} ${u}${serverOptions(settings)}`),
      '',
    ].join('\n');
  });
  const userlists = o.routes.flatMap((r) => userlist(r.slot, r.settings ?? DEFAULT_ROUTE_SETTINGS));
  return [
    '# berth\'s ingress: written by berth at each start and reload of this proxy. Routes change at run',
    '# time through the runtime API (admin.sock); berth keeps them in routes.json. Do not edit.',
    'global',
    '  master-worker',
    `  stats socket unix@${SOCKET_NAME} mode 600 level admin expose-fd listeners${o.socketOwner ? ` uid ${o.socketOwner.uid} gid ${o.socketOwner.gid}` : ''}`,
    '  stats timeout 30s',
    '  log stderr format raw local0 err',
    '',
    'defaults',
    '  mode http',
    '  log global',
    '  option dontlognull',
    '  option forwardfor',
    '  timeout connect 5s',
    '  timeout client 1h',
    '  timeout server 1h',
    '  timeout tunnel 24h',
    '  timeout http-request 30s',
    '  timeout http-keep-alive 5m',
    '  timeout queue 10s',
    '  timeout client-fin 30s',
    '  timeout server-fin 30s',
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure empty-response',
    '',
    `frontend ${FRONTEND}`,
    `  bind ${listenAddress(o.host, o.port)}`,
    '  http-request disable-l7-retry if !{ method GET HEAD OPTIONS }',
    '  http-request set-header X-Forwarded-Proto http',
    '  http-request set-header X-Forwarded-Host %[req.hdr(host)]',
    ...frontendTlsLines(listenAddress(o.host, o.port), o.tls),
    `  use_backend %[req.hdr(host),field(1,:),lower,map(${HOSTS_MAP})]`,
    `  default_backend ${FALLBACK}`,
    '',
    `backend ${FALLBACK}`,
    '  # loads routes.map, the slot → route id map berth reads and edits through the runtime API',
    `  acl berth_routes str(),map(${ROUTES_MAP}) -m found`,
    '  # and rules.map, slot → digest of the rules its backend was written with',
    `  acl berth_rules str(),map(${RULES_MAP}) -m found`,
    `  http-request return status 404 content-type "text/plain; charset=utf-8" string "${FALLBACK_BODY.replace('\n', '\\n')}"`,
    '',
    ...acmeBackendLines(o.tls),
    ...userlists,
    ...slots,
  ].join('\n');
}

/** the digest of the rules a slot's backend is written with */
const slotDigest = (route: SlotRoute | undefined): string =>
  route ? rulesDigest(route.settings ?? DEFAULT_ROUTE_SETTINGS, route.id) : DEFAULT_DIGEST;

/** the three map files for these routes in a pool of `slots` slots */
export function mapFiles(routes: SlotRoute[], slots: number): { hosts: string; routes: string; rules: string } {
  const bySlot = new Map(routes.map((r) => [r.slot, r]));
  return {
    hosts: routes.flatMap((r) => r.hosts.map((h) => `${h} ${slotName(r.slot)}\n`)).join(''),
    routes: routes.map((r) => `${slotName(r.slot)} ${r.id}\n`).join(''),
    rules: Array.from({ length: slots }, (_, n) => `${slotName(n)} ${slotDigest(bySlot.get(n))}\n`).join(''),
  };
}

/** the listen address a configuration file binds (to tell whether INGRESS_HOST/PORT changed) */
export function boundAddress(config: string): string | null {
  return /^ {2}bind (\S+)$/m.exec(config)?.[1] ?? null;
}

/** `show map <file>`: its entries, key → value */
export function parseMap(out: string): Array<[string, string]> {
  return [...out.matchAll(/^0x[0-9a-f]+ (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]);
}

/** `show backend`: the backend names */
export function parseBackends(out: string): string[] {
  return out.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
}

export interface LiveServer { backend: string; name: string; upstream: string; maint: boolean }

/** `show servers state`: every server with its address and whether it is in maintenance */
export function parseServers(out: string): LiveServer[] {
  const lines = out.split('\n');
  const header = lines.find((l) => l.startsWith('# be_id'))?.slice(2).split(' ') ?? [];
  const col = (name: string) => header.indexOf(name);
  const [be, name, addr, admin, port] = ['be_name', 'srv_name', 'srv_addr', 'srv_admin_state', 'srv_port'].map(col);
  if ([be, name, addr, admin, port].some((i) => i === undefined || i < 0)) return [];
  return lines.filter((l) => /^\d+ /.test(l)).map((l) => l.split(' ')).map((f) => ({
    backend: f[be!]!, name: f[name!]!, upstream: `${f[addr!]}:${f[port!]}`,
    // forced, inherited, configured or resolution maintenance: the server takes no new request
    maint: (Number(f[admin!]) & (0x01 | 0x02 | 0x04 | 0x20)) !== 0,
  }));
}

/** `show stat`: current sessions per backend/server */
export function parseSessions(out: string): Map<string, number> {
  const lines = out.split('\n');
  const header = (lines[0] ?? '').replace(/^# /, '').split(',');
  const [px, sv, scur] = ['pxname', 'svname', 'scur'].map((n) => header.indexOf(n));
  const sessions = new Map<string, number>();
  for (const line of lines.slice(1)) {
    const f = line.split(',');
    if (f.length < header.length - 1 || f[sv!] === 'FRONTEND' || f[sv!] === 'BACKEND') continue;
    sessions.set(`${f[px!]}/${f[sv!]}`, Number(f[scur!]) || 0);
  }
  return sessions;
}
