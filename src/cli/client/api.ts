// The client's only way to a berth: the public API through openapi-fetch, typed by the paths of
// berth's own OpenAPI document (src/client/api-types.ts, generated). Failures become one-line CliErrors
// with the exit code of their kind (see exit-codes.ts).
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../client/api-types.ts';
import { CliError, EXIT } from './exit-codes.ts';

export type Api = Client<paths>;
export type { paths };

export interface Connection { url: string; token: string }

export function authorization(token: string): string {
  return /^(Token|Bearer) /.test(token) ? token : `Token ${token}`;
}

export function apiClient(conn: Connection): Api {
  const client = createClient<paths>({ baseUrl: conn.url.replace(/\/+$/, ''), headers: { authorization: authorization(conn.token) } });
  // a network failure (refused, DNS, TLS) says where and why, once
  client.use({
    onError({ error }) {
      throw unreachable(conn.url, error);
    },
  });
  return client;
}

export function unreachable(url: string, error: unknown): CliError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
  return new CliError(`cannot reach ${url}: ${reason}`, EXIT.UNREACHABLE);
}

interface ErrorBody { status?: number; error?: string; message?: string; code?: string; request_id?: string }

/** one line for an API error answer: "404 Not Found: Application not found (request 9f…)" */
export function apiError(status: number, body: unknown, requestId?: string | null): CliError {
  const b = (typeof body === 'object' && body !== null ? body : {}) as ErrorBody;
  const message = b.message ?? (typeof body === 'string' && body ? body.slice(0, 200) : 'no details');
  const reqId = b.request_id ?? requestId;
  const line = `${status} ${b.error ?? ''}: ${message}`.replace(' :', ':') + (reqId ? ` (request ${reqId})` : '');
  const code = status === 401 ? EXIT.AUTH : status === 403 || status === 404 ? EXIT.NOT_FOUND : EXIT.ERROR;
  return new CliError(status === 401 ? `${line}; run berth login` : line, code);
}

/** the data of an answer, or its error as a CliError */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw apiError(response.status, error, response.headers.get('x-request-id'));
  return data as T;
}
