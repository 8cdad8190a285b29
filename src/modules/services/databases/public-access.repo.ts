// SQL for database_public_ports (the services module's table, decision 0333): the host port each
// PUBLIC database holds, and where the engine published it.
import type { Queryable } from '../../../db/db.ts';

export async function findReservedPorts(db: Queryable, serviceIds: readonly string[]): Promise<Array<{ service_id: string; port: number; host: string | null }>> {
  return db.query<{ service_id: string; port: number; host: string | null }>(
    'select service_id, port, host from database_public_ports where service_id = any($1::uuid[])', [serviceIds]);
}

export async function updatePublishedHost(db: Queryable, serviceId: string, host: string | null): Promise<void> {
  await db.query('update database_public_ports set host = $2 where service_id = $1 and host is distinct from $2', [serviceId, host]);
}

/** the port the database holds, if any */
export async function heldPort(db: Queryable, serviceId: string): Promise<number | null> {
  const held = await db.query<{ port: number }>('select port from database_public_ports where service_id = $1', [serviceId]);
  return held[0]?.port ?? null;
}

/** the reserved ports of the range */
export async function takenPorts(db: Queryable, from: number, to: number): Promise<Set<number>> {
  return new Set((await db.query<{ port: number }>(
    'select port from database_public_ports where port between $1 and $2', [from, to])).map((r) => r.port));
}

/** the port, when no other database took it first (the unique key decides) */
export async function insertReservation(db: Queryable, serviceId: string, port: number): Promise<number | null> {
  const rows = await db.query<{ port: number }>(
    'insert into database_public_ports (service_id, port) values ($1, $2) on conflict do nothing returning port', [serviceId, port]);
  return rows[0]?.port ?? null;
}

export async function deleteReservation(db: Queryable, serviceId: string): Promise<void> {
  await db.query('delete from database_public_ports where service_id = $1', [serviceId]);
}

/** those of the services that are PUBLIC databases, oldest first */
export async function publicDatabasesAmong(db: Queryable, serviceIds: readonly string[]): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `select id from services where id = any($1::uuid[]) and type = 'DATABASE' and spec->>'accessibility' = 'PUBLIC' order by created_at, id`, [serviceIds]);
  return rows.map((r) => r.id);
}
