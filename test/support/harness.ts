// Test harness: an app over the process's test database, driven through Fastify's inject (no
// port), plus factories for organizations and tokens of each role. Real parts throughout: the
// database, the queue, the auth path and the rate limiter are the production ones.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/config/config.ts';
import { createContext, type AppContext } from '../../src/context.ts';
import { createSimulatedDriver, type SimulatedDriver, type SimulatedSettings } from '../../src/engine/index.ts';
import type { Tuning } from '../../src/services.ts';
import { ensureOrganization } from '../../src/bootstrap.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/app-type.ts';
import { createRateLimiter } from '../../src/http/rate-limit.ts';
import { createSealer } from '../../src/lib/crypto.ts';
import type { Role } from '../../src/modules/access/roles.ts';
import { startQueue, type TaskQueue } from '../../src/queue/queue.ts';
import { VERSION } from '../../src/runtime.ts';
import { testDatabase } from './db.ts';

export interface Reply {
  status: number;
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
  raw: string;
}

interface RequestOptions {
  token?: string;
  bearer?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestApp {
  app: App;
  ctx: AppContext;
  config: Config;
  /** this app's engine (ctx.engine): the simulated driver, whose step time a test may change mid-flow */
  engine: SimulatedDriver;
  request(method: string, url: string, options?: RequestOptions): Promise<Reply>;
  close(): Promise<void>;
}

let sharedQueue: Promise<TaskQueue> | undefined;

/** one queue per test process (pg-boss start is costly); workers run in this process */
export async function testQueue(): Promise<TaskQueue> {
  const { db } = await testDatabase();
  sharedQueue ??= startQueue(db, { workers: true, pollingIntervalSeconds: 0.5 });
  return sharedQueue;
}

export function testConfig(overrides: Partial<Config> = {}, env: Record<string, string> = {}): Config {
  const base = loadConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'berth-test-')),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_HOUR: '1000000',
    PUBLIC_URL: 'http://berth.test',
    ENGINE: 'simulated',
    ...env,
  });
  return Object.freeze({ ...base, ...overrides });
}

/**
 * `tuning`: shorter periods for this app's services (webhook retries, deployment workers, streams);
 * `simulated`: its engine's settings (the simulated driver's step time, 400 ms by default).
 * The apps of a test process share one queue, which runs a task kind with the context of the app
 * that subscribed it last: a test that changes its engine's settings subscribes the workers of
 * its own app (decision 0715).
 */
export async function startTestApp(options: { config?: Partial<Config>; env?: Record<string, string>; tuning?: Tuning; simulated?: Partial<SimulatedSettings> } = {}): Promise<TestApp> {
  const { db } = await testDatabase();
  const config = testConfig(options.config, options.env);
  const logger = pino({ level: config.logLevel });
  const engine = createSimulatedDriver(options.simulated);
  const ctx = createContext({
    version: VERSION, config, db, logger, queue: await testQueue(), engine,
    sealer: createSealer(Buffer.from(config.encryptionKey!, 'base64')),
    rateLimiter: await createRateLimiter({ limit: config.rateLimitPerHour, redisUrl: config.redisUrl, logger }),
  }, options.tuning);
  const app = await buildApp(ctx);
  await app.ready();
  return {
    app, ctx, config, engine,
    async request(method, url, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token) headers.authorization = `Token ${opts.token}`;
      if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
      const res = await app.inject({
        method: method as 'GET', url, headers,
        ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
      });
      let body: unknown = undefined;
      if (res.body.length > 0) {
        try { body = JSON.parse(res.body); } catch { body = res.body; }
      }
      return { status: res.statusCode, body, headers: res.headers, raw: res.body };
    },
    async close() {
      await app.close();
      await ctx.rateLimiter.close();
    },
  };
}

export interface SeededOrganization {
  id: string;
  name: string;
  /** an OWNER token */
  token: string;
  /** a token of the given role (made on first ask) */
  tokenFor(role: Role): Promise<string>;
}

export async function seedOrganization(t: TestApp, name = `org-${randomUUID().slice(0, 8)}`): Promise<SeededOrganization> {
  const org = await ensureOrganization(t.ctx, name);
  const tokens = new Map<Role, string>();
  const tokenFor = async (role: Role) => {
    let token = tokens.get(role);
    if (!token) {
      token = (await t.ctx.services.tokens.issue(t.ctx.db, org.id, `${role.toLowerCase()}-${randomUUID().slice(0, 6)}`, role)).token;
      tokens.set(role, token);
    }
    return token;
  };
  return { id: org.id, name, token: await tokenFor('OWNER'), tokenFor };
}

/** the app served on a free loopback port, for clients that need real HTTP; its base URL */
export async function listenOnLoopback(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

/** asserts the seed's error body and returns it */
export function expectErrorBody(reply: Reply, status: number): { status: number; error: string; message: string; code: string } {
  const b = reply.body;
  if (reply.status !== status) throw new Error(`expected ${status}, got ${reply.status}: ${reply.raw.slice(0, 300)}`);
  if (typeof b !== 'object' || b === null || b.status !== status || typeof b.error !== 'string' || typeof b.message !== 'string' || typeof b.code !== 'string' || typeof b.request_id !== 'string') {
    throw new Error(`not the error body: ${reply.raw.slice(0, 300)}`);
  }
  return b;
}

export async function eventually<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, stepMs = 100): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
