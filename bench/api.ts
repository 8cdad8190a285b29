// A tiny JSON client for setting up bench fixtures through berth's own API, and a bounded-
// concurrency loop for seeding many rows (e.g. 10,000 environments) without a database handle.

export interface ApiAnswer { status: number; body: any; text: string }

export function apiClient(baseUrl: string, token: string) {
  return async function api(method: string, path: string, body?: unknown): Promise<ApiAnswer> {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Token ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = null;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    return { status: res.status, body: parsed, text };
  };
}

export type Api = ReturnType<typeof apiClient>;

/** true when the server has no route for the request (404 from the not-found handler) */
export function isNoRoute(answer: ApiAnswer): boolean {
  return answer.status === 404 && typeof answer.body?.message === 'string' && answer.body.message.startsWith('No route');
}

/** runs `task(i)` for i in [0, count) with at most `concurrency` in flight; stops at the first failure */
export async function inParallel(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < count) {
      const i = next++;
      try { await task(i); } catch (err) { failure ??= err; }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  if (failure !== undefined) throw failure;
}
