// The console's only way to the server: berth's public API through a client typed from its own
// OpenAPI document (src/client/schema.d.ts), with the signed-in user's credential. Also owns the
// session (the token lives in sessionStorage only) and turns error bodies into plain words.
import createClient from 'openapi-fetch';
import type { paths } from '../../src/client/schema';

const TOKEN_KEY = 'berth.credential';

export const session = {
  get credential(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  /** an API token as given (`Token …` is added), or a full `Bearer …` value */
  signIn(credential: string): void {
    sessionStorage.setItem(TOKEN_KEY, credential.trim());
  },
  signOut(): void {
    sessionStorage.removeItem(TOKEN_KEY);
  },
};

export function authorization(): string | undefined {
  const c = session.credential;
  if (!c) return undefined;
  return /^(Token|Bearer) /.test(c) ? c : `Token ${c}`;
}

export const api = createClient<paths>({ baseUrl: '' });
api.use({
  onRequest({ request }) {
    const a = authorization();
    if (a) request.headers.set('authorization', a);
    return request;
  },
});

/** an error answered by the API, in the words the API chose */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** one entry per problem when the API lists them (`errors`), else the one message */
  readonly problems: Array<{ field: string | null; message: string }>;
  constructor(status: number, code: string, message: string, problems: Array<{ field: string | null; message: string }>) {
    super(message);
    this.status = status;
    this.code = code;
    this.problems = problems;
  }
}

let onUnauthorized: () => void = () => {};
export function whenUnauthorized(fn: () => void): void {
  onUnauthorized = fn;
}

const PLAIN: Record<number, string> = {
  401: 'Your credential was refused. Sign in again.',
  403: 'Your role does not allow this.',
  404: 'This no longer exists (or you cannot see it).',
  429: 'Too many requests for this token; wait a little and try again.',
};

/** the field a message is about: its first word when that looks like a field path */
function fieldOf(message: string): string | null {
  const m = /^([a-z_][\w]*(?:\.[\w]+)*)\b/.exec(message);
  return m ? m[1]! : null;
}

export function toApiError(response: Response, body: unknown): ApiError {
  const b = (body && typeof body === 'object' ? body : {}) as { message?: unknown; code?: unknown; errors?: unknown };
  const message = typeof b.message === 'string' && b.message ? b.message : PLAIN[response.status] ?? `The server answered ${response.status}.`;
  const listed = Array.isArray(b.errors) ? b.errors : [];
  const problems = listed.length > 0
    ? listed.map((e: { field?: unknown; path?: unknown; message?: unknown }) => {
      const msg = typeof e.message === 'string' ? e.message : String(e);
      const field = typeof e.field === 'string' ? e.field : typeof e.path === 'string' ? e.path.replace(/^\//, '').replace(/\//g, '.') : fieldOf(msg);
      return { field: field || null, message: msg };
    })
    : [{ field: response.status === 400 ? fieldOf(message) : null, message }];
  if (response.status === 401) onUnauthorized();
  return new ApiError(response.status, typeof b.code === 'string' ? b.code : 'error', message, problems);
}

/** unwraps an openapi-fetch answer: the data, or a thrown ApiError */
export async function call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const r = await pending;
  if (!r.response.ok) throw toApiError(r.response, r.error);
  return r.data as T;
}

/** for routes the generated types may not know yet (added in parallel): a plain authorized fetch */
export async function raw(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const a = authorization();
  if (a) headers.set('authorization', a);
  return fetch(path, { ...init, headers });
}

export function plainError(err: unknown): string {
  if (err instanceof ApiError) {
    const hint = PLAIN[err.status];
    return err.status === 403 && hint ? `${hint} (${err.message})` : err.message;
  }
  if (err instanceof TypeError) return 'berth could not be reached. Check that it is running and try again.';
  return err instanceof Error ? err.message : String(err);
}

export type Paths = paths;

/** a JSON request on a path built at run time (one of the per-type paths: /{kind}/{id}/…) */
export async function json<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await raw(path, {
    method,
    headers: body !== undefined ? { 'content-type': 'application/json' } : undefined,
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) {
    try { parsed = JSON.parse(text); } catch { parsed = text; }
  }
  if (!res.ok) throw toApiError(res, parsed);
  return parsed as T;
}

export type Page<T> = { results: T[]; pagination: { page: number; page_size: number; total_count: number; total_pages: number } };
