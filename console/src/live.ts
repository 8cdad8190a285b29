// Live data for the console: the API's server-sent event streams, read with fetch (EventSource
// cannot send the Authorization header) and parsed by eventsource-parser, resumed from the last
// cursor after a drop. Where a stream route answers 404 (a berth without streams), the caller's
// poll runs instead, never more often than every 3 seconds.
import { useEffect, useRef } from 'react';
import { createParser } from 'eventsource-parser';
import { authorization } from './api.ts';

export const MIN_POLL_MS = 3000;

export interface StreamEvent { id: string | undefined; event: string; data: unknown }

export type StreamOutcome = 'ended' | 'unsupported' | 'aborted' | 'failed';

/** reads one stream until it ends, the signal aborts or the connection fails */
export async function readStream(
  url: string, onEvent: (e: StreamEvent) => void, signal: AbortSignal, lastEventId?: string,
): Promise<{ outcome: StreamOutcome; lastEventId: string | undefined; status?: number }> {
  let last = lastEventId;
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  const a = authorization();
  if (a) headers.authorization = a;
  if (last) headers['last-event-id'] = last;
  let res: Response;
  try {
    res = await fetch(url, { headers, signal, cache: 'no-store' });
  } catch {
    return { outcome: signal.aborted ? 'aborted' : 'failed', lastEventId: last };
  }
  if (res.status === 404 || res.status === 405 || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    await res.body?.cancel().catch(() => {});
    return { outcome: res.ok || res.status === 404 || res.status === 405 ? 'unsupported' : 'failed', lastEventId: last, status: res.status };
  }
  let ended = false;
  const parser = createParser({
    onEvent(msg) {
      if (msg.id) last = msg.id;
      let data: unknown = msg.data;
      try { data = JSON.parse(msg.data); } catch { /* keep the text */ }
      const name = msg.event ?? 'message';
      if (name === 'end') ended = true;
      onEvent({ id: msg.id, event: name, data });
    },
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
  } catch {
    return { outcome: signal.aborted ? 'aborted' : 'failed', lastEventId: last };
  }
  return { outcome: ended ? 'ended' : 'failed', lastEventId: last };
}

/**
 * Follows `url` while mounted: reconnects after a drop (resuming after the last event), stops
 * after `end`; if the route does not exist, calls `poll` every `pollMs` (at least 3 s) instead.
 */
export function useLive(
  url: string | null, onEvent: (e: StreamEvent) => void, poll: (() => void) | null, pollMs = MIN_POLL_MS,
): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const poller = useRef(poll);
  poller.current = poll;
  useEffect(() => {
    if (!url) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setInterval> | undefined;
    const startPolling = () => {
      if (!poller.current) return;
      timer = setInterval(() => poller.current?.(), Math.max(pollMs, MIN_POLL_MS));
    };
    (async () => {
      let cursor: string | undefined;
      let failures = 0;
      while (!controller.signal.aborted) {
        const r = await readStream(url, (e) => handler.current(e), controller.signal, cursor);
        cursor = r.lastEventId;
        if (r.outcome === 'ended' || r.outcome === 'aborted') return;
        if (r.outcome === 'unsupported') return startPolling();
        failures += 1;
        // a refused stream (403, 5xx…) or repeated drops: fall back to the poll
        if (r.status !== undefined || failures >= 5) return startPolling();
        await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * failures, MIN_POLL_MS)));
      }
    })();
    return () => {
      controller.abort();
      if (timer) clearInterval(timer);
    };
  }, [url, pollMs]);
}
