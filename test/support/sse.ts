// A server-sent events reader for tests: fetch a stream with a token, collect the parsed events
// (eventsource-parser, the same parser the CLI uses), wait for a condition, close.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { eventually } from './harness.ts';

interface StreamEvent { id: string | undefined; event: string | undefined; data: any }

export interface OpenStream {
  status: number;
  headers: Headers;
  /** the JSON error body when the stream did not start */
  error: any;
  events: StreamEvent[];
  comments: string[];
  /** resolves when the server closed the stream */
  ended: Promise<void>;
  until(pred: (events: StreamEvent[]) => boolean, timeoutMs?: number): Promise<StreamEvent[]>;
  close(): void;
}

export async function openStream(url: string, token: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Token ${token}`, ...headers }, signal: abort.signal });
  const events: StreamEvent[] = [];
  const comments: string[] = [];
  let error: any = null;
  let ended: Promise<void> = Promise.resolve();
  if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
    error = await res.json().catch(() => null);
  } else {
    const parser = createParser({
      onEvent: (m: EventSourceMessage) => events.push({ id: m.id, event: m.event, data: JSON.parse(m.data) }),
      onComment: (c) => comments.push(c.trim()),
    });
    ended = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
      } catch { /* aborted by close() */ }
    })();
  }
  return {
    status: res.status, headers: res.headers, error, events, comments, ended,
    until: (pred, timeoutMs = 10_000) => eventually(async () => pred(events) && events, timeoutMs, 20),
    close: () => abort.abort(),
  };
}
