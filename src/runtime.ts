// Starting and stopping a berth process: logger, DATA_DIR lock, database, migrations, keys,
// rate limiter, task queue, services, bootstrap, then the HTTP API (roles all/api) and the
// workers (roles all/worker). stop() undoes it in reverse, letting in-flight work finish; the
// embedded PostgreSQL server (EMBEDDED_DATABASE=postgres) stops with the database, last.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { createRequire } from 'node:module';
import type { Config, Role } from './config/config.ts';
import { createContext, type AppContext } from './context.ts';
import { openDb, type Db } from './db/db.ts';
import { acquireDataDirLock, type DataDirLock } from './db/lock.ts';
import { migrate } from './db/migrate.ts';
import { CONSTRAINT_MESSAGES } from './modules/constraints.ts';
import { bootstrap } from './bootstrap.ts';
import { buildApp } from './http/app.ts';
import type { App } from './http/app-type.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { createSealer } from './lib/crypto.ts';
import { AppError } from './lib/errors.ts';
import { startQueue } from './queue/queue.ts';
import { selectEngine } from './engine/index.ts';
import { startWorkers } from './workers/runner.ts';

export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

export interface RuntimeOptions {
  config: Config;
  /** readable log lines (a terminal) instead of JSON */
  prettyLogs?: boolean;
  role?: Role;
  /** tests pass an already open, migrated database */
  db?: Db;
  logger?: Logger;
  listen?: boolean;
  pollingIntervalSeconds?: number;
}

export interface Runtime {
  ctx: AppContext;
  /** the engine in use and one line on why (ENGINE=auto resolves at start) */
  engine: { name: string; description: string };
  app: App | null;
  stop(): Promise<void>;
}

/** JSON lines; `pretty`: readable coloured lines for a person at a terminal (pino-pretty) */
export function createLogger(config: Config, options: { pretty?: boolean } = {}): Logger {
  const settings = {
    level: config.logLevel,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.token', '*.password', '*.api_key', '*.credential', '*.value', '*.secret'],
      censor: '[redacted]',
    },
  };
  if (!options.pretty) return pino(settings);
  // loaded only for a terminal (10 MiB a JSON-logging server does not carry)
  const pinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pino(settings, pinoPretty({ colorize: true, sync: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
}

/** the 32-byte key for secrets at rest: ENCRYPTION_KEY, or one generated once into DATA_DIR */
export function resolveEncryptionKey(config: Config): Buffer {
  if (config.encryptionKey) return Buffer.from(config.encryptionKey, 'base64');
  const dir = resolve(config.dataDir);
  const file = join(dir, 'encryption-key');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
}

export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config } = options;
  const role = options.role ?? 'all';
  const logger = options.logger ?? createLogger(config, { pretty: options.prettyLogs });
  // first, so a missing Docker daemon (ENGINE=docker) fails before anything is opened; the API
  // role reads statuses and links only, processes running workers also adopt or start the ingress
  const engine = await selectEngine(config, logger, { startIngress: role !== 'api' });
  let lock: DataDirLock | undefined;
  let db = options.db;
  if (!db) {
    if (!config.databaseUrl) lock = acquireDataDirLock(config.dataDir);
    try {
      db = await openDb({
        databaseUrl: config.databaseUrl, dataDir: config.dataDir, embedded: config.embeddedDatabase, constraints: CONSTRAINT_MESSAGES,
        onLog: (line) => logger.warn(line),
      });
      const applied = await migrate(db);
      if (applied.length) logger.info({ applied }, 'migrations applied');
    } catch (err) {
      lock?.release();
      throw err;
    }
  }
  // ENGINE=auto on a host with no Docker falls back to the simulated engine: say so loudly
  // (after the database opened, so a startup failure stays one line)
  const fellBack = config.engine === 'auto' && !engine.driver.real;
  logger[fellBack ? 'warn' : 'info']({ engine: engine.driver.name }, `engine: ${engine.description}`);
  const sealer = createSealer(resolveEncryptionKey(config));
  const rateLimiter = await createRateLimiter({ limit: config.rateLimitPerHour, redisUrl: config.redisUrl, logger });
  const runsWorkers = role !== 'api';
  const queue = await startQueue(db, { workers: runsWorkers, pollingIntervalSeconds: options.pollingIntervalSeconds });
  const ctx = createContext({ version: VERSION, config, db, logger, sealer, rateLimiter, queue, engine: engine.driver });
  try {
    await bootstrap(ctx);
  } catch (err) {
    // several processes starting at once on one PostgreSQL: one of them wins the race
    if (!(err instanceof AppError && err.status === 409)) throw err;
  }

  let app: App | null = null;
  if (role !== 'worker') {
    app = await buildApp(ctx);
    if (options.listen !== false) await app.listen({ port: config.port, host: config.host });
    else await app.ready();
  }
  const workers = runsWorkers ? await startWorkers(ctx) : null;

  let stopping: Promise<void> | undefined;
  return {
    ctx,
    engine: { name: engine.driver.name, description: engine.description },
    app,
    stop() {
      stopping ??= (async () => {
        if (app && options.listen !== false && config.shutdownDrainMs > 0) {
          app.draining = true;
          await new Promise((r) => setTimeout(r, config.shutdownDrainMs));
        }
        await app?.close();
        await workers?.stop().catch((err) => logger.warn({ err }, 'workers stop failed'));
        await queue.stop({ timeoutMs: 10_000 }).catch((err) => logger.warn({ err }, 'queue stop failed'));
        await rateLimiter.close();
        await ctx.engine.close?.().catch((err) => logger.warn({ err }, 'engine close failed'));
        if (!options.db) await db!.close();
        lock?.release();
      })();
      return stopping;
    },
  };
}
