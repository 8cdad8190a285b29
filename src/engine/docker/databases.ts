// How a CONTAINER-mode database runs on Docker: the official image of its type at the requested
// version, the environment that image reads to create the master user, its data directory (a
// named volume) and its port. Pure. Offline hosts preload these images (`docker load`/`docker tag`).
import type { DatabasePlan } from '../plan.ts';

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
