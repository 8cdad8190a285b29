// Idempotency-Key on POST: the first request with a key runs and its reply (status, body) is
// stored; the same key from the same caller within 24 h replays that reply without doing the
// work again; the same key with a different request is 409, as is one still in progress.
// 5xx replies are not kept, so the client can retry them. The hooks sit on POST routes only.
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Db } from '../db/db.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { badRequest, conflict } from '../lib/errors.ts';
import { methodsOf, type RouteHooks } from './route-hooks.ts';

export const IDEMPOTENCY_TTL_HOURS = 24;

declare module 'fastify' {
  interface FastifyRequest { idempotency?: { principal: string; key: string } }
}

export function installIdempotency(hooks: RouteHooks, db: Db): void {
  const isPost = (route: RouteOptions) => methodsOf(route).includes('POST');
  hooks.add('preHandler', (route) => (isPost(route) ? claimKey : undefined));
  hooks.add('onSend', (route) => (isPost(route) ? keepReply : undefined));

  async function claimKey(request: FastifyRequest, reply: FastifyReply) {
    if (request.method !== 'POST') return;
    const key = request.headers['idempotency-key'];
    if (key === undefined || !request.principal) return;
    if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
      throw badRequest('Idempotency-Key must be a string of 1 to 255 characters');
    }
    const principal = request.principal.key;
    const hash = sha256Hex(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`);
    const inserted = await db.query(
      `insert into idempotency_keys (principal, key, request_hash) values ($1, $2, $3)
       on conflict (principal, key) do update set request_hash = excluded.request_hash, status = null,
         body = null, content_type = null, created_at = now()
         where idempotency_keys.created_at < now() - make_interval(hours => $4::int)
       returning key`,
      [principal, key, hash, IDEMPOTENCY_TTL_HOURS],
    );
    if (inserted.length > 0) {
      request.idempotency = { principal, key };
      return;
    }
    const rows = await db.query<{ request_hash: string; status: number | null; body: string | null; content_type: string | null }>(
      'select request_hash, status, body, content_type from idempotency_keys where principal = $1 and key = $2',
      [principal, key],
    );
    const stored = rows[0];
    if (!stored) throw conflict('A request with this Idempotency-Key is still in progress', 'idempotency_in_progress');
    if (stored.request_hash !== hash) {
      throw conflict('This Idempotency-Key was already used with a different request', 'idempotency_key_reused');
    }
    if (stored.status === null) throw conflict('A request with this Idempotency-Key is still in progress', 'idempotency_in_progress');
    reply.code(stored.status).header('idempotent-replayed', 'true');
    if (stored.content_type) reply.type(stored.content_type);
    return reply.send(stored.body ?? undefined);
  }

  async function keepReply(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const ticket = request.idempotency;
    if (!ticket) return payload;
    request.idempotency = undefined;
    if (reply.statusCode >= 500) {
      await db.query('delete from idempotency_keys where principal = $1 and key = $2', [ticket.principal, ticket.key]).catch(() => {});
    } else {
      const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
      await db.query(
        'update idempotency_keys set status = $3, body = $4, content_type = $5 where principal = $1 and key = $2',
        [ticket.principal, ticket.key, reply.statusCode, body, String(reply.getHeader('content-type') ?? '')],
      );
    }
    return payload;
  }
}
