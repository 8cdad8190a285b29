// Steady HTTP load for zero-downtime tests: a few concurrent clients sending GETs with a given
// Host header to a loopback address at a fixed pace, recording every answer (or failure). Plus a
// tiny named upstream server that answers with its own name.
//
// Clients behave like browsers (RFC 9112 §9.3.1, RFC 9110 §9.2.2): a GET whose connection was
// reset before any byte of a response — a reused idle connection the server closed, or a new one
// reset while the proxy swaps its listener — is sent again once, on a new connection. Those are
// counted in `retried`; every other error, a second reset, or a non-200 is a failure. With
// `retry: false` a client never sends a request again: every reset is a failure.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoadResult {
  ok: number;
  /** every request that did not end in a 200: status or error text, and when */
  failures: Array<{ at: number; what: string }>;
  /** response bodies in completion order */
  bodies: string[];
  /** GETs re-sent because a reused keep-alive connection was closed before any response */
  retried: number;
}

export interface LoadOptions {
  /** e.g. http://127.0.0.1:8000 */
  address: string;
  host: string;
  total: number;
  concurrency: number;
  durationMs: number;
  path?: string;
  /** false: a new connection per request (default true: keep-alive, browser-like retry) */
  keepAlive?: boolean;
  /** false: no request is ever sent again; a connection closed before the answer is a failure (default true) */
  retry?: boolean;
}

class ReusedSocketClosed extends Error {}

function getOnce(agent: http.Agent | false, url: URL, host: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request({ agent, host: url.hostname, port: url.port, path, headers: { Host: host }, timeout: 10_000 }, (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err: NodeJS.ErrnoException) => {
      // a connection reset before any response: the reused idle connection a proxy or server
      // closed, or a new one reset while a proxy swaps its listener (a reload). A GET is
      // idempotent: a user agent may send it again (RFC 9110 §9.2.2), as browsers do
      const closedBeforeAnswer = !answered && (err.code === 'ECONNRESET' || err.message === 'socket hang up')
        && (req.reusedSocket || err.syscall === 'connect' || err.syscall === 'read');
      reject(closedBeforeAnswer ? new ReusedSocketClosed(err.message) : err);
    });
    req.end();
  });
}

/** `total` requests spread evenly over `durationMs` by `concurrency` clients */
export async function steadyLoad(opts: LoadOptions): Promise<LoadResult> {
  const url = new URL(opts.address);
  const result: LoadResult = { ok: 0, failures: [], bodies: [], retried: 0 };
  const perClient = Math.ceil(opts.total / opts.concurrency);
  const gap = opts.durationMs / perClient;
  const start = Date.now();
  const keepAlive = opts.keepAlive ?? true;
  const agent = new http.Agent({ keepAlive, maxSockets: opts.concurrency });
  const send = async () => {
    try {
      return await getOnce(keepAlive ? agent : false, url, opts.host, opts.path ?? '/');
    } catch (err) {
      if (!(err instanceof ReusedSocketClosed) || opts.retry === false) throw err;
      result.retried++;
      return getOnce(false, url, opts.host, opts.path ?? '/');
    }
  };
  const client = async (n: number) => {
    for (let i = 0; i < perClient && n * perClient + i < opts.total; i++) {
      const due = start + i * gap + (n * gap) / opts.concurrency;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      try {
        const res = await send();
        if (res.status === 200) { result.ok++; result.bodies.push(res.body); } else result.failures.push({ at: Date.now() - start, what: `${res.status} ${res.body.slice(0, 80)}` });
      } catch (err) {
        result.failures.push({ at: Date.now() - start, what: (err as Error).message });
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, (_, n) => client(n)));
  agent.destroy();
  return result;
}

export interface NamedServer {
  name: string;
  port: number;
  dial: string;
  served: number;
  /** stop like a container being stopped: no new connections, open ones closed */
  stop(): Promise<void>;
}

/** an HTTP server on 127.0.0.1 answering every request with its name */
export async function namedServer(name: string): Promise<NamedServer> {
  const state = { served: 0 };
  const server = http.createServer((_req, res) => {
    state.served++;
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end(name);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    name, port, dial: `127.0.0.1:${port}`,
    get served() { return state.served; },
    stop: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
