// The one-shot commands of `berth`: migrate, token create, openapi.
import type { Config } from '../config/config.ts';
import { createContext } from '../context.ts';
import type { Db } from '../db/db.ts';
import { openDb } from '../db/db.ts';
import { acquireDataDirLock } from '../db/lock.ts';
import { migrate } from '../db/migrate.ts';
import { ensureOrganization } from '../bootstrap.ts';
import { buildApp } from '../http/app.ts';
import { createRateLimiter } from '../http/rate-limit.ts';
import { createSealer } from '../lib/crypto.ts';
import { resolveRole } from '../modules/access/roles.ts';
import { CONSTRAINT_MESSAGES } from '../modules/constraints.ts';
import type { TaskQueue } from '../queue/queue.ts';
import { startQueue } from '../queue/queue.ts';
import { createLogger, resolveEncryptionKey, VERSION } from '../runtime.ts';

async function withDatabase<T>(config: Config, fn: (db: Db) => Promise<T>): Promise<T> {
  const lock = config.databaseUrl ? undefined : acquireDataDirLock(config.dataDir);
  try {
    const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, embedded: config.embeddedDatabase, poolSize: 2, constraints: CONSTRAINT_MESSAGES });
    try {
      await migrate(db);
      return await fn(db);
    } finally {
      await db.close();
    }
  } finally {
    lock?.release();
  }
}

export async function runMigrate(config: Config): Promise<void> {
  await withDatabase(config, async () => {
    process.stdout.write('migrations applied\n');
  });
}

export async function createToken(config: Config, organization: string, roleName: string, name?: string): Promise<void> {
  const role = resolveRole({ role: roleName });
  if (!role) throw new Error(`--role must be one of OWNER, ADMIN, DEVOPS, VIEWER, got "${roleName}"`);
  await withDatabase(config, async (db) => {
    const logger = createLogger({ ...config, logLevel: 'warn' });
    const queue = await startQueue(db, { workers: false });
    try {
      const ctx = createContext({
        version: VERSION, config, db, logger, queue,
        sealer: createSealer(resolveEncryptionKey(config)),
        rateLimiter: await createRateLimiter({ limit: config.rateLimitPerHour }),
      });
      const org = await ensureOrganization(ctx, organization);
      const token = await ctx.services.tokens.issue(db, org.id, name ?? `cli-${new Date().toISOString()}`, role, 'created with berth token create');
      process.stdout.write(`${token.token}\n`);
      process.stderr.write(`organization ${organization} (${org.id})${org.created ? ' created' : ''}; ${role} token ${token.id}. It is shown only this once.\n`);
    } finally {
      await queue.stop({ timeoutMs: 1000 });
    }
  });
}

/**
 * Re-encrypts every secret with NEW_ENCRYPTION_KEY. Embedded mode: the new key replaces
 * DATA_DIR/encryption-key (the old one is kept as encryption-key.previous). PostgreSQL mode:
 * set ENCRYPTION_KEY to the new key on every process afterwards.
 */
export async function rotateKey(config: Config, newKeyBase64: string | undefined): Promise<void> {
  const { rotateSecrets } = await import('./rotate-key.ts');
  const { copyFileSync, writeFileSync } = await import('node:fs');
  const { join, resolve } = await import('node:path');
  const { randomBytes } = await import('node:crypto');
  const newKey = newKeyBase64 ? Buffer.from(newKeyBase64, 'base64') : randomBytes(32);
  if (newKey.length !== 32) throw new Error('NEW_ENCRYPTION_KEY must be 32 bytes in base64');
  if (config.databaseUrl && !newKeyBase64) throw new Error('with DATABASE_URL, pass the new key in NEW_ENCRYPTION_KEY (32 bytes, base64)');
  const from = createSealer(resolveEncryptionKey(config));
  const to = createSealer(newKey);
  await withDatabase(config, async (db) => {
    const count = await db.transaction((tx) => rotateSecrets(tx, from, to));
    if (!config.databaseUrl && !config.encryptionKey) {
      const file = join(resolve(config.dataDir), 'encryption-key');
      copyFileSync(file, `${file}.previous`);
      writeFileSync(file, newKey.toString('base64') + '\n', { mode: 0o600 });
      process.stderr.write(`re-encrypted ${count} secrets; the new key is in ${file} (the old one in ${file}.previous)\n`);
    } else {
      process.stderr.write(`re-encrypted ${count} secrets; now set ENCRYPTION_KEY to the new key on every berth process\n`);
    }
  });
}

/** Describing the routes needs no database: every query of this one fails loudly if attempted. */
function detachedDb(): Db {
  const refuse = async (): Promise<never> => { throw new Error('no database in this command'); };
  return { kind: 'postgres', native: { kind: 'postgres', connectionString: '' }, query: refuse, exec: refuse, transaction: refuse, ping: refuse, close: async () => {} };
}

export async function printOpenApi(config: Config): Promise<void> {
  process.stdout.write(JSON.stringify(await openApiDocument(config), null, 2) + '\n');
}

/** berth's OpenAPI document, built from the routes without a database (also feeds the CLI's types) */
export async function openApiDocument(config: Config): Promise<Record<string, any>> {
  const detachedQueue: TaskQueue = {
    enqueue: async () => { throw new Error('no queue in this command'); },
    work: async () => false, schedule: async () => {}, unschedule: async () => {},
    stats: async () => ({ queued: 0, active: 0, deferred: 0, total: 0 }), stop: async () => {},
  };
  const ctx = createContext({
    version: VERSION, config: { ...config, logLevel: 'silent' }, db: detachedDb(), queue: detachedQueue,
    logger: createLogger({ ...config, logLevel: 'silent' }),
    sealer: createSealer(Buffer.alloc(32)), rateLimiter: await createRateLimiter({ limit: 1 }),
  });
  const app = await buildApp(ctx);
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  await app.close();
  return JSON.parse(res.body);
}
