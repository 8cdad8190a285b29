import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import type { DriverService } from './engine.ts';
import { createSimulatedDriver } from './simulated.ts';

const service = (type: string): DriverService => ({
  id: '11111111-2222-3333-4444-555555555555', type: 'DATABASE', name: 'orders', slug: 'orders', environmentId: 'e', spec: { type },
  advancedSettings: {}, gitCommitId: null, imageTag: null,
});
const backups = createSimulatedDriver().databaseBackups!;
const signal = new AbortController().signal;

test('a simulated dump says it is one, and of what', async () => {
  const dump = await text(await backups.dump(service('POSTGRESQL'), signal));
  assert.match(dump, /^BERTH SIMULATED DUMP v1\nservice_id: 11111111-2222-3333-4444-555555555555\nname: orders\ntype: POSTGRESQL\ntaken_at: \d{4}-/);
  assert.match(dump, /not a database dump/);
  await backups.restore(service('POSTGRESQL'), Readable.from([dump]), signal);
  assert.deepEqual(await backups.drill(service('POSTGRESQL'), Readable.from([dump]), signal), { counts: {} });
});

test('only a simulated dump of the same type restores or passes a drill', async () => {
  const dump = await text(await backups.dump(service('POSTGRESQL'), signal));
  await assert.rejects(backups.restore(service('REDIS'), Readable.from([dump]), signal), /a simulated dump of a POSTGRESQL database cannot be restored into a REDIS database/);
  await assert.rejects(backups.restore(service('POSTGRESQL'), Readable.from(['PGDMP garbage']), signal), /not a simulated dump/);
  await assert.rejects(backups.drill(service('POSTGRESQL'), Readable.from([Buffer.alloc(100_000)]), signal), /not a simulated dump/);
});
