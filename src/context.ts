// The composition root: what a running berth holds (configuration, database, logger, queue,
// rate limiter) and the services built over them. Routes and workers receive this context.
import type { Logger } from 'pino';
import type { Config } from './config/config.ts';
import type { Db } from './db/db.ts';
import type { EngineDriver } from './engine/engine.ts';
import { createSimulatedDriver } from './engine/simulated.ts';
import type { RateLimiter } from './http/rate-limit.ts';
import type { Sealer } from './lib/crypto.ts';
import type { TaskQueue } from './queue/queue.ts';
import { createServices, type Services } from './services.ts';

export interface AppContext {
  readonly version: string;
  readonly config: Config;
  readonly db: Db;
  readonly logger: Logger;
  readonly sealer: Sealer;
  readonly rateLimiter: RateLimiter;
  /** null until the queue is started (the API can run without workers in this process) */
  readonly queue: TaskQueue;
  /** the deployment engine driver (selected at start; tests default to the simulated one) */
  readonly engine: EngineDriver;
  readonly services: Services;
}

export interface ContextParts {
  version: string;
  config: Config;
  db: Db;
  logger: Logger;
  sealer: Sealer;
  rateLimiter: RateLimiter;
  queue: TaskQueue;
  engine?: EngineDriver;
}

export function createContext(parts: ContextParts): AppContext {
  const engine = parts.engine ?? createSimulatedDriver();
  return { ...parts, engine, services: createServices({ ...parts, engine }) };
}
