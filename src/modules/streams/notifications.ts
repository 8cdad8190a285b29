// One LISTEN per process for the live streams: the channels the triggers of migration 0010
// NOTIFY on (berth_log, berth_status), fanned out to the streams open in this process.
// PostgreSQL: a dedicated `pg` client, reconnected after a loss (subscribers are then told to
// re-read, since notifications sent meanwhile are gone). PGlite: its own in-process listen.
import pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../../db/db.ts';

type Channel = 'berth_log' | 'berth_status';
const CHANNELS: readonly Channel[] = ['berth_log', 'berth_status'];

/** payloads of the triggers; `resync` means "notifications may have been missed" */
export type Notice =
  | { channel: 'berth_log'; id: number; service_id: string; deployment_id: string | null }
  | { channel: 'berth_status'; environment_id: string; service_id: string; deployment_id: string | null }
  | { channel: 'resync' };

export interface NotificationHub {
  subscribe(fn: (n: Notice) => void): () => void;
  /** resolves once LISTEN is in place (read after this to miss nothing); never rejects */
  ready(): Promise<void>;
  close(): Promise<void>;
}

const RECONNECT_MS = 1000;

export function createNotificationHub(db: Db, logger: Logger): NotificationHub {
  const subscribers = new Set<(n: Notice) => void>();
  const dispatch = (n: Notice) => {
    for (const fn of subscribers) fn(n);
  };
  const onPayload = (channel: string, payload: string | undefined) => {
    try {
      dispatch({ channel, ...JSON.parse(payload ?? '{}') } as Notice);
    } catch {
      dispatch({ channel: 'resync' });
    }
  };

  let closed = false;
  let stopListening: () => Promise<void> = async () => {};
  let started: Promise<void> | undefined;

  async function startPglite(pglite: import('@electric-sql/pglite').PGlite): Promise<void> {
    const offs = await Promise.all(CHANNELS.map((c) => pglite.listen(c, (payload) => onPayload(c, payload))));
    stopListening = async () => {
      if (!pglite.closed) await Promise.all(offs.map((off) => off().catch(() => {})));
    };
  }

  function startPostgres(connectionString: string): Promise<void> {
    let client: pg.Client | undefined;
    let timer: NodeJS.Timeout | undefined;
    const connect = async (first: boolean): Promise<void> => {
      // named, so operators (and the tests) can find the LISTEN connection in pg_stat_activity
      const c = new pg.Client({ connectionString, application_name: 'berth-live-streams' });
      c.on('notification', (m) => onPayload(m.channel, m.payload));
      const lost = (err?: Error) => {
        if (closed || client !== c) return;
        client = undefined;
        logger.warn({ err }, 'live streams: lost the LISTEN connection; reconnecting');
        c.end().catch(() => {});
        timer = setTimeout(() => { connect(false).catch(() => {}); }, RECONNECT_MS);
      };
      c.on('error', lost);
      c.on('end', () => lost());
      client = c;
      try {
        await c.connect();
        for (const ch of CHANNELS) await c.query(`LISTEN ${ch}`);
        if (!first) dispatch({ channel: 'resync' });
      } catch (err) {
        if (first) { client = undefined; throw err; }
        lost(err as Error);
      }
    };
    stopListening = async () => {
      clearTimeout(timer);
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    };
    return connect(true);
  }

  function ensureStarted(): Promise<void> {
    started ??= db.native.kind === 'pglite' ? startPglite(db.native.pglite) : startPostgres(db.native.connectionString);
    return started;
  }

  return {
    subscribe(fn) {
      subscribers.add(fn);
      ensureStarted().catch((err) => {
        logger.warn({ err }, 'live streams: LISTEN failed; streams fall back to polling');
        started = undefined;
      });
      return () => { subscribers.delete(fn); };
    },
    async ready() {
      await (started ?? Promise.resolve()).catch(() => {});
    },
    async close() {
      closed = true;
      subscribers.clear();
      if (started) await started.catch(() => {});
      await stopListening();
    },
  };
}
