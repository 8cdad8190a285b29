// The live streams of the contract (docs/decisions/0500): a deployment's log and status, a
// service's lines (tail then live), an environment's service states. Authorization happens
// before the stream starts (errors are the usual JSON bodies); then each stream follows the
// database after its cursor, woken by the process's notification hub.
import type { FastifyReply } from 'fastify';
import type { Platform } from '../../platform.ts';
import { badRequest } from '../../lib/errors.ts';
import { iso } from '../../lib/text.ts';
import type { Principal } from '../access/principal.ts';
import { toLine, type DeploymentsService } from '../deployments/deployments.service.ts';
import type { ScopeService } from '../scope/scope.service.ts';
import { formatCursor, parseCursor } from './cursor.ts';
import { createNotificationHub, type NotificationHub, type Notice } from './notifications.ts';
import { DEFAULT_STREAM_PERIODS, follow, SseConnection, type FollowStep, type SseEvent, type StreamPeriods } from './sse.ts';
import * as repo from './streams.repo.ts';

/** lines read per step; the next step waits until the client has taken these */
const BATCH = 500;

interface StreamRequest {
  principal: Principal;
  headers: Record<string, string | string[] | undefined>;
  cursor?: string;
  reply: FastifyReply;
}

export interface StreamsService {
  deploymentLog(r: StreamRequest, deploymentId: string): Promise<void>;
  serviceLog(r: StreamRequest, serviceId: string, type: string, label: string, tail: number | undefined): Promise<void>;
  environmentStatus(r: StreamRequest, environmentId: string): Promise<void>;
  /** bytes written to open streams and not yet taken by the socket (bounded by backpressure) */
  bufferedBytes(): number;
  /** ends every open stream and stops listening (at shutdown) */
  close(): Promise<void>;
}

export interface StreamsDeps extends Pick<Platform, 'db' | 'logger'> {
  deployments: Pick<DeploymentsService, 'get' | 'findRecord'>;
  scope: Pick<ScopeService, 'service' | 'environment'>;
  /** keep-alive and safety-poll periods (DEFAULT_STREAM_PERIODS unless given; tests shorten them) */
  periods?: Partial<StreamPeriods>;
}

/** one per running berth (the composition root makes it): the open connections and the LISTEN connection, made on the first stream */
export function createStreamsService(ctx: StreamsDeps): StreamsService {
  const { db, logger } = ctx;
  const periods: StreamPeriods = { ...DEFAULT_STREAM_PERIODS, ...ctx.periods };
  let hub: NotificationHub | undefined;
  const open = new Set<SseConnection>();

  async function start(r: StreamRequest, wants: (n: Notice) => boolean, step: () => Promise<FollowStep>): Promise<void> {
    hub ??= createNotificationHub(db, logger);
    const conn = new SseConnection(r.reply, r.reply.getHeaders() as Record<string, string>, periods.keepAliveMs);
    open.add(conn);
    let follower: { wake(): void } | undefined;
    const off = hub.subscribe((n) => { if (n.channel === 'resync' || wants(n)) follower?.wake(); });
    conn.whenClosed(() => { off(); open.delete(conn); });
    await hub.ready();
    follower = follow(conn, step, (err) => logger.warn({ err, reqId: r.reply.request.id }, 'live stream failed'), periods.pollMs);
  }

  function logEvents(rows: repo.StreamLogRow[], status: string | null = null): { events: SseEvent[]; last: repo.LogCursor | null } {
    const events = rows.map((row) => ({ id: formatCursor({ tx: row.tx, id: row.id }, status), event: 'log', data: toLine(row) }));
    const lastRow = rows.at(-1);
    return { events, last: lastRow ? { tx: lastRow.tx, id: lastRow.id } : null };
  }

  return {
    async deploymentLog(r, deploymentId) {
      await ctx.deployments.get(r.principal, deploymentId);
      const cursor = parseCursor(r.headers['last-event-id'], r.cursor);
      let at = cursor.log;
      let sentStatus = cursor.status;
      const filter: repo.LogFilter = { column: 'deployment_id', value: deploymentId };
      await start(r, (n) => n.channel !== 'resync' && n.deployment_id === deploymentId, async () => {
        // the record first: lines committed before it finished are then visible to the read below
        const record = await ctx.deployments.findRecord(db, deploymentId);
        if (!record) return { events: [], more: false, done: true };
        const rows = await repo.linesAfter(db, filter, at, BATCH);
        const { events, last } = logEvents(rows, sentStatus);
        if (last) at = last;
        if (rows.length === BATCH) return { events, more: 'now' };
        if (record.status !== sentStatus) {
          sentStatus = record.status;
          events.push({ id: formatCursor(at, sentStatus), event: 'status', data: record });
        }
        const withheld = await repo.withheldAfter(db, filter, at);
        if (withheld) return { events, more: 'soon' };
        if (record.finished) events.push({ id: formatCursor(at, sentStatus), event: 'end', data: record });
        return { events, more: false, done: record.finished };
      });
    },

    async serviceLog(r, serviceId, type, label, tail = 100) {
      if (!Number.isInteger(tail) || tail < 0 || tail > 10_000) throw badRequest('tail must be an integer between 0 and 10000');
      await ctx.scope.service(r.principal, serviceId, 'read', type, label);
      const cursor = parseCursor(r.headers['last-event-id'], r.cursor);
      const filter: repo.LogFilter = { column: 'service_id', value: serviceId };
      let at: repo.LogCursor | null = cursor.log === repo.START ? null : cursor.log;
      await start(r, (n) => n.channel === 'berth_log' && n.service_id === serviceId, async () => {
        if (!at) {
          // first step of a fresh stream: the tail, then everything after it
          const rows = tail > 0 ? await repo.lastLines(db, filter, tail) : [];
          const { events, last } = logEvents(rows);
          at = last ?? await repo.settledHorizon(db, filter);
          return { events, more: 'now' };
        }
        const rows = await repo.linesAfter(db, filter, at, BATCH);
        const { events, last } = logEvents(rows);
        if (last) at = last;
        if (rows.length === BATCH) return { events, more: 'now' };
        return { events, more: (await repo.withheldAfter(db, filter, at)) ? 'soon' : false };
      });
    },

    async environmentStatus(r, environmentId) {
      await ctx.scope.environment(r.principal, environmentId, 'read');
      const sent = new Map<string, string>();
      let seq = 0;
      const base = Date.now();
      await start(r, (n) => n.channel === 'berth_status' && n.environment_id === environmentId, async () => {
        const events: SseEvent[] = [];
        for (const row of await repo.environmentServiceStates(db, environmentId)) {
          const data = { ...row, last_deployment_date: iso(row.last_deployment_date) };
          const key = JSON.stringify(data);
          if (sent.get(row.service_id) === key) continue;
          sent.set(row.service_id, key);
          events.push({ id: `${base}-${++seq}`, event: 'status', data });
        }
        return { events, more: false };
      });
    },

    bufferedBytes() {
      let total = 0;
      for (const conn of open) total += conn.raw.writableLength;
      return total;
    },

    async close() {
      for (const conn of open) conn.end();
      open.clear();
      await hub?.close();
      hub = undefined;
    },
  };
}
