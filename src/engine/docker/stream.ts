// The Engine API's progress streams (build, pull, push): newline-delimited JSON objects read as
// they arrive, and pull/push progress condensed to one line per layer state change.
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
