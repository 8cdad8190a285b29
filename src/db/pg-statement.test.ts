// Named statements that learn their result's shape once per connection (pg-statement.ts), on a
// real PostgreSQL server (DATABASE_URL's, else an embedded one started for this file): the rows
// are pg's own, the Describe is sent once per connection, and what PostgreSQL refuses (a changed
// result type, a duplicate) is refused the same way without harming the connection.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runNamed } from './pg-statement.ts';
import { freshPostgresUrl } from '../../test/support/db.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.ts';
import './postgres.ts'; // berth's readers of int8 and timestamptz, as the rows below are read

let pool: pg.Pool;
let embedded: { server: EmbeddedPostgres; dir: string } | undefined;

before(async () => {
  let url = await freshPostgresUrl();
  if (!url) {
    const dir = mkdtempSync(join(tmpdir(), 'berth-pg-statement-'));
    embedded = { server: await startEmbeddedPostgres(dir), dir };
    url = embedded.server.url;
  }
  pool = new pg.Pool({ connectionString: url, max: 2 });
  await pool.query(`create table things (id int8 primary key, name text not null unique, tags text[], spec jsonb,
    enabled boolean, ref uuid, at timestamptz, note text)`);
});

after(async () => {
  await pool.end();
  if (embedded) {
    await embedded.server.stop();
    rmSync(embedded.dir, { recursive: true, force: true });
  }
});

/** one connection, with a count of the Describe messages it sends */
async function countingClient(): Promise<{ client: pg.PoolClient; describes: () => number }> {
  const client = await pool.connect();
  const connection = (client as unknown as { connection: { describe: (...a: unknown[]) => void } }).connection;
  let sent = 0;
  const describe = connection.describe.bind(connection);
  connection.describe = (...a: unknown[]) => { sent += 1; describe(...a); };
  return { client, describes: () => sent };
}

const SELECT = 'select id, name, tags, spec, enabled, ref, at, note, id * 2 as twice from things where id = any($1::int8[]) order by id';

describe('a named statement that learns its shape', () => {
  test('rows are the ones pg builds itself, on every execution, with one Describe per connection', async () => {
    await pool.query(`insert into things values
      (1, 'one', '{a,b}', '{"k": [1, {"x": null}]}', true, 'b276a8e8-9b3c-459d-a323-369c33224710', '2026-11-25 21:42:51.583+00', null),
      (2, 'two', null, null, false, null, null, 'it''s')`);
    const expected = (await pool.query({ text: SELECT, values: [[1, 2]] })).rows;
    assert.equal(expected.length, 2);
    const { client, describes } = await countingClient();
    try {
      for (let i = 0; i < 3; i++) {
        const rows = await runNamed<Record<string, unknown>>(client, SELECT, [[1, 2]]);
        assert.deepEqual(rows, expected);
        assert.deepEqual(Object.keys(rows[0]!), ['id', 'name', 'tags', 'spec', 'enabled', 'ref', 'at', 'note', 'twice']);
      }
      assert.equal(describes(), 1);
      assert.deepEqual(await runNamed(client, SELECT, [[3]]), []);
      assert.equal(describes(), 1);
    } finally {
      client.release();
    }
  });

  test('a statement that returns no rows runs again and again', async () => {
    const { client } = await countingClient();
    try {
      for (let i = 10; i < 13; i++) assert.deepEqual(await runNamed(client, 'insert into things (id, name) values ($1, $2)', [i, `n${i}`]), []);
      assert.equal((await pool.query('select count(*)::int as n from things where id between 10 and 12')).rows[0].n, 3);
    } finally {
      client.release();
    }
  });

  test('a refused statement and a value that cannot be sent reject, and the connection goes on', async () => {
    const { client, describes } = await countingClient();
    try {
      const insert = 'insert into things (id, name) values ($1, $2) returning id, name';
      assert.deepEqual(await runNamed(client, insert, [20, 'twenty']), [{ id: 20, name: 'twenty' }]);
      await assert.rejects(runNamed(client, insert, [21, 'twenty']), { code: '23505' });
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      await assert.rejects(runNamed(client, insert, [22, circular]), TypeError);
      assert.deepEqual(await runNamed(client, insert, [23, 'twenty-three']), [{ id: 23, name: 'twenty-three' }]);
      assert.equal(describes(), 1);
    } finally {
      client.release();
    }
  });

  test('a changed result type is refused by PostgreSQL on the connection that knew the old one; a new connection learns the new one', async () => {
    await pool.query(`create table shapes (id int primary key); insert into shapes values (1)`);
    const star = 'select * from shapes where id = $1';
    const first = await pool.connect();
    try {
      assert.deepEqual(await runNamed(first, star, [1]), [{ id: 1 }]);
      await pool.query(`alter table shapes add column label text not null default 'x'`);
      await assert.rejects(runNamed(first, star, [1]), /cached plan must not change result type/);
      const second = await pool.connect();
      try {
        assert.deepEqual(await runNamed(second, star, [1]), [{ id: 1, label: 'x' }]);
      } finally {
        second.release();
      }
    } finally {
      first.release(true); // its prepared statement is stale: not back into the pool
    }
  });
});
