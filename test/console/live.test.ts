// The console's stream reader (console/src/live.ts) against a real server-sent-events server on
// loopback: it sends the user's credential, parses named events with their cursor, resumes with
// Last-Event-ID, stops at `end`, and reports a stream route that does not exist (404) so the
// page can fall back to polling.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// the console runs in a browser: give this process the one browser API it needs
const store = new Map<string, string>();
Object.assign(globalThis, {
  sessionStorage: { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v), removeItem: (k: string) => void store.delete(k) },
});
// a computed path: the console is type-checked on its own (tsconfig in console/)
const live = await import(new URL('../../console/src/live.ts', import.meta.url).href);
const api = await import(new URL('../../console/src/api.ts', import.meta.url).href);

describe('the console\'s stream reader', () => {
  let server: Server;
  let base = '';
  const seen: Array<{ authorization?: string; lastEventId?: string }> = [];
  before(async () => {
    server = createServer((req, res) => {
      seen.push({ authorization: req.headers.authorization, lastEventId: req.headers['last-event-id'] as string | undefined });
      if (req.url !== '/deployment/d1/log/stream') {
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end('{"status":404,"error":"Not Found","message":"No route","code":"not_found","request_id":"x"}');
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const after = Number(req.headers['last-event-id'] ?? 0);
      res.write(': keep-alive\n\n');
      for (let i = after + 1; i <= 3; i++) {
        // split across writes on purpose: the parser must join the pieces
        res.write(`id: ${i}\nevent: log\nda`);
        res.write(`ta: {"id":"${i}","message":"line ${i}"}\n\n`);
      }
      // the first connection drops (once its lines are on the wire) before the end
      if (after === 0) return void setTimeout(() => res.destroy(), 100);
      res.end('id: 4\nevent: end\ndata: {"status":"DEPLOYED"}\n\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    api.session.signIn('tok_console_stream_test');
  });
  after(() => new Promise((r) => server.close(r)));

  test('reads events with the credential, resumes after the last cursor, ends at `end`', async () => {
    const events: Array<{ id?: string; event: string; data: any }> = [];
    const first = await live.readStream(`${base}/deployment/d1/log/stream`, (e: any) => events.push(e), new AbortController().signal);
    assert.equal(first.outcome, 'failed', 'a dropped connection is not an end');
    assert.equal(first.lastEventId, '3');
    assert.deepEqual(events.map((e) => [e.id, e.event, e.data.message]), [['1', 'log', 'line 1'], ['2', 'log', 'line 2'], ['3', 'log', 'line 3']]);
    const second = await live.readStream(`${base}/deployment/d1/log/stream`, (e: any) => events.push(e), new AbortController().signal, first.lastEventId);
    assert.equal(second.outcome, 'ended');
    assert.deepEqual(events.slice(3).map((e) => [e.id, e.event]), [['4', 'end']], 'nothing repeated');
    assert.equal(seen.at(-2)!.authorization, 'Token tok_console_stream_test');
    assert.equal(seen.at(-2)!.lastEventId, undefined);
    assert.equal(seen.at(-1)!.lastEventId, '3');
  });

  test('a stream route that does not exist is reported, for the poll to take over', async () => {
    const r = await live.readStream(`${base}/environment/e1/status/stream`, () => assert.fail('no event'), new AbortController().signal);
    assert.equal(r.outcome, 'unsupported');
    assert.equal(r.status, 404);
  });

  test('an aborted stream says so', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await live.readStream(`${base}/deployment/d1/log/stream`, () => {}, controller.signal);
    assert.equal(r.outcome, 'aborted');
  });
});
