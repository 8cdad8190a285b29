// An empty PGlite cluster starts from the initdb template (pglite-template.ts, decision 0710): a
// copy of the template's cluster, never over an existing one, and a template PGlite cannot load
// is discarded for initdb. Also: berth's PGlite runs with the small shared buffers it asks for.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from './db.ts';
import { openPglite } from './pglite.ts';
import { pgliteTemplatePath, savePgliteTemplate } from './pglite-template.ts';

/** the cluster's identity, set once by initdb and kept by every copy of the cluster */
async function systemIdentifier(db: Db): Promise<string> {
  const [row] = await db.query<{ id: string }>('select system_identifier::text as id from pg_control_system()');
  return row!.id;
}

describe('PGlite initdb template', () => {
  let dir: string;
  let template: string;
  let templateId: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'berth-pglite-template-'));
    template = join(dir, 'template.tar.gz');
    const source = await openPglite('memory://', { template: false });
    try {
      templateId = await systemIdentifier(source);
      if (source.native.kind !== 'pglite') throw new Error('expected PGlite');
      await savePgliteTemplate(template, source.native.pglite);
    } finally {
      await source.close();
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('an empty data directory starts as a copy of the template and keeps what is written', async () => {
    const dataDir = join(dir, 'fresh');
    const db = await openPglite(dataDir, { template });
    try {
      assert.equal(await systemIdentifier(db), templateId);
      await db.exec('create table kept (n int); insert into kept values (7)');
    } finally {
      await db.close();
    }
    const reopened = await openPglite(dataDir, { template });
    try {
      assert.deepEqual(await reopened.query('select n from kept'), [{ n: 7 }]);
    } finally {
      await reopened.close();
    }
  });

  test('an in-memory database starts from the template too', async () => {
    const db = await openPglite('memory://', { template });
    try {
      assert.equal(await systemIdentifier(db), templateId);
    } finally {
      await db.close();
    }
  });

  // npm install makes the installed PGlite's template (scripts/pglite-template.ts); what berth and
  // the tests open without saying which template is that one
  const installed = pgliteTemplatePath();
  test('without a template named, an empty cluster starts from the one npm install made', { skip: existsSync(installed) ? false : `no ${installed}: npm install makes it` }, async () => {
    const fromInstalled = await openPglite('memory://', { template: installed });
    const byDefault = await openPglite('memory://');
    try {
      assert.equal(await systemIdentifier(byDefault), await systemIdentifier(fromInstalled));
    } finally {
      await Promise.all([byDefault.close(), fromInstalled.close()]);
    }
  });

  test('a template PGlite cannot load is removed and initdb makes the cluster', async () => {
    const broken = join(dir, 'broken.tar.gz');
    writeFileSync(broken, 'not a tarball');
    const db = await openPglite(join(dir, 'after-broken'), { template: broken });
    try {
      assert.notEqual(await systemIdentifier(db), templateId);
      assert.deepEqual(await db.query('select 1 as one'), [{ one: 1 }]);
    } finally {
      await db.close();
    }
    assert.equal(existsSync(broken), false);
  });

  test('a missing template means initdb', async () => {
    const db = await openPglite('memory://', { template: join(dir, 'none.tar.gz') });
    try {
      assert.notEqual(await systemIdentifier(db), templateId);
    } finally {
      await db.close();
    }
  });

  test('PGlite runs with 16 MB of shared buffers, not PostgreSQL\'s 128 MB default', async () => {
    const db = await openPglite('memory://', { template });
    try {
      assert.deepEqual(await db.query('show shared_buffers'), [{ shared_buffers: '16MB' }]);
    } finally {
      await db.close();
    }
  });
});
