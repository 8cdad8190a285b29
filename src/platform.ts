// The platform every part of berth stands on: configuration, database, logger, sealer, rate
// limiter, task queue and engine driver, made once at start (runtime.ts, or a test's harness).
// A leaf: it names only types of the layers below the modules, so a module depends on the parts
// it uses (`Pick<Platform, 'db' | 'sealer'>`) without reaching the services built over it.
import type { Logger } from 'pino';
import type { Config } from './config/config.ts';
import type { Db } from './db/db.ts';
import type { EngineDriver } from './engine/index.ts';
import type { RateLimiter } from './http/rate-limit.ts';
import type { Sealer } from './lib/crypto.ts';
import type { TaskQueue } from './queue/queue.ts';

export interface Platform {
  readonly version: string;
  readonly config: Config;
  readonly db: Db;
  readonly logger: Logger;
  readonly sealer: Sealer;
  readonly rateLimiter: RateLimiter;
  readonly queue: TaskQueue;
  /** the deployment engine driver (selected at start; tests default to the simulated one) */
  readonly engine: EngineDriver;
}
