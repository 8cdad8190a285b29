// Following a live stream of the API (server-sent events, parsed by eventsource-parser): yields
// events as they arrive; after a dropped connection it reconnects with Last-Event-ID, so the
// caller sees every event once. An error answer before the stream starts is a CliError.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { apiError, authorization, unreachable, type Connection } from './api.ts';

export interface StreamEvent<T = any> { id: string | undefined; event: string; data: T }

const RECONNECT_MS = 1000;

export async function* follow(conn: Connection, path: string, options: { reconnect?: boolean; signal?: AbortSignal } = {}): AsyncGenerator<StreamEvent> {
  let lastId: string | undefined;
  for (;;) {
    let res: Response;
    try {
      res = await fetch(conn.url.replace(/\/+$/, '') + path, {
        headers: { authorization: authorization(conn.token), accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
        signal: options.signal,
      });
    } catch (err) {
      if (options.signal?.aborted) return;
      if (lastId === undefined || !options.reconnect) throw unreachable(conn.url, err);
      await new Promise((r) => setTimeout(r, RECONNECT_MS));
      continue;
    }
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
    await new Promise((r) => setTimeout(r, RECONNECT_MS));
  }
}
