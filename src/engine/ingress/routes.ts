// What may reach the ingress proxy, pure: route ids, host names and upstream dial addresses are
// checked and normalised here before any of them is written into the proxy's state, so the proxy
// only ever routes DNS names below INGRESS_DOMAIN to loopback ports berth's containers publish (or,
// on the swarm engine, to host-mode ports on the Swarm's nodes).

import { IngressInputError } from './errors.ts';
import type { RouteSettings } from './settings.ts';

/** a route: its hosts, its upstreams, and its settings (absent: keep the route's, or the defaults for a new one) */
export interface RouteSpec { id: string; hosts: string[]; upstreams: string[]; settings?: RouteSettings }

const ROUTE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const UPSTREAM = /^((?:[0-9]{1,3}\.){3}[0-9]{1,3}):([0-9]{1,5})$/;

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

/**
 * IPv4 dial addresses only (no names): berth's published container ports on loopback, and, on the
 * swarm engine, tasks' host-mode ports on the Swarm's own node addresses (`hosts`, decision 0343)
 */
export function checkUpstream(upstream: string, hosts: ReadonlySet<string> = NO_HOSTS): string {
  const m = UPSTREAM.exec(upstream);
  const port = m ? Number(m[2]) : 0;
  const host = m?.[1] ?? '';
  if (!m || port < 1 || port > 65535 || (host !== '127.0.0.1' && !hosts.has(host))) {
    throw new IngressInputError(`ingress: upstream ${JSON.stringify(upstream)} is not 127.0.0.1:<port>${hosts.size ? ' or <swarm node>:<port>' : ''}`);
  }
  return `${host}:${port}`;
}

const NO_HOSTS: ReadonlySet<string> = new Set();

export function checkRouteId(id: string): string {
  if (!ROUTE_ID.test(id)) throw new IngressInputError(`ingress: route id ${JSON.stringify(id)} must be letters, digits, '.', '_' or '-'`);
  return id;
}

/** validated and normalised: hosts and upstreams deduplicated, at least one of each */
export function checkRoute(route: RouteSpec, domain?: string, upstreamHosts?: ReadonlySet<string>): RouteSpec {
  const id = checkRouteId(route.id);
  const hosts = [...new Set((route.hosts ?? []).map((h) => checkHost(h, domain)))];
  const upstreams = [...new Set((route.upstreams ?? []).map((u) => checkUpstream(u, upstreamHosts)))];
  if (hosts.length === 0) throw new IngressInputError(`ingress: route ${id} has no host`);
  if (upstreams.length === 0) throw new IngressInputError(`ingress: route ${id} has no upstream`);
  return { id, hosts, upstreams };
}

/** where to reach the proxy from this machine: a wildcard listen address is reached on loopback */
export function listenAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** where a local client reaches a listener on host:port (a wildcard listen address on loopback) */
export function reachableAddress(host: string, port: number): string {
  return listenAddress(host === '' || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host, port);
}

export function proxyAddress(host: string, port: number): string {
  return `http://${reachableAddress(host, port)}`;
}
