// A request body over the limit gets its 413 with the error body, whatever the client (issue 36;
// decision 0409): a raw socket that writes all of a 12 MiB body before reading, Node's fetch,
// the Qovery SDK (axios), a chunked body, `Expect: 100-continue` (413 instead of the 100, the 100
// under the limit), a route with a limit of its own; and a client that keeps sending is cut off
// at the bound while the server goes on answering others. A real berth on loopback throughout.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Configuration, OrganizationApiTokenApi } from 'qovery-typescript-axios';
import { LINGER_BOUNDS } from '../../src/http/oversized-bodies.ts';
import { listenOnLoopback, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

const MiB = 1024 * 1024;

interface RawReply {
  /** the final answer's status line and headers */
  head: string;
  status: number;
  body: any;
  /** interim answers (100 Continue) before the final one */
  interim: string[];
  /** the error a write got, if any (EPIPE/ECONNRESET: the server reset the connection) */
  writeError?: string;
}

/** a JSON body of about `bytes` bytes */
const jsonOf = (bytes: number) => Buffer.from(JSON.stringify({ name: 'x'.repeat(bytes), role: 'VIEWER' }));

/** the 1.1 answers read so far, once the final one is whole (by its Content-Length) */
function parseReply(received: Buffer): RawReply | undefined {
  let text = received.toString('latin1');
  const interim: string[] = [];
  for (;;) {
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const head = text.slice(0, end);
    text = text.slice(end + 4);
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
    if (status >= 100 && status < 200) { interim.push(head); continue; }
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]);
    if (Buffer.byteLength(text, 'latin1') < length) return undefined;
    return { head, status, body: JSON.parse(Buffer.from(text.slice(0, length), 'latin1').toString()), interim };
  }
}

/** A client that writes its whole request whatever it reads (what the issue calls a plain
 * socket; half-open, so the server's end does not stop its writing): `head` first, then `body`
 * (buffers, each written once the last was taken), at once or when `sendBody` says so given what
 * has been read. Returns the final answer once the server has ended the connection and the
 * writes are over, and whether every write went through. */
function rawExchange(port: number, head: string, body: Buffer[], options: { sendBody?: (received: Buffer) => boolean } = {}): Promise<RawReply & { closedBy: 'server-end' | 'reset' }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const chunks: Buffer[] = [];
    let writeError: string | undefined;
    let sending: 'no' | 'writing' | 'done' = 'no';
    let serverEnded = false;
    let settled = false;
    const finish = (closedBy: 'server-end' | 'reset') => {
      if (settled) return;
      settled = true;
      const reply = parseReply(Buffer.concat(chunks));
      socket.destroy();
      if (!reply) reject(new Error(`no whole answer (${closedBy}, write error ${writeError}): ${Buffer.concat(chunks).toString().slice(0, 200)}`));
      else resolve({ ...reply, writeError, closedBy });
    };
    const sendBody = async () => {
      sending = 'writing';
      for (const chunk of body) {
        if (writeError || settled) return;
        await new Promise<void>((done) => socket.write(chunk, (err) => { if (err) writeError ??= (err as NodeJS.ErrnoException).code ?? err.message; done(); }));
      }
      sending = 'done';
      if (serverEnded) finish('server-end');
    };
    socket.on('data', (d) => {
      chunks.push(d);
      if (sending === 'no' && options.sendBody?.(Buffer.concat(chunks))) void sendBody();
    });
    socket.on('end', () => {
      serverEnded = true;
      if (sending !== 'writing') finish('server-end');
    });
    socket.on('error', (err: NodeJS.ErrnoException) => { writeError ??= err.code; finish('reset'); });
    socket.on('close', () => finish('reset'));
    socket.write(head);
    if (!options.sendBody) void sendBody();
  });
}

function requestHead(path: string, headers: Record<string, string | number>): string {
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
}

function chunked(body: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) {
    const part = body.subarray(at, at + size);
    out.push(Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]));
  }
  out.push(Buffer.from('0\r\n\r\n'));
  return out;
}

/** A TCP hop that adds `delayMs` each way, and passes the server's reset on as a reset after the
 * data before it: the client is as far away as on a network. Over bare loopback Node's fetch and
 * axios usually read the answer before the reset comes (a server closing with unread bytes was
 * only caught by a plain socket there); 20 ms away they lost it nearly every time. */
async function delayingHop(port: number, delayMs: number): Promise<{ base: string; close(): Promise<void> }> {
  const open = new Set<net.Socket>();
  const hop = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    for (const s of [client, upstream]) { open.add(s); s.on('close', () => open.delete(s)); }
    const later = (fn: () => void) => setTimeout(fn, delayMs);
    client.on('data', (d) => later(() => { if (!upstream.destroyed) upstream.write(d); }));
    client.on('end', () => later(() => upstream.end()));
    client.on('error', () => later(() => upstream.destroy()));
    upstream.on('data', (d) => later(() => { if (!client.destroyed) client.write(d); }));
    upstream.on('end', () => later(() => client.end()));
    upstream.on('error', () => later(() => client.resetAndDestroy()));
  });
  await new Promise<void>((resolve) => hop.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(hop.address() as net.AddressInfo).port}`,
    close: () => new Promise((resolve) => { for (const s of open) s.destroy(); hop.close(() => resolve()); }),
  };
}

/** the seed's error body of a 413, as Fastify's own 413 path makes it */
function assertPayloadTooLarge(reply: { status: number; body: any }): void {
  assert.equal(reply.status, 413);
  assert.equal(reply.body.status, 413);
  assert.equal(reply.body.error, 'Payload Too Large');
  assert.equal(reply.body.code, 'payload_too_large');
  assert.equal(reply.body.message, 'The request body is too large');
  assert.equal(typeof reply.body.request_id, 'string');
}

describe('a request body over the limit gets its 413, not a connection reset', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let base: string;
  let port: number;
  let tokens: string;
  let far: Awaited<ReturnType<typeof delayingHop>>;
  before(async () => {
    t = await startTestApp(); // BODY_LIMIT_BYTES at its default, 1 MiB
    base = await listenOnLoopback(t);
    port = Number(new URL(base).port);
    far = await delayingHop(port, 20);
    org = await seedOrganization(t);
    tokens = `/organization/${org.id}/apiToken`;
  });
  after(async () => {
    await far.close();
    await t.close();
  });

  const jsonHeaders = () => ({ authorization: `Token ${org.token}`, 'content-type': 'application/json' });

  test('a raw socket writing all of 12 MiB before reading: every write goes through, then the 413 and the server\'s end', async () => {
    const body = jsonOf(12 * MiB);
    const r = await rawExchange(port, requestHead(tokens, { ...jsonHeaders(), 'content-length': body.length }), [body]);
    assert.equal(r.writeError, undefined, 'the server read the body instead of resetting the connection');
    assert.equal(r.closedBy, 'server-end');
    assertPayloadTooLarge(r);
    assert.match(r.head, /\r\nconnection: close/i);
  });

  test('Node\'s fetch with 1.5, 3 and 12 MiB reads the 413 body, on loopback and 20 ms away', async () => {
    for (const at of [base, far.base]) {
      for (const size of [1.5 * MiB, 3 * MiB, 12 * MiB]) {
        const res = await fetch(at + tokens, { method: 'POST', headers: jsonHeaders(), body: jsonOf(size) });
        assertPayloadTooLarge({ status: res.status, body: await res.json() });
      }
    }
  });

  test('the Qovery SDK (axios) 20 ms away creating a token with an oversized name gets the 413 body as its error', async () => {
    for (const [size, baseOptions] of [[3 * MiB, {}], [12 * MiB, { maxBodyLength: Infinity }]] as const) {
      const api = new OrganizationApiTokenApi(new Configuration({ basePath: far.base, apiKey: `Token ${org.token}`, baseOptions }));
      const err = await api.createOrganizationApiToken(org.id, { name: 'x'.repeat(size), role_id: null }).then(() => undefined, (e: any) => e);
      assert.ok(err?.response, `an answer, not a network error: ${err?.code} ${err?.message}`);
      assertPayloadTooLarge({ status: err.response.status, body: err.response.data });
    }
  });

  test('a chunked body over the limit (no Content-Length): 413 after the limit, the rest read', async () => {
    const r = await rawExchange(port, requestHead(tokens, { ...jsonHeaders(), 'transfer-encoding': 'chunked' }), chunked(jsonOf(12 * MiB), 64 * 1024));
    assert.equal(r.writeError, undefined);
    assertPayloadTooLarge(r);
  });

  test('Expect: 100-continue over the limit: the 413 is the first answer, no 100, and the body is never sent', async () => {
    const r = await rawExchange(port, requestHead(tokens, { ...jsonHeaders(), 'content-length': 12 * MiB, expect: '100-continue' }), [], { sendBody: () => false });
    assert.deepEqual(r.interim, []);
    assert.match(r.head, /^HTTP\/1\.1 413 /);
    assertPayloadTooLarge(r);
    assert.equal(r.closedBy, 'server-end');
  });

  test('Expect: 100-continue under the limit: 100, then the body, then 201', async () => {
    const body = Buffer.from(JSON.stringify({ name: 'expects-continue', role: 'VIEWER' }));
    const r = await rawExchange(port, requestHead(tokens, { ...jsonHeaders(), 'content-length': body.length, expect: '100-continue', connection: 'close' }), [body],
      { sendBody: (received) => received.toString().startsWith('HTTP/1.1 100 Continue\r\n\r\n') });
    assert.equal(r.interim.length, 1);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.name, 'expects-continue');
  });

  test('a route with a limit of its own (git webhook, 5 MiB): 413 past it, 100 Continue under it', async () => {
    const path = `/gitWebhook/${org.id}/github`;
    const headers = { 'content-type': 'application/json', 'x-github-event': 'push' };
    const big = jsonOf(12 * MiB);
    const over = await rawExchange(port, requestHead(path, { ...headers, 'content-length': big.length }), [big]);
    assert.equal(over.writeError, undefined);
    assertPayloadTooLarge(over);
    const expectOver = await rawExchange(port, requestHead(path, { ...headers, 'content-length': 6 * MiB, expect: '100-continue' }), [], { sendBody: () => false });
    assert.deepEqual(expectOver.interim, []);
    assertPayloadTooLarge(expectOver);
    // 3 MiB: over the app's 1 MiB but within the route's 5 MiB, so the 100 comes and the body is read
    const mid = jsonOf(3 * MiB);
    const under = await rawExchange(port, requestHead(path, { ...headers, 'content-length': mid.length, expect: '100-continue', connection: 'close' }), [mid],
      { sendBody: (received) => received.toString().startsWith('HTTP/1.1 100 Continue\r\n\r\n') });
    assert.equal(under.interim.length, 1);
    assert.notEqual(under.status, 413);
    assert.equal(under.status, 401, 'read, then refused: this organization has no git webhook secret');
  });

  test('a client sending 200 MiB is cut off at the byte bound; the server goes on answering', async () => {
    const chunk = Buffer.alloc(MiB, 'x');
    const started = Date.now();
    const r = await rawExchange(port, requestHead(tokens, { ...jsonHeaders(), 'content-length': 200 * MiB }), Array.from({ length: 200 }, () => chunk))
      .catch((err: Error) => ({ error: err.message }));
    assert.ok('error' in r || r.closedBy === 'reset' || r.writeError, `cut off before the end: ${JSON.stringify(r).slice(0, 200)}`);
    assert.ok(Date.now() - started < LINGER_BOUNDS.maxMs + 3_000, 'cut by the byte bound, not after a long wait');
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
  });

  test('a client trickling its body is cut off at the time bound, after reading its 413', async () => {
    const started = Date.now();
    const trickle = Array.from({ length: 400 }, () => Buffer.alloc(16 * 1024, 'x'));
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let received = Buffer.alloc(0);
    socket.on('data', (d) => { received = Buffer.concat([received, d]); });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    socket.write(requestHead(tokens, { ...jsonHeaders(), 'content-length': 400 * 16 * 1024 }));
    const sender = (async () => {
      for (const part of trickle) {
        if (socket.destroyed || !socket.writable) return;
        socket.write(part);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await closed;
    await sender;
    const elapsed = Date.now() - started;
    assertPayloadTooLarge(parseReply(received)!);
    assert.ok(elapsed >= LINGER_BOUNDS.maxMs - 500 && elapsed < LINGER_BOUNDS.maxMs + 4_000, `closed after ${elapsed} ms`);
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
  });

  test('the 413s went through berth\'s request metrics like any answer', async () => {
    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(metrics, /berth_http_request_duration_seconds_count\{method="POST",route="\/organization\/:organizationId\/apiToken",status="413"\} \d+/);
  });
});
