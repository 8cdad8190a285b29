// How a request body berth will not read ends, so that every client reads the answer (the 413
// above all) instead of a connection reset (issue 36; decision 0409):
// - `Expect: 100-continue`: the 100 is sent when the body is first read, never before. An answer
//   given before reading (413 for a Content-Length over the route's limit, 401, 404, 415…) goes
//   out instead of the 100, and Node closes that connection itself (Connection: close).
// - Lingering close: when a connection is closed after an answer while the request's body is
//   still arriving, berth sends its end (FIN) after the answer, reads and discards what the
//   client still sends, bounded in bytes and time, and only then closes. Closing with unread
//   bytes makes the kernel reset the connection, and a client still writing loses the answer.
import { channel } from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface LingerBounds {
  /** body bytes discarded after the answer before the connection is cut */
  maxBytes: number;
  /** time from the answer's end to the cut, whatever the client still sends */
  maxMs: number;
}

/** 12 MiB take about 1 s at 100 Mbit/s; a client still sending after 5 s or 64 MiB is cut off */
export const LINGER_BOUNDS: LingerBounds = { maxBytes: 64 * 1024 * 1024, maxMs: 5_000 };

/** published by Node's http server as an answer finishes, just before it keeps or closes the connection */
const responseFinished = channel('http.server.response.finish');

interface ResponseFinish { request: IncomingMessage; response: ServerResponse; socket: Socket; server: Server }

export function installOversizedBodyHandling(app: FastifyInstance, bounds: LingerBounds = LINGER_BOUNDS): void {
  const server = app.server as Server;

  // With a listener here Node no longer answers 100 on its own: the request goes to Fastify as any
  // other, and the 100 is written when its body parser starts reading (the stream's 'resume').
  // Fastify refuses a Content-Length over the route's limit before reading, so that 413 is the
  // first and only answer, and hooks that answer first (authentication) do the same.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    req.once('resume', () => {
      if (!res.headersSent && !res.writableEnded) res.writeContinue();
    });
    server.emit('request', req, res);
  });

  // Node ends a connection whose last answer is written with `socket.destroySoon()` right after
  // this message; only for a request whose body has not all arrived does that socket get a
  // destroySoon of its own that lingers first (nothing is added for any other request)
  const onResponseFinish = (message: unknown) => {
    const { request, socket, server: from } = message as ResponseFinish;
    if (from === server && !request.complete) lingerOnClose(socket, request, bounds);
  };
  responseFinished.subscribe(onResponseFinish);
  app.addHook('onClose', (_instance, done) => {
    responseFinished.unsubscribe(onResponseFinish);
    done();
  });
}

/** until the request is complete, closing this socket lingers; the first close puts Node's own
 * destroySoon back (a kept-alive connection closed later, its body read by then, closes at once) */
function lingerOnClose(socket: Socket, request: IncomingMessage, bounds: LingerBounds): void {
  socket.destroySoon = function lingeringDestroySoon() {
    delete (socket as Partial<Pick<Socket, 'destroySoon'>>).destroySoon;
    if (request.complete) socket.destroySoon();
    else linger(socket, request, bounds);
  };
}

/** how often a lingering connection's bytes and age are checked against the bounds */
const LINGER_CHECK_MS = 25;

function linger(socket: Socket, request: IncomingMessage, { maxBytes, maxMs }: LingerBounds): void {
  // the answer is written: our end follows it; an http server's sockets stay readable after it
  socket.end();
  // the body keeps flowing through Node's parser to nowhere (the request is resumed or dumped);
  // the socket's byte count sees it either way, so the bounds are checked against that
  request.resume();
  const startBytes = socket.bytesRead;
  const deadline = Date.now() + maxMs;
  const check = setInterval(() => {
    // a bound is reached and the client is still sending: cut it off
    if (socket.bytesRead - startBytes > maxBytes || Date.now() >= deadline) socket.destroy();
  }, LINGER_CHECK_MS);
  check.unref();
  /** nothing unread is left: close once the answer has left (Node's own destroySoon) */
  const close = () => Socket.prototype.destroySoon.call(socket);
  request.once('end', close); // the whole body is in
  socket.once('end', close); // the client closed its side
  socket.once('close', () => clearInterval(check));
}
