// PUBLIC databases (decision 0333). A PUBLIC database holds one host port of
// DATABASE_PUBLIC_PORTS, reserved in database_public_ports when it becomes PUBLIC (created or
// edited so, or copied by an environment clone) and freed when it is edited PRIVATE or deleted:
// its address survives redeploys, stops and uninstalls, and no other database is given it
// meanwhile. The docker engine publishes it on INGRESS_HOST while the deployed database is
// PUBLIC; the swarm engine on the node holding its volume, whose address is recorded here at each
// deployment. Also the address clients are given: the public one for PUBLIC databases, the
// environment network's name and port otherwise.
import { createServer } from 'node:net';
import type { Config } from '../../../config/config.ts';
import type { Queryable } from '../../../db/db.ts';
import { publishAddress } from '../../../lib/net.ts';
import { conflict } from '../../../lib/errors.ts';
import * as repo from './public-access.repo.ts';
import type { ClonedEnvironment } from '../../environments/environments.service.ts';

export type PublicAccessConfig = Pick<Config, 'ingressHost' | 'ingressDomain' | 'databasePublicPorts'>;

/** database id → its reserved port, and the host it is published on when not INGRESS_HOST (a Swarm node) */
export type ReservedPorts = ReadonlyMap<string, { port: number; host: string | null }>;

const EVERY_ADDRESS = new Set(['', '0.0.0.0', '::', '[::]']);

/**
 * The host clients outside use: INGRESS_HOST, the one address the port is published on; when
 * INGRESS_HOST is every address, INGRESS_DOMAIN (the name of the host berth serves under).
 */
export function publicHost(c: Pick<Config, 'ingressHost' | 'ingressDomain'>): string {
  return EVERY_ADDRESS.has(c.ingressHost) ? c.ingressDomain : c.ingressHost;
}

export async function reservedPorts(db: Queryable, serviceIds: readonly string[]): Promise<ReservedPorts> {
  if (serviceIds.length === 0) return new Map();
  const rows = await repo.findReservedPorts(db, serviceIds);
  return new Map(rows.map((r) => [r.service_id, { port: r.port, host: r.host }]));
}

/** records where the engine published a PUBLIC database's port (null: INGRESS_HOST) */
export async function recordPublishedHost(db: Queryable, serviceId: string, host: string | null): Promise<void> {
  await repo.updatePublishedHost(db, serviceId, host);
}

/** whether something on this host already listens on the port (a program outside berth, another berth's database) */
function listenedOn(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    // only "in use" counts: an address this host cannot bind (berth's API elsewhere) proves nothing
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRINUSE'));
    server.listen({ host: publishAddress(host) || undefined, port, exclusive: true }, () => server.close(() => resolve(false)));
  });
}

/**
 * The database's port, reserving the lowest free one of DATABASE_PUBLIC_PORTS on first call.
 * Free: reserved by no database and listened on by nothing on INGRESS_HOST now. Concurrent
 * reservations of one port: the unique key keeps one, the other tries the next port.
 */
export async function reservePublicPort(db: Queryable, serviceId: string, c: PublicAccessConfig): Promise<number> {
  const held = await repo.heldPort(db, serviceId);
  if (held !== null) return held;
  const { from, to } = c.databasePublicPorts;
  const taken = await repo.takenPorts(db, from, to);
  for (let port = from; port <= to; port++) {
    if (taken.has(port) || await listenedOn(c.ingressHost, port)) continue;
    const reserved = await repo.insertReservation(db, serviceId, port);
    if (reserved !== null) return reserved;
  }
  throw conflict(`Every port of DATABASE_PUBLIC_PORTS (${from}-${to}) is reserved by a PUBLIC database or in use on this host: widen the range, or make other databases PRIVATE or delete them`, 'no_public_port');
}

/** a database edited PRIVATE gives its port back (its running replica keeps it until the next deployment, which the reservation of another database checks) */
export async function releasePublicPort(db: Queryable, serviceId: string): Promise<void> {
  await repo.deleteReservation(db, serviceId);
}

/** an environment clone copies PUBLIC databases: each copy gets a port of its own */
export async function reservePublicPortsForClone(tx: Queryable, config: PublicAccessConfig, clone: ClonedEnvironment): Promise<void> {
  const copies = [...clone.serviceIdMap.values()];
  if (copies.length === 0) return;
  for (const id of await repo.publicDatabasesAmong(tx, copies)) await reservePublicPort(tx, id, config);
}
