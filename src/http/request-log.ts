// How each finished request is logged: routine ones at debug (a busy API does not flood the
// log at info), errors (5xx) and slow requests at warn, always with the request id.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/** a request taking longer than this is worth a person's attention */
export const SLOW_REQUEST_MS = 1000;

export type RequestLogLevel = 'debug' | 'warn';

export function requestLogLevel(statusCode: number, elapsedMs: number): { level: RequestLogLevel; msg: string } {
  if (statusCode >= 500) return { level: 'warn', msg: 'request failed' };
  if (elapsedMs >= SLOW_REQUEST_MS) return { level: 'warn', msg: 'slow request' };
  return { level: 'debug', msg: 'request completed' };
}

/** the onResponse hook: one line per request (Fastify's own request logging is off); a callback
 * hook, not an async one, and nothing built for a level that is off (it runs on every request) */
export function logRequest(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const ms = Math.round(reply.elapsedTime);
  const { level, msg } = requestLogLevel(reply.statusCode, ms);
  if ((request.log as unknown as Logger).isLevelEnabled(level)) {
    request.log[level]({ reqId: request.id, method: request.method, url: request.originalUrl ?? request.url, statusCode: reply.statusCode, responseTime: ms }, msg);
  }
  done();
}
