// Named prepared statements on PGlite (pglite-prepared.ts, used by every Db query in embedded
// mode) give exactly what PGlite's own query() gives: rows and types, errors, transactions, and a
// table changed under a prepared statement; and that a statement's commit is on disk when it
// returns, with no syncToFs (a process killed right after still has it). Runs on its own PGlites.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from './db.ts';
import { openPglite } from './pglite.ts';
const CONSTRAINTS = { prep_items_name_key: { status: 409, message: 'prep item name taken' } };

describe('PGlite prepared statements', () => {
  let db: Db;
  let raw: import('@electric-sql/pglite').PGlite;
  before(async () => {
    db = await openPglite('memory://', { constraints: CONSTRAINTS });
    if (db.native.kind !== 'pglite') throw new Error('expected PGlite');
    raw = db.native.pglite;
    await db.exec(`create table prep_items (
      id uuid primary key default gen_random_uuid(), name text not null constraint prep_items_name_key unique,
      n int8, flag boolean, tags text[], doc jsonb, at timestamptz default now(), note text)`);
  });
  after(() => db.close());

  const SELECT = 'select id, name, n, flag, tags, doc, at, note from prep_items where name = $1';

  test('rows, types and null parameters are those of query()', async () => {
    await db.query('insert into prep_items (name, n, flag, tags, doc, note) values ($1, $2, $3, $4, $5, $6)',
      ['a', 9_007_199_254, true, ['x', 'y'], { k: [1, 'two'] }, null]);
    for (let i = 0; i < 3; i++) { // the first call prepares, the next ones reuse the name
      const [mine] = await db.query(SELECT, ['a']);
      const theirs = (await raw.query(SELECT, ['a'])).rows[0];
      assert.deepEqual(mine, theirs);
    }
    const [row] = await db.query<{ n: number; tags: string[]; doc: unknown; at: Date; note: null }>(SELECT, ['a']);
    assert.equal(row!.n, 9_007_199_254); // int8 parsed to a number, as configured
    assert.deepEqual(row!.tags, ['x', 'y']);
    assert.deepEqual(row!.doc, { k: [1, 'two'] });
    assert.ok(row!.at instanceof Date);
    assert.equal(row!.note, null);
    assert.deepEqual(await db.query(SELECT, ['missing']), []);
    // prepared once, under one name, in the database session
    const prepared = (await raw.query<{ statement: string }>('select statement from pg_prepared_statements')).rows.filter((r) => r.statement === SELECT);
    assert.equal(prepared.length, 1);
    assert.deepEqual(await db.query('select count(*)::int as c from prep_items where n = $1', [null]), [{ c: 0 }]);
  });

  test('a unique violation keeps its code and constraint; the statement still works after it', async () => {
    const insert = 'insert into prep_items (name) values ($1) returning name';
    assert.deepEqual(await db.query(insert, ['dup']), [{ name: 'dup' }]);
    // the registered constraint message proves the driver error kept its constraint name
    await assert.rejects(db.query(insert, ['dup']), (err: { status?: number; message?: string }) => err.status === 409 && err.message === 'prep item name taken');
    // a value the column refuses keeps its SQLSTATE (22P02 → 400)
    await assert.rejects(db.query('select 1 from prep_items where id = $1', ['not-a-uuid']), (err: { status?: number }) => err.status === 400);
    assert.deepEqual(await db.query(insert, ['dup-2']), [{ name: 'dup-2' }]);
  });

  test('a syntax error is thrown, not swallowed', async () => {
    await assert.rejects(db.query('selec nothing from prep_items where name = $1', ['a']));
  });

  test('transactions commit and roll back prepared statements', async () => {
    const insert = 'insert into prep_items (name) values ($1)';
    await db.transaction(async (tx) => { await tx.query(insert, ['tx-ok']); });
    await assert.rejects(db.transaction(async (tx) => {
      await tx.query(insert, ['tx-rolled-back']);
      throw new Error('abort');
    }), /abort/);
    const names = (await db.query<{ name: string }>("select name from prep_items where name like 'tx-%' order by name", [])).map((r) => r.name);
    assert.deepEqual(names, ['tx-ok']);
  });

  test('a table changed under a prepared statement falls back to query()', async () => {
    const star = 'select * from prep_items where name = $1';
    const before = await db.query<Record<string, unknown>>(star, ['a']);
    assert.ok(!('extra' in before[0]!));
    await db.exec("alter table prep_items add column extra text default 'e'");
    const after = await db.query<Record<string, unknown>>(star, ['a']);
    assert.equal(after[0]!.extra, 'e');
  });
});

test('a committed statement survives the process being killed right after it (kill -9)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-pglite-kill-'));
  try {
    // the child writes through the prepared path (one standalone statement, its own commit) and
    // kills itself as soon as the statement has returned: no close, no checkpoint, no exit handler
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', `
      const { openPglite } = await import(${JSON.stringify(new URL('./pglite.ts', import.meta.url).href)});
      const db = await openPglite(${JSON.stringify(dir)});
      await db.exec('create table kept (name text primary key)');
      await db.query('insert into kept (name) values ($1)', ['written']);
      process.kill(process.pid, 'SIGKILL');
    `], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(child.signal, 'SIGKILL', child.stderr);
    const reopened = await openPglite(dir);
    try {
      assert.deepEqual(await reopened.query('select name from kept'), [{ name: 'written' }]);
    } finally {
      await reopened.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
