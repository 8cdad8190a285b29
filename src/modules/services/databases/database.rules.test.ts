// Unit tests of the database rules: version table per type and mode, defaults, instance_type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkInstanceType, defaultMemory, defaultPort, versionProblem } from './database.rules.ts';

test('versions are checked by major version per type and mode', () => {
  assert.equal(versionProblem('POSTGRESQL', 'CONTAINER', '10'), null);
  assert.equal(versionProblem('POSTGRESQL', 'CONTAINER', '17.2'), null);
  assert.match(versionProblem('POSTGRESQL', 'MANAGED', '10')!, /supported major versions: 11, 12/);
  assert.match(versionProblem('POSTGRESQL', 'CONTAINER', '18')!, /not supported/);
  assert.equal(versionProblem('MYSQL', 'MANAGED', '8.0'), null);
  assert.equal(versionProblem('MYSQL', 'CONTAINER', '5.7'), null);
  assert.match(versionProblem('MYSQL', 'CONTAINER', '6')!, /not supported/);
  assert.equal(versionProblem('MONGODB', 'CONTAINER', '8'), null);
  assert.match(versionProblem('MONGODB', 'MANAGED', '6')!, /supported major versions: 4, 5/);
  assert.equal(versionProblem('REDIS', 'MANAGED', '7'), null);
  assert.match(versionProblem('REDIS', 'CONTAINER', '4')!, /not supported/);
  assert.match(versionProblem('REDIS', 'CONTAINER', 'latest')!, /not a version number/);
  assert.match(versionProblem('REDIS', 'CONTAINER', '7.')!, /not a version number/);
});

test('defaults: memory per type and mode, port per type', () => {
  assert.equal(defaultMemory('MYSQL', 'CONTAINER'), 512);
  assert.equal(defaultMemory('MONGODB', 'CONTAINER'), 256);
  assert.equal(defaultMemory('MYSQL', 'MANAGED'), 100);
  assert.equal(defaultPort('POSTGRESQL'), 5432);
  assert.equal(defaultPort('REDIS'), 6379);
});

test('instance_type is refused for CONTAINER databases', () => {
  assert.throws(() => checkInstanceType('CONTAINER', 'db.t3.medium'), /only for MANAGED/);
  checkInstanceType('MANAGED', 'db.t3.medium');
  checkInstanceType('CONTAINER', null);
});
