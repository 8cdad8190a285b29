// A git provider's REST API on loopback, written for the tests of status on the provider
// (src/modules/provider-status): the subset of GitHub's, GitLab's, Gitea's and Bitbucket's APIs
// berth calls, each under a prefix of its own (/github, /gitlab, /gitea, /bitbucket: a git
// token's git_api_url points at one). It records every call (method, path without the prefix,
// JSON body, Authorization header), answers with an id as the provider does, knows the comments
// it made (an edit of an unknown one is a 404), and can be told to refuse (`answer`).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProviderName = 'github' | 'gitlab' | 'gitea' | 'bitbucket';

export interface ProviderCall { provider: ProviderName; method: string; path: string; body: Record<string, unknown>; authorization: string | null }

/** an answer other than the provider's success for the calls `match` picks (`times`: that many, then success again) */
interface Override { match: (c: ProviderCall) => boolean; status: number; times: number }

export interface ProviderApi {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly calls: ProviderCall[];
  /** the git_api_url of a provider on this server */
  apiUrl(provider: ProviderName): string;
  /** answer `status` to the calls `match` picks, `times` times (Infinity: always) */
  answer(status: number, match: (c: ProviderCall) => boolean, times?: number): void;
  /** the calls of a provider whose path matches */
  of(provider: ProviderName, path?: RegExp): ProviderCall[];
  close(): Promise<void>;
}

/** the routes berth uses, per provider: which make a comment, which edit one */
const COMMENT_CREATE: Record<ProviderName, RegExp> = {
  github: /^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/comments$/, gitea: /^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/comments$/,
  gitlab: /^\/projects\/[^/]+\/merge_requests\/\d+\/notes$/, bitbucket: /^\/repositories\/[^/]+\/[^/]+\/pullrequests\/\d+\/comments$/,
};
const COMMENT_EDIT: Record<ProviderName, RegExp> = {
  github: /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/, gitea: /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/,
  gitlab: /^\/projects\/[^/]+\/merge_requests\/\d+\/notes\/(\d+)$/, bitbucket: /^\/repositories\/[^/]+\/[^/]+\/pullrequests\/\d+\/comments\/(\d+)$/,
};
const OTHER: Record<ProviderName, RegExp[]> = {
  github: [/^\/repos\/[^/]+\/[^/]+\/deployments$/, /^\/repos\/[^/]+\/[^/]+\/deployments\/\d+\/statuses$/, /^\/repos\/[^/]+\/[^/]+\/statuses\/[0-9a-f]+$/],
  gitea: [/^\/repos\/[^/]+\/[^/]+\/statuses\/[0-9a-f]+$/],
  gitlab: [/^\/projects\/[^/]+\/statuses\/[0-9a-f]+$/],
  bitbucket: [/^\/repositories\/[^/]+\/[^/]+\/commit\/[0-9a-f]+\/statuses\/build$/],
};

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try { return text ? JSON.parse(text) : {}; } catch { return { unparsed: text }; }
}

export async function startProviderApi(): Promise<ProviderApi> {
  const calls: ProviderCall[] = [];
  const overrides: Override[] = [];
  const comments = new Set<string>();
  let nextId = 1000;
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const m = /^\/(github|gitlab|gitea|bitbucket)(\/.*)$/.exec(url.pathname);
    const body = await readBody(req);
    const reply = (status: number, json: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json)); };
    if (!m) return reply(404, { message: 'Not Found' });
    const provider = m[1] as ProviderName;
    const call: ProviderCall = { provider, method: req.method ?? '', path: m[2]!, body, authorization: req.headers.authorization ?? null };
    calls.push(call);
    const o = overrides.find((x) => x.times > 0 && x.match(call));
    if (o) {
      o.times--;
      return reply(o.status, { message: `answered ${o.status} by the test` });
    }
    if (req.method === 'POST' && COMMENT_CREATE[provider].test(call.path)) {
      const id = String(nextId++);
      comments.add(`${provider}:${id}`);
      return reply(201, { id: Number(id), body: body.body ?? body.content });
    }
    const edit = COMMENT_EDIT[provider].exec(call.path);
    if (edit && (req.method === 'PATCH' || req.method === 'PUT')) {
      if (!comments.has(`${provider}:${edit[1]}`)) return reply(404, { message: 'Not Found' });
      return reply(200, { id: Number(edit[1]), body: body.body ?? body.content });
    }
    if (req.method === 'POST' && OTHER[provider].some((r) => r.test(call.path))) return reply(201, { id: nextId++, state: body.state });
    reply(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    calls,
    apiUrl: (provider) => `${base}/${provider}`,
    answer(status, match, times = Infinity) { overrides.push({ status, match, times }); },
    of: (provider, path) => calls.filter((c) => c.provider === provider && (!path || path.test(c.path))),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
