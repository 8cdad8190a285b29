// Server-sent events over a hijacked Fastify reply, and the follow loop every live stream runs:
// wake up on a notification (or a slow safety poll), re-read the database after the cursor,
// write, and wait for the socket to drain before reading more. Nothing is queued in memory
// beyond one batch: a slow client holds back reading, never buffering.
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

export interface StreamPeriods {
  /** the `: keep-alive` comment period (the contract: 15 s) */
  readonly keepAliveMs: number;
  /** a safety net for lost notifications; notifications do the real work */
  readonly pollMs: number;
}

/** the periods of a streams service unless it is given others (tests shorten them for their app) */
export const DEFAULT_STREAM_PERIODS: StreamPeriods = Object.freeze({ keepAliveMs: 15_000, pollMs: 5_000 });

/** lines withheld because an older transaction is still open are retried this soon */
const RETRY_MS = 200;

export interface SseEvent { id: string; event: string; data: unknown }

export class SseConnection {
  readonly raw: ServerResponse;
  closed = false;
  private readonly onClose: Array<() => void> = [];

  constructor(reply: FastifyReply, headers: Record<string, string | number | string[] | undefined>, keepAliveMs: number) {
    reply.hijack();
    this.raw = reply.raw;
    this.raw.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    this.raw.flushHeaders();
    const done = () => this.markClosed();
    this.raw.on('close', done);
    this.raw.on('error', done);
    const keepAlive = setInterval(() => this.comment('keep-alive'), keepAliveMs);
    this.whenClosed(() => clearInterval(keepAlive));
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    for (const fn of this.onClose.splice(0)) fn();
  }

  whenClosed(fn: () => void): void {
    if (this.closed) fn();
    else this.onClose.push(fn);
  }

  /** false when the socket's buffer is full: wait for drain() before writing more */
  send(e: SseEvent): boolean {
    if (this.closed) return false;
    return this.raw.write(`id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
  }

  comment(text: string): void {
    if (!this.closed) this.raw.write(`: ${text}\n\n`);
  }

  drain(): Promise<void> {
    if (this.closed || !this.raw.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => { this.raw.off('drain', done); resolve(); };
      this.raw.on('drain', done);
      this.whenClosed(done);
    });
  }

  end(): void {
    if (!this.closed) this.raw.end();
    this.markClosed();
  }
}

export interface FollowStep {
  /** events to send, in order; the cursor is carried by the stream itself */
  events: SseEvent[];
  /** true when more rows are waiting (a full batch, or rows withheld for an open transaction) */
  more: 'now' | 'soon' | false;
  /** true when the stream is complete: the connection is ended after these events */
  done?: boolean;
}

/**
 * Runs `step` until the connection closes: once at the start, then whenever `wake()` is called
 * (several wakes while a step runs coalesce into one more step), every pollMs, and RETRY_MS
 * after a step reporting rows it could not deliver yet.
 */
export function follow(conn: SseConnection, step: () => Promise<FollowStep>, onError: (err: unknown) => void, pollMs: number): { wake(): void } {
  let running = false;
  let dirty = true;
  let retry: NodeJS.Timeout | undefined;
  const poll = setInterval(() => wake(), pollMs);
  conn.whenClosed(() => { clearInterval(poll); clearTimeout(retry); });

  async function loop(): Promise<void> {
    running = true;
    try {
      while (dirty && !conn.closed) {
        dirty = false;
        const result = await step();
        let full = false;
        for (const e of result.events) full = !conn.send(e) || full;
        if (full) await conn.drain();
        if (result.done) { conn.end(); return; }
        if (result.more === 'now') dirty = true;
        else if (result.more === 'soon') {
          clearTimeout(retry);
          retry = setTimeout(() => wake(), RETRY_MS);
        }
      }
    } catch (err) {
      onError(err);
      conn.end();
    } finally {
      running = false;
    }
  }

  function wake(): void {
    dirty = true;
    if (!running && !conn.closed) void loop();
  }

  void loop();
  return { wake };
}
