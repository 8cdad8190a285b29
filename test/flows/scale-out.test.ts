// Several processes on one PostgreSQL and one Redis: two API processes and two workers.
// Skipped (with the reason) when DATABASE_URL is unset: the embedded store is single-process.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { freshPostgresUrl } from '../support/db.ts';
import { startBerth, type BerthProcess } from '../support/processes.ts';

const skip = !process.env.DATABASE_URL ? 'DATABASE_URL is not set: scale-out needs PostgreSQL'
  : !process.env.REDIS_URL ? 'REDIS_URL is not set: scale-out needs Redis' : false;

describe('scale-out: two API processes and two workers', { skip }, () => {
  const token = `scale-${randomBytes(16).toString('hex')}`;
  const processes: BerthProcess[] = [];
  let apis: BerthProcess[] = [];
  const LIMIT = 12;

  before(async () => {
    const databaseUrl = (await freshPostgresUrl())!;
    const env = {
      DATABASE_URL: databaseUrl, REDIS_URL: process.env.REDIS_URL!, ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      BOOTSTRAP_TOKEN: token, BOOTSTRAP_ORGANIZATION: 'scale-out', RATE_LIMIT_PER_HOUR: String(LIMIT), DATA_DIR: `/tmp/berth-scale-${process.pid}`,
    };
    // the first process migrates an empty database; the others start on it concurrently
    processes.push(await startBerth('api', env));
    processes.push(...await Promise.all([startBerth('api', env), startBerth('worker', env), startBerth('worker', env)]));
    apis = processes.filter((p) => p.role === 'api');
  });
  after(async () => {
    await Promise.all(processes.map((p) => p.stop()));
  });

  test('the rate limit is one budget across API processes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT * 2; i++) {
      const api = apis[i % apis.length]!;
      const r = await fetch(`${api.url}/organization`, { headers: { authorization: `Token ${token}` } });
      statuses.push(r.status);
      await r.arrayBuffer();
    }
    assert.equal(statuses.filter((s) => s === 200).length, LIMIT, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, LIMIT);
  });

  test('every process is up and shuts down cleanly', async () => {
    for (const p of processes) assert.equal(p.child.exitCode, null, p.output());
  });
});
