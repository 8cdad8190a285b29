import { test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseReadiness } from './databases.ts';
import { readinessOf } from './rollout.ts';
import type { DatabasePlan, RuntimePlan } from '../plan.ts';

const db = (type: DatabasePlan['type'], port: number): DatabasePlan => ({
  type, version: '1', mode: 'CONTAINER', port, login: 'u', password: 'secret', host: 'h', publicAccess: false,
} as DatabasePlan);
const plan = (database: DatabasePlan | null, readiness: RuntimePlan['readiness'] = null): RuntimePlan => ({
  source: null, env: {}, files: [], cpuMilli: 250, memoryMiB: 256, replicas: 1, ports: [], readiness, liveness: null,
  entrypoint: null, args: [], volumes: [], aliases: [], database, job: null,
});

test('PostgreSQL and MySQL are ready when their own client, over TCP inside the container, says so', () => {
  const pg = readinessOf(plan(db('POSTGRESQL', 5432)));
  assert.equal(pg?.kind, 'exec');
  assert.deepEqual(pg?.command, ['pg_isready', '-q', '-h', '127.0.0.1', '-p', '5432']);
  const my = readinessOf(plan(db('MYSQL', 3306)));
  assert.deepEqual(my?.command, ['mysqladmin', 'ping', '--silent', '-h', '127.0.0.1', '-P', '3306']);
  for (const probe of [pg, my]) assert.ok(!probe!.command.join(' ').includes('secret'), 'no password in a probe (it is a container label)');
});

test('MongoDB and Redis keep TCP on their port; a declared probe wins over the database default', () => {
  for (const [type, port] of [['MONGODB', 27017], ['REDIS', 6379]] as const) {
    assert.equal(databaseReadiness(db(type, port)), null);
    assert.deepEqual({ kind: readinessOf(plan(db(type, port)))?.kind, port: readinessOf(plan(db(type, port)))?.port }, { kind: 'tcp', port });
  }
  const own = { kind: 'http' as const, port: 8080, path: '/ready', command: [], initialDelaySeconds: 0, periodSeconds: 1, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 };
  assert.equal(readinessOf(plan(db('POSTGRESQL', 5432), own)), own);
});
