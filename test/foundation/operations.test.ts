// Operations: rotating the encryption key re-encrypts every secret at rest; the embedded store
// is backed up and restored with the `berth` command.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rotateSecrets } from '../../src/cli/rotate-key.ts';
import { createSealer } from '../../src/lib/crypto.ts';
import { seedEnvironment, seedService } from '../support/factories.ts';
import { seedOrganization, startTestApp } from '../support/harness.ts';

const root = new URL('../..', import.meta.url).pathname;
function berth(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [join(root, 'src/cli/main.ts'), ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, encoding: 'utf8', timeout: 90_000 });
}

describe('encryption key rotation', () => {
  test('every sealed value, in text and in nested jsonb, is re-encrypted; nothing else changes', async () => {
    const t = await startTestApp();
    try {
      const oldKey = createSealer(randomBytes(32));
      const newKey = createSealer(randomBytes(32));
      const org = await seedOrganization(t);
      const env = await seedEnvironment(t, org);
      const svc = await seedService(t, env, 'JOB');
      const lookalike = 'v1.aaaaaaaaaaaaaaaa.bbbbbbbbbbbbbbbbbbbbbb.cccc';
      await t.ctx.db.query(`update services set secrets = $2::jsonb where id = $1`,
        [svc, JSON.stringify({ api_key: oldKey.seal('model-key'), nested: { list: [oldKey.seal('deep')] }, plain: 'v1.not.sealed' })]);
      const reg = await t.ctx.db.query<{ id: string }>(
        `insert into container_registries (organization_id, name, kind, url, config_sealed, description) values ($1, 'r', 'DOCKER_HUB', 'https://docker.io', $2, $3) returning id`,
        [org.id, oldKey.seal('{"password":"hunter2"}'), lookalike]);
      const count = await t.ctx.db.transaction((tx) => rotateSecrets(tx, oldKey, newKey));
      assert.ok(count >= 3, `re-encrypted ${count}`);
      const s = (await t.ctx.db.query<{ secrets: { api_key: string; nested: { list: string[] }; plain: string } }>('select secrets from services where id = $1', [svc]))[0]!.secrets;
      assert.equal(newKey.open(s.api_key), 'model-key');
      assert.equal(newKey.open(s.nested.list[0]!), 'deep');
      assert.equal(s.plain, 'v1.not.sealed');
      assert.throws(() => oldKey.open(s.api_key));
      const r = (await t.ctx.db.query<{ config_sealed: string; description: string }>('select config_sealed, description from container_registries where id = $1', [reg[0]!.id]))[0]!;
      assert.equal(newKey.open(r.config_sealed), '{"password":"hunter2"}');
      assert.equal(r.description, lookalike, 'a look-alike that does not open with the key is left alone');
    } finally {
      await t.close();
    }
  });

  test('berth rotate-key replaces the embedded key file and keeps the previous one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-rotate-'));
    assert.equal(berth(['token', 'create', '--organization', 'rot'], { DATA_DIR: dir }).status, 0);
    const before = readFileSync(join(dir, 'encryption-key'), 'utf8');
    const r = berth(['rotate-key'], { DATA_DIR: dir });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /re-encrypted \d+ secrets/);
    assert.equal(readFileSync(join(dir, 'encryption-key.previous'), 'utf8'), before);
    assert.notEqual(readFileSync(join(dir, 'encryption-key'), 'utf8'), before);
  });
});

describe('backup and restore of the embedded store', () => {
  test('a backup restored into a new DATA_DIR holds the same data', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-backup-'));
    const made = berth(['token', 'create', '--organization', 'backed-up'], { DATA_DIR: dir });
    assert.equal(made.status, 0, made.stderr);
    const file = join(dir, '..', `backup-${Date.now()}.tar.gz`);
    const b = berth(['backup', '--out', file], { DATA_DIR: dir });
    assert.equal(b.status, 0, b.stderr);
    assert.ok(existsSync(file));
    const target = mkdtempSync(join(tmpdir(), 'berth-restore-'));
    const r = berth(['restore', '--from', file], { DATA_DIR: target });
    assert.equal(r.status, 0, r.stderr);
    copyFileSync(join(dir, 'encryption-key'), join(target, 'encryption-key'));
    const again = berth(['token', 'create', '--organization', 'backed-up'], { DATA_DIR: target });
    assert.equal(again.status, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /created;/, 'the organization came back with the backup');
    const refused = berth(['restore', '--from', file], { DATA_DIR: target });
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /not empty/);
  });
});
