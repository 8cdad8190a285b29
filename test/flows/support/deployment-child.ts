// Child process of the kill -9 flow: runs one deployment (slow steps) against the PostgreSQL
// test database named by DATABASE_URL, as a worker would, and is killed mid-step by the parent.
import { pino } from 'pino';
import { loadConfig } from '../../../src/config/config.ts';
import { createContext } from '../../../src/context.ts';
import { openDb } from '../../../src/db/db.ts';
import { CONSTRAINT_MESSAGES } from '../../../src/modules/constraints.ts';
import { createSimulatedDriver } from '../../../src/engine/index.ts';
import { createRateLimiter } from '../../../src/http/rate-limit.ts';
import { createSealer } from '../../../src/lib/crypto.ts';
import { startQueue } from '../../../src/queue/queue.ts';
import { runDeployment } from '../../../src/workers/deployments.ts';

const db = await openDb({ databaseUrl: process.env.CHILD_DATABASE_URL!, dataDir: 'memory://', constraints: CONSTRAINT_MESSAGES });
const queue = await startQueue(db, { workers: false });
const key = Buffer.alloc(32);
const config = loadConfig({ LOG_LEVEL: 'silent', ENGINE: 'simulated', ENCRYPTION_KEY: key.toString('base64'), DATABASE_URL: process.env.CHILD_DATABASE_URL! });
const logger = pino({ level: 'silent' });
const ctx = createContext({
  version: 'test', config, db, queue, logger, sealer: createSealer(key), engine: createSimulatedDriver({ stepMs: 60_000 }),
  rateLimiter: await createRateLimiter({ limit: 1000, redisUrl: undefined, logger }),
});
process.stdout.write('ready\n');
await runDeployment(ctx, process.env.DEPLOYMENT_ID!, { id: 'child-task' });
