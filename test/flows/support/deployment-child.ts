// Child process of the kill -9 flow: runs one deployment (slow steps) against the PostgreSQL
// test database named by DATABASE_URL, as a worker would, and is killed mid-step by the parent.
import { pino } from 'pino';
import { loadConfig } from '../../../src/config/config.ts';
import { openDb } from '../../../src/db/db.ts';
import { configureSimulatedEngine } from '../../../src/engine/simulated.ts';
import { startQueue } from '../../../src/queue/queue.ts';
import { runDeployment } from '../../../src/workers/deployments.ts';

const db = await openDb({ databaseUrl: process.env.CHILD_DATABASE_URL!, dataDir: 'memory://' });
const queue = await startQueue(db, { workers: false });
configureSimulatedEngine({ stepMs: 60_000 });
const config = loadConfig({ LOG_LEVEL: 'silent', ENCRYPTION_KEY: Buffer.alloc(32).toString('base64'), DATABASE_URL: process.env.CHILD_DATABASE_URL! });
process.stdout.write('ready\n');
await runDeployment({ db, queue, config, logger: pino({ level: 'silent' }) }, process.env.DEPLOYMENT_ID!, { id: 'child-task' });
