// Following a live stream of the API (server-sent events, parsed by eventsource-parser): yields
// events as they arrive; after a dropped connection it reconnects with Last-Event-ID, so the
// caller sees every event once. An error answer before the stream starts is a CliError.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { apiError, authorization, unreachable, type Connection } from './api.ts';

export interface StreamEvent<T = any> { id: string | undefined; event: string; data: T }

const RECONNECT_MS = 1000;
/** a server gone for longer than this ends the command (exit 5) instead of retrying forever */
const GIVE_UP_MS = 30_000;

export async function* follow(conn: Connection, path: string, options: { reconnect?: boolean; signal?: AbortSignal } = {}): AsyncGenerator<StreamEvent> {
  let lastId: string | undefined;
  let connected = false;
  let lostSince: number | null = null;
  for (;;) {
    let res: Response;
    try {
      res = await fetch(conn.url.replace(/\/+$/, '') + path, {
        headers: { authorization: authorization(conn.token), accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
        signal: options.signal,
      });
    } catch (err) {
      if (options.signal?.aborted) return;
      if (!connected || !options.reconnect) throw unreachable(conn.url, err);
      lostSince ??= Date.now();
      if (Date.now() - lostSince > GIVE_UP_MS) throw unreachable(conn.url, err);
      await new Promise((r) => setTimeout(r, RECONNECT_MS));
      continue;
    }
    if (lostSince !== null) process.stderr.write('berth: stream resumed\n');
    connected = true;
    lostSince = null;
    if (!res.ok) {
      const text = await res.text();
      let body: unknown = text;
      try { body = JSON.parse(text); } catch { /* not JSON */ }
      throw apiError(res.status, body, res.headers.get('x-request-id'));
    }
    const queue: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (m) => queue.push(m) });
    const decoder = new TextDecoder();
    let ended = false;
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        while (queue.length) {
          const m = queue.shift()!;
          if (m.id) lastId = m.id;
          const e: StreamEvent = { id: m.id, event: m.event ?? 'message', data: JSON.parse(m.data) };
          yield e;
          if (e.event === 'end') ended = true;
        }
      }
    } catch (err) {
      if (options.signal?.aborted) return;
      if (!options.reconnect) throw unreachable(conn.url, err);
    }
    if (ended || options.signal?.aborted) return;
    // the server closed without `end` (restart, proxy timeout): resume after the last event
    if (!options.reconnect) return;
    process.stderr.write('berth: the stream was cut; reconnecting…\n');
    lostSince = Date.now();
    await new Promise((r) => setTimeout(r, RECONNECT_MS));
  }
}
