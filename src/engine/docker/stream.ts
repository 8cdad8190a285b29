// The Engine API's progress streams (build, pull, push): newline-delimited JSON objects read as
// they arrive, pull/push progress condensed to one line per layer state change, and the daemon's
// own message out of a failed call.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

export interface DaemonMessage {
  stream?: string;
  status?: string;
  id?: string;
  progress?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string; Digest?: string; Tag?: string };
}

/** each JSON object of a daemon progress stream, in order; stops early when `signal` aborts */
export async function* jsonLines(stream: NodeJS.ReadableStream, signal: AbortSignal): AsyncGenerator<DaemonMessage> {
  const lines = createInterface({ input: stream as Readable, crlfDelay: Infinity });
  const stop = () => { lines.close(); (stream as Readable).destroy?.(); };
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const line of lines) {
      if (signal.aborted) return;
      const text = line.trim();
      if (!text) continue;
      try {
        yield JSON.parse(text) as DaemonMessage;
      } catch {
        yield { stream: text };
      }
    }
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/** turns pull/push status messages into log lines: one per layer and state, never per byte */
export class PullProgress {
  #last = new Map<string, string>();

  /** the line to log for this message, or null when it only repeats a layer's state */
  line(msg: DaemonMessage): string | null {
    if (!msg.status) return null;
    if (!msg.id) return msg.status;
    if (this.#last.get(msg.id) === msg.status) return null;
    this.#last.set(msg.id, msg.status);
    return `${msg.id}: ${msg.status}`;
  }
}

/** the message of a failed Engine API call (dockerode puts the daemon's JSON in `json`) */
export function daemonMessage(err: unknown): string {
  const e = err as { json?: { message?: string } | null; reason?: string; message?: string; statusCode?: number };
  const fromJson = e?.json && typeof e.json === 'object' ? e.json.message : undefined;
  return (fromJson ?? e?.message ?? String(err)).replace(/^\(HTTP code \d+\)[^-]*- /, '').trim();
}
