// A private git server for tests: bare repositories under a temp dir, served over git's smart
// HTTP protocol by `git http-backend` (run as a CGI program per request) behind a small node
// server on 127.0.0.1 that requires HTTP basic auth whose password is the given token (401 with
// a Basic challenge otherwise). It records the user names it was sent, never the passwords.
import { execFile, spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PrivateGitServer {
  baseUrl: string;
  /** a new bare repository whose branch `main` holds `files`; its clone URL and commit */
  createRepo(name: string, files: Record<string, string>): Promise<{ url: string; commit: string }>;
  /** the basic-auth user names of the requests that authenticated, in order */
  readonly usernames: string[];
  /** how many requests were refused with 401 */
  readonly refused: number;
  close(): Promise<void>;
}

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'berth test', GIT_AUTHOR_EMAIL: 'test@berth.invalid',
  GIT_COMMITTER_NAME: 'berth test', GIT_COMMITTER_EMAIL: 'test@berth.invalid',
  GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
};

async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: gitEnv });
  return stdout.trim();
}

/** the password and user name of a Basic Authorization header, or null */
function basicAuth(header: string | undefined): { username: string; password: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** runs `git http-backend` for one request and relays its CGI answer (Status and headers, then the body) */
function relayToBackend(req: IncomingMessage, res: ServerResponse, projectRoot: string, username: string): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const child = spawn('git', ['http-backend'], {
    env: {
      ...gitEnv, GIT_PROJECT_ROOT: projectRoot, GIT_HTTP_EXPORT_ALL: '1', PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ''), REQUEST_METHOD: req.method ?? 'GET', CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_USER: username, REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  req.pipe(child.stdin!);
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout!.on('data', (chunk: Buffer) => {
    if (headersDone) { res.write(chunk); return; }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n') >= 0 ? head.indexOf('\r\n\r\n') : head.indexOf('\n\n');
    if (end < 0) return;
    const sep = head[end] === 0x0d ? 4 : 2;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
      const i = line.indexOf(':');
      if (i < 0) continue;
      const name = line.slice(0, i).trim();
      const value = line.slice(i + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    headersDone = true;
    const rest = head.subarray(end + sep);
    if (rest.length) res.write(rest);
  });
  child.on('close', () => {
    if (!headersDone) res.writeHead(502);
    res.end();
  });
  child.on('error', () => { if (!res.headersSent) res.writeHead(500); res.end(); });
}

/** a smart-HTTP git server that lets in requests whose basic-auth password is `token` */
export async function startPrivateGitServer(token: string): Promise<PrivateGitServer> {
  const root = await mkdtemp(join(tmpdir(), 'berth-test-private-git-'));
  const served = join(root, 'srv');
  await mkdir(served);
  const usernames: string[] = [];
  let refused = 0;
  const server = createServer((req, res) => {
    const auth = basicAuth(req.headers.authorization);
    if (!auth || auth.password !== token) {
      refused += 1;
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="berth test"', 'Content-Type': 'text/plain' });
      res.end('authentication required\n');
      return;
    }
    usernames.push(auth.username);
    relayToBackend(req, res, served, auth.username);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    usernames,
    get refused() { return refused; },
    async createRepo(name, files) {
      const work = await mkdtemp(join(root, 'init-'));
      try {
        await git(work, 'init', '-q', '-b', 'main');
        for (const [path, content] of Object.entries(files)) {
          await mkdir(dirname(join(work, path)), { recursive: true });
          await writeFile(join(work, path), content);
        }
        await git(work, 'add', '-A');
        await git(work, 'commit', '-q', '-m', 'first commit');
        await git(root, 'clone', '-q', '--bare', work, join(served, `${name}.git`));
        return { url: `${baseUrl}/${name}.git`, commit: await git(work, 'rev-parse', 'HEAD') };
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
    },
  };
}
