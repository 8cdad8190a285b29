// How a CONTAINER-mode database runs on Docker: the official image of its type at the requested
// version, the environment that image reads to create the master user, its data directory (a
// named volume), its port and when it is ready. Pure. Offline hosts preload these images
// (`docker load`/`docker tag`).
import type { DatabasePlan, ProbePlan } from '../plan.ts';
import { defaultReadiness } from './health.ts';

export interface DatabaseContainer {
  image: string;
  env: Record<string, string>;
  cmd: string[] | null;
  dataDir: string;
}

export function databaseContainer(db: DatabasePlan): DatabaseContainer {
  switch (db.type) {
    case 'POSTGRESQL':
      return {
        image: `postgres:${db.version}`,
        env: { POSTGRES_USER: db.login, POSTGRES_PASSWORD: db.password, POSTGRES_DB: 'postgres' },
        cmd: null, dataDir: '/var/lib/postgresql/data',
      };
    case 'MYSQL':
      return {
        image: `mysql:${db.version}`,
        env: { MYSQL_ROOT_PASSWORD: db.password, MYSQL_USER: db.login, MYSQL_PASSWORD: db.password, MYSQL_DATABASE: 'berth' },
        cmd: null, dataDir: '/var/lib/mysql',
      };
    case 'MONGODB':
      return {
        image: `mongo:${db.version}`,
        env: { MONGO_INITDB_ROOT_USERNAME: db.login, MONGO_INITDB_ROOT_PASSWORD: db.password },
        cmd: null, dataDir: '/data/db',
      };
    case 'REDIS':
      return {
        image: `redis:${db.version}`,
        env: {},
        cmd: ['redis-server', '--requirepass', db.password, '--appendonly', 'yes'],
        dataDir: '/data',
      };
  }
}

/**
 * When a database is ready: its own client asked over TCP inside the container, where the server
 * answers it. A TCP accept is not enough for PostgreSQL and MySQL: PostgreSQL accepts while it
 * still answers "the database system is starting up" (at every start, longer after a crash), and
 * both images' first-start init runs a server that listens on no TCP port, which these commands
 * also ask through TCP so they wait for the real one. MongoDB's init server listens on loopback
 * only and Redis answers LOADING only while replaying a large append-only file: TCP from outside
 * (the default probe, null here) is their readiness.
 */
export function databaseReadiness(db: DatabasePlan): ProbePlan | null {
  const port = String(db.port);
  const command = db.type === 'POSTGRESQL' ? ['pg_isready', '-q', '-h', '127.0.0.1', '-p', port]
    : db.type === 'MYSQL' ? ['mysqladmin', 'ping', '--silent', '-h', '127.0.0.1', '-P', port]
    : null;
  if (!command) return null;
  // the default probe's timing, with room for a first start's init and a slow client
  return { ...defaultReadiness(db.port)!, kind: 'exec', command, timeoutSeconds: 5, failureThreshold: 120 };
}
