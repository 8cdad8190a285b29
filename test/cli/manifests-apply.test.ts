// The real `berth` binary through the whole infrastructure-as-code loop against a started berth:
// `import compose` (web + worker built from the git repository, PostgreSQL, Redis) → `plan -f`
// (the plan, a secret only as changed, never a value) → `apply -f --yes` (creates every service,
// the databases' credentials wired from_database) → `apply` again (nothing to apply) → `export`
// (the file apply produced: the imported services and references, applying it changes nothing);
// a bad file prints one `file:line:column: message` line per problem and exits 2.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { berth, startCliServer, type CliServer } from './support.ts';

const COMPOSE = `name: iac-shop
services:
  web:
    build: .
    ports: ["8000:8080"]
    environment: [MODE=web]
    depends_on: [db, cache]
  worker:
    build: .
    command: ./worker
    depends_on: [db]
  db:
    image: postgres:16
  cache:
    image: redis:7
`;

describe('berth import compose → plan → apply → export, against a server', () => {
  let s: CliServer;
  let dir: string;
  let env: Record<string, string>;
  const run = (args: string[]) => berth(s.newConfigDir(), args, { env });

  before(async () => {
    s = await startCliServer();
    env = { BERTH_URL: s.url, BERTH_TOKEN: s.org.token };
    dir = mkdtempSync(join(tmpdir(), 'iac-cli-'));
    writeFileSync(join(dir, 'docker-compose.yml'), COMPOSE);
    const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('remote', 'add', 'origin', 'https://git.example.com/acme/iac-shop.git');
  });
  after(async () => s?.close());

  test('the loop: import, plan, apply, apply again, export', async () => {
    const file = join(dir, 'berth.yaml');
    const imported = await run(['import', 'compose', join(dir, 'docker-compose.yml'), '-o', file]);
    assert.equal(imported.code, 0, imported.stderr);
    const importedDoc = parse(readFileSync(file, 'utf8'));

    const planned = await run(['plan', '-f', file]);
    assert.equal(planned.code, 0, planned.stderr);
    assert.match(planned.stdout, /^\+ create\s+project project$/m);
    assert.match(planned.stdout, /^\+ create\s+database environments\.development\.databases\.db$/m);
    assert.match(planned.stdout, /^\+ create\s+secret environments\.development\.applications\.web\.variables\.DB_PASSWORD\n\s+value: \(secret changed\)$/m);
    assert.match(planned.stdout, /to create, 0 to update, 0 to delete, 0 unchanged$/m);
    assert.equal((await s.t.ctx.db.query('select 1 from projects where organization_id = $1', [s.org.id])).length, 0, 'plan wrote nothing');

    const applied = await run(['apply', '-f', file, '--yes']);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, new RegExp(`applied ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    const services = await s.t.ctx.db.query<{ name: string; type: string; project_id: string }>(
      `select s.name, s.type, s.project_id from services s join projects p on p.id = s.project_id where p.organization_id = $1 order by s.name`, [s.org.id]);
    assert.deepEqual(services.map((x) => `${x.type}:${x.name}`), ['DATABASE:cache', 'DATABASE:db', 'APPLICATION:web', 'APPLICATION:worker']);
    const db = (await s.t.ctx.db.query<{ id: string }>(`select id from services where project_id = $1 and name = 'db'`, [services[0]!.project_id]))[0]!;
    const { password } = await s.api('GET', `/database/${db.id}/masterCredentials`);

    const replanned = await run(['plan', '-f', file]);
    assert.equal(replanned.code, 0, replanned.stderr);
    assert.match(replanned.stdout, /^0 to create, 0 to update, 0 to delete, \d+ unchanged$/m);
    assert.ok(!replanned.stdout.includes(password), 'a plan never shows a secret\'s value');
    const again = await run(['apply', '-f', file, '--yes']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^nothing to apply$/m);

    const exported = await run(['export', '--project', 'iac-shop', '--environment', 'development']);
    assert.equal(exported.code, 0, exported.stderr);
    assert.ok(!exported.stdout.includes(password));
    const doc = parse(exported.stdout);
    const want = importedDoc.environments.development;
    const got = doc.environments.development;
    for (const name of ['web', 'worker']) {
      assert.deepEqual(got.applications[name].variables, want.applications[name].variables, name);
      assert.deepEqual(got.applications[name].git_repository, want.applications[name].git_repository, name);
    }
    // export writes every member (the defaults too): what the import wrote is there as written
    for (const [i, port] of (want.applications.web.ports as Array<Record<string, unknown>>).entries()) {
      for (const [k, v] of Object.entries(port)) assert.deepEqual(got.applications.web.ports[i][k], v, `ports.${i}.${k}`);
    }
    for (const name of ['db', 'cache']) {
      for (const [k, v] of Object.entries(want.databases[name])) assert.deepEqual(got.databases[name][k], v, `${name}.${k}`);
    }
    // berth export > berth.yaml: the same file (its owner), now pinning every member; applying it changes nothing
    writeFileSync(file, exported.stdout);
    const fromExport = await run(['apply', '-f', file, '--yes']);
    assert.equal(fromExport.code, 0, fromExport.stderr);
    assert.match(fromExport.stdout, /^nothing to apply$/m);
    const reExported = await run(['export', '--project', 'iac-shop', '--environment', 'development']);
    assert.equal(reExported.stdout, exported.stdout);
  });

  test('a bad file: one file:line:column: message line per problem, exit 2, nothing written', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, `version: 1
project: { name: iac-bad }
environments:
  dev:
    applications:
      web:
        git_repository: { url: https://git.example.com/a.git, branch: main }
        cpus: 2
        variables:
          DB_URL: { from_database: { name: nope, property: URL } }
        secrets:
          TOKEN: plain-value
`);
    const r = await run(['apply', '-f', bad, '--yes']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith(`${bad}:`));
    assert.equal(lines.length, 2, r.stderr);
    assert.match(lines[0]!, new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:8:9: environments\\.dev\\.applications\\.web\\.cpus: is not a member`));
    assert.match(lines[1]!, /:12:18: environments\.dev\.applications\.web\.secrets\.TOKEN: a secret value is never written in the file/);
    const missing = await run(['plan', '-f', bad.replace('bad.yaml', 'missing-db.yaml')]);
    assert.equal(missing.code, 2);
    writeFileSync(join(dir, 'missing-db.yaml'), readFileSync(bad, 'utf8').replace('        cpus: 2\n', '').replace(/\s+secrets:\n\s+TOKEN: plain-value\n/, '\n'));
    const unknownDb = await run(['plan', '-f', join(dir, 'missing-db.yaml')]);
    assert.equal(unknownDb.code, 2, unknownDb.stdout + unknownDb.stderr);
    assert.match(unknownDb.stderr, /missing-db\.yaml:9:44: environments\.dev\.applications\.web\.variables\.DB_URL: no database named "nope"/);
    assert.equal((await s.t.ctx.db.query(`select 1 from projects where name = 'iac-bad'`)).length, 0);
  });
});
