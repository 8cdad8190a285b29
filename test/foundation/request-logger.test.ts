// The request's logger is made on its first written line: lines carry the request id and the
// process logger's redaction, levels that are off write nothing and make no pino child.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import Fastify, { LogController } from 'fastify';
import { pino } from 'pino';
import { requestLogger } from '../../src/http/request-logger.ts';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  const logger = pino({ level, redact: { paths: ['*.token'], censor: '[redacted]' } }, stream);
  let children = 0;
  const child = logger.child;
  // children bound to a request id (pino's children inherit this property)
  logger.child = function (this: typeof logger, ...args: Parameters<typeof child>) {
    if ('reqId' in args[0]) children += 1;
    return child.apply(this, args);
  } as typeof logger.child;
  return { logger, lines, children: () => children };
}

async function appWith(level: string) {
  const log = capture(level);
  const app = Fastify({ loggerInstance: log.logger, childLoggerFactory: requestLogger, logController: new LogController({ disableRequestLogging: true }), genReqId: () => 'req-1' });
  app.get('/quiet', async (request) => { request.log.debug({ detail: 1 }, 'not at info'); return { ok: true }; });
  app.get('/loud', async (request) => {
    request.log.warn({ auth: { token: 'secret-value' } }, 'something to see');
    request.log.child({ step: 'inner' }).info('from a child');
    return { enabled: request.log.isLevelEnabled('debug'), level: request.log.level };
  });
  app.get('/fails', async () => { throw new Error('boom'); });
  // as berth's error handler does (src/http/errors.ts)
  app.setErrorHandler((err, request, reply) => {
    request.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ message: 'internal' });
  });
  await app.ready();
  return { app, ...log };
}

describe('request logger', () => {
  test('a request that writes nothing at an enabled level makes no pino child', async () => {
    const { app, lines, children } = await appWith('info');
    const res = await app.inject('/quiet');
    assert.equal(res.statusCode, 200);
    assert.equal(lines.length, 0);
    assert.equal(children(), 0);
    await app.close();
  });

  test('written lines carry the request id and are redacted like the process logger', async () => {
    const { app, lines, children } = await appWith('info');
    const res = await app.inject('/loud');
    assert.deepEqual(res.json(), { enabled: false, level: 'info' });
    const warn = lines.find((l) => l.msg === 'something to see')!;
    assert.equal(warn.reqId, 'req-1');
    assert.equal(warn.level, 40);
    assert.deepEqual(warn.auth, { token: '[redacted]' });
    const inner = lines.find((l) => l.msg === 'from a child')!;
    assert.equal(inner.reqId, 'req-1');
    assert.equal(inner.step, 'inner');
    assert.equal(children(), 1, 'one child for the request, made on its first line');
    await app.close();
  });

  test("an error handler's line goes through it, and a debug level turns debug lines on", async () => {
    const quiet = await appWith('info');
    assert.equal((await quiet.app.inject('/fails')).statusCode, 500);
    assert.ok(quiet.lines.some((l) => l.reqId === 'req-1' && l.level === 50), JSON.stringify(quiet.lines));
    await quiet.app.close();
    const verbose = await appWith('debug');
    await verbose.app.inject('/quiet');
    assert.ok(verbose.lines.some((l) => l.msg === 'not at info' && l.reqId === 'req-1' && l.detail === 1));
    await verbose.app.close();
  });
});
