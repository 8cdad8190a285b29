// A long-connection test application and its clients, for ingress tests that must see whether a
// connection through the proxy stays open. The image `berth-test/ws-node:1` is the busybox test
// image plus the project's node binary (and the shared libraries it loads, copied from this host)
// running SERVER_SCRIPT (startLocalApp runs the same script as a process on loopback, for tests
// without Docker): GET / answers $GREETING, GET /sse streams an event every 500 ms and
// /ws answers the WebSocket upgrade and sends a text frame every 500 ms, each carrying $GREETING
// and a counter. The clients speak raw HTTP/1.1 to the proxy so they can set the Host header
// (Node's WebSocket cannot) and record every message with the time it arrived.
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, mkdtemp, realpath, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { buildImage } from '../../src/engine/docker/build.ts';
import { busyboxImage, TEST_LABEL } from './docker.ts';
import { freePort } from './processes.ts';

const run = promisify(execFile);
const WS_APP_IMAGE = 'berth-test/ws-node:1';
const NODE_BINARY = new URL('../../node_modules/node/bin/node', import.meta.url).pathname;

const SERVER_SCRIPT = `import http from 'node:http';
import { createHash } from 'node:crypto';
const name = process.env.GREETING || 'ws';
const server = http.createServer((req, res) => {
  if (req.url === '/sse') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let n = 0;
    const timer = setInterval(() => res.write('data: ' + name + ' ' + n++ + '\\n\\n'), 500);
    req.on('close', () => clearInterval(timer));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/plain' }).end(name + '\\n');
});
server.on('upgrade', (req, socket) => {
  socket.on('error', () => {});
  if (String(req.headers.upgrade).toLowerCase() !== 'websocket') return socket.destroy();
  const accept = createHash('sha1').update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC11B65').digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: ' + accept + '\\r\\n\\r\\n');
  let n = 0;
  const timer = setInterval(() => {
    const payload = Buffer.from((name + ' ' + n++).slice(0, 125));
    socket.write(Buffer.concat([Buffer.from([0x81, payload.length]), payload]));
  }, 500);
  socket.on('close', () => clearInterval(timer));
  socket.resume();
});
server.listen(Number(process.env.PORT || 8080), '0.0.0.0', () => console.log('started with ' + name));
process.on('SIGTERM', () => process.exit(0));
`;

let image: Promise<string> | undefined;

/** the shared libraries node loads, as `ldd` resolves them on this host */
async function nodeLibraries(): Promise<string[]> {
  const { stdout } = await run('ldd', [NODE_BINARY]);
  return [...stdout.matchAll(/(\/\S+\.so[.\d]*)/g)].map((m) => m[1]!);
}

/** `berth-test/ws-node:1`, rebuilt when the node binary or the script changes */
export function wsAppImage(docker: Docker): Promise<string> {
  image ??= (async () => {
    const base = await busyboxImage(docker);
    const node = await stat(NODE_BINARY);
    const inputs = createHash('sha256').update(`${node.size} ${node.mtimeMs} ${SERVER_SCRIPT}`).digest('hex').slice(0, 16);
    const info = await docker.getImage(WS_APP_IMAGE).inspect().catch(() => null);
    if (info?.Config?.Labels?.['berth-test.inputs'] === inputs) return WS_APP_IMAGE;
    const dir = await mkdtemp(join(tmpdir(), 'berth-test-ws-'));
    try {
      const root = join(dir, 'rootfs');
      for (const lib of await nodeLibraries()) {
        await mkdir(join(root, dirname(lib)), { recursive: true });
        await copyFile(await realpath(lib), join(root, lib));
      }
      await mkdir(join(root, 'bin'), { recursive: true });
      await mkdir(join(root, 'srv'), { recursive: true });
      await copyFile(NODE_BINARY, join(root, 'bin/node'));
      await chmod(join(root, 'bin/node'), 0o755);
      await writeFile(join(root, 'srv/server.mjs'), SERVER_SCRIPT);
      await writeFile(join(dir, 'Dockerfile'), [`FROM ${base}`, 'COPY rootfs/ /', 'ENV PORT=8080', 'CMD ["node", "/srv/server.mjs"]', ''].join('\n'));
      await buildImage(docker, { contextDir: dir, dockerfilePath: null, tag: WS_APP_IMAGE, buildArgs: {}, labels: { [TEST_LABEL]: 'ws-node', 'berth-test.inputs': inputs } },
        async () => {}, AbortSignal.timeout(300_000));
      return WS_APP_IMAGE;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  image.catch(() => { image = undefined; });
  return image;
}

/** SERVER_SCRIPT as a process of its own on 127.0.0.1 (stopped: its connections are closed) */
export async function startLocalApp(greeting: string): Promise<{ dial: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--input-type=module', '-e', SERVER_SCRIPT.replace("'0.0.0.0'", "'127.0.0.1'")], {
    env: { PATH: process.env.PATH ?? '', GREETING: greeting, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the test app exited with code ${code}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { dial: `127.0.0.1:${port}`, stop: async () => { child.kill('SIGKILL'); await exited; } };
}

/** what a long connection received: each message with its arrival time, and when it closed */
export interface Stream {
  messages: Array<{ at: number; text: string }>;
  /** the handshake was answered (101 for a WebSocket, 200 for SSE) */
  opened: boolean;
  closedAt: number | null;
  openedAt: number;
  close(): void;
  /** the longest wait between two messages (or from the last one to `until`) since `from` */
  longestGap(from: number, until?: number): number;
}

function stream(close: () => void): Stream {
  const s: Stream = {
    messages: [], opened: false, closedAt: null, openedAt: Date.now(), close,
    longestGap(from, until = s.closedAt ?? Date.now()) {
      const times = [from, ...s.messages.map((m) => m.at).filter((t) => t > from), until];
      return Math.max(...times.slice(1).map((t, i) => t - times[i]!));
    },
  };
  return s;
}

/** a WebSocket to http://127.0.0.1:<port>/ws with Host: <host>, reading the server's text frames */
/** `tlsOptions`: over TLS (SNI `host`), e.g. with the CA a test trusts */
export function openWebSocket(port: number, host: string, tlsOptions?: tls.ConnectionOptions): Stream {
  const socket = tlsOptions ? tls.connect({ port, host: '127.0.0.1', servername: host, ...tlsOptions }) : net.connect(port, '127.0.0.1');
  const s = stream(() => socket.destroy());
  let head = '';
  let buf = Buffer.alloc(0);
  socket.on(tlsOptions ? 'secureConnect' : 'connect', () => socket.write(`GET /ws HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
    + `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`));
  socket.on('data', (chunk: Buffer) => {
    if (!s.opened) {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (!/^HTTP\/1\.1 101 /.test(head)) { socket.destroy(); return; }
      s.opened = true;
      chunk = Buffer.from(head.slice(end + 4), 'latin1');
    }
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 2) {
      let len = buf[1]! & 0x7f;
      let at = 2;
      if (len === 126) { if (buf.length < 4) break; len = buf.readUInt16BE(2); at = 4; }
      if (len === 127) { if (buf.length < 10) break; len = Number(buf.readBigUInt64BE(2)); at = 10; }
      if (buf.length < at + len) break;
      if ((buf[0]! & 0x0f) === 0x1) s.messages.push({ at: Date.now(), text: buf.subarray(at, at + len).toString('utf8') });
      buf = buf.subarray(at + len);
    }
  });
  socket.on('error', () => {});
  socket.on('close', () => { s.closedAt = Date.now(); });
  return s;
}

/** an SSE stream from http://127.0.0.1:<port>/sse with Host: <host> */
export function openSse(port: number, host: string): Stream {
  let req: http.ClientRequest | undefined;
  const s = stream(() => req?.destroy());
  let text = '';
  req = http.get({ host: '127.0.0.1', port, path: '/sse', headers: { host }, agent: false }, (res) => {
    s.opened = res.statusCode === 200;
    res.setEncoding('utf8');
    res.on('data', (d: string) => {
      text += d;
      for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
        const event = text.slice(0, end);
        text = text.slice(end + 2);
        const data = /^data: (.*)$/m.exec(event);
        if (data) s.messages.push({ at: Date.now(), text: data[1]! });
      }
    });
    res.on('close', () => { s.closedAt ??= Date.now(); });
    res.on('error', () => {});
  });
  req.on('error', () => { s.closedAt ??= Date.now(); });
  return s;
}

/** waits until the stream has received `count` messages (or fails with what it got) */
export async function received(s: Stream, count: number, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (s.messages.length < count) {
    if (s.closedAt !== null || Date.now() > until) {
      throw new Error(`stream ${s.closedAt !== null ? 'closed' : 'still waiting'} after ${s.messages.length} message(s) (opened: ${s.opened})`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
