// berth.yaml variables from a database's credentials (`{from_database: {name, property}}`, the
// form `berth import compose` writes): a database created by the same apply is resolved in
// dependency order; HOST and PORT are plain variables, USER, PASSWORD and URL secrets holding the
// generated credentials; a second apply changes nothing; export writes the references back (the
// round trip into another organization gives the same text); a database the environment does not
// have is a 400 with line and column; a DEVOPS may apply a file
// holding them but not write a password (0142).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

const DOC = `version: 1
project:
  name: refs
environments:
  dev:
    mode: DEVELOPMENT
    variables:
      SHARED_DB_HOST: { from_database: { name: db, property: HOST } }
    applications:
      web:
        git_repository: { url: https://github.com/acme/shop, branch: main }
        variables:
          MODE: web
          DB_HOST: { from_database: { name: db, property: HOST } }
          DB_PORT: { from_database: { name: db, property: PORT } }
          DB_USER: { from_database: { name: db, property: USER } }
          DB_PASSWORD: { from_database: { name: db, property: PASSWORD } }
          DB_URL: { from_database: { name: db, property: URL } }
    databases:
      db: { type: POSTGRESQL, mode: CONTAINER, version: "16" }
`;

describe('berth.yaml: variables from a database', () => {
  let t: TestApp;
  let org: SeededOrganization;
  const apply = (o: SeededOrganization, document: string, dryRun = false, token = o.token) =>
    t.request('POST', `/organization/${o.id}/apply${dryRun ? '?dry_run=true' : ''}`, { token, body: { document } });
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
  });
  after(async () => t.close());

  test('resolved from a database the same apply creates: HOST/PORT plain, USER/PASSWORD/URL secrets; idempotent; exported as references', async () => {
    const plan = await apply(org, DOC, true);
    assert.equal(plan.status, 200, plan.raw);
    const paths = plan.body.changes.map((c: any) => `${c.action} ${c.kind} ${c.path}`);
    assert.ok(paths.indexOf('create secret environments.dev.applications.web.variables.DB_PASSWORD') > paths.indexOf('create database environments.dev.databases.db'), paths.join('\n'));

    const first = await apply(org, DOC);
    assert.equal(first.status, 200, first.raw);
    const [db] = await t.ctx.db.query<{ id: string }>(`select id from services where project_id = $1 and name = 'db'`, [first.body.project.id]);
    const creds = await t.request('GET', `/database/${db!.id}/masterCredentials`, { token: org.token });
    assert.equal(creds.status, 200, creds.raw);
    const { host, port, login, password } = creds.body as { host: string; port: number; login: string; password: string };
    const [web] = await t.ctx.db.query<{ id: string }>(`select id from services where project_id = $1 and name = 'web'`, [first.body.project.id]);
    const rows = await t.ctx.db.query<{ key: string; is_secret: boolean }>('select key, is_secret from variables where parent_id = $1 order by key', [web!.id]);
    assert.deepEqual(rows.map((r) => `${r.key}:${r.is_secret}`), ['DB_HOST:false', 'DB_PASSWORD:true', 'DB_PORT:false', 'DB_URL:true', 'DB_USER:true', 'MODE:false']);
    const plain = await t.request('GET', `/application/${web!.id}/environmentVariable`, { token: org.token });
    const value = (k: string) => (plain.body.results as Array<{ key: string; value: string | null }>).find((v) => v.key === k)?.value;
    assert.equal(value('DB_HOST'), host);
    assert.equal(value('DB_PORT'), String(port));
    const secrets = new Map((await t.ctx.services.variables.secretValues([web!.id])).map((r) => [r.key, r.value]));
    assert.equal(secrets.get('DB_USER'), login);
    assert.equal(secrets.get('DB_PASSWORD'), password);
    assert.equal(secrets.get('DB_URL'), `postgresql://${login}:${encodeURIComponent(password)}@${host}:${port}/postgres`);
    assert.ok(!first.raw.includes(password), 'the apply answer carries no credential');

    const again = await apply(org, DOC, true);
    assert.equal(again.status, 200, again.raw);
    assert.deepEqual(again.body.summary, { create: 0, update: 0, unchanged: again.body.changes.length, delete: 0 });

    const exported = await t.request('GET', `/project/${first.body.project.id}/export`, { token: org.token });
    assert.equal(exported.status, 200, exported.raw);
    assert.match(exported.raw, /DB_PASSWORD:\n\s+from_database:\n\s+name: db\n\s+property: PASSWORD/);
    assert.match(exported.raw, /SHARED_DB_HOST:\n\s+from_database:\n\s+name: db\n\s+property: HOST/);
    assert.ok(!exported.raw.includes(password) && !exported.raw.includes(host) && !/secrets:/.test(exported.raw), exported.raw);

    // the round trip: the export applied into an empty organization gets its own database's credentials, and exports the same text
    const other = await seedOrganization(t);
    const copied = await apply(other, exported.raw);
    assert.equal(copied.status, 200, copied.raw);
    const exportedAgain = await t.request('GET', `/project/${copied.body.project.id}/export`, { token: other.token });
    assert.equal(exportedAgain.raw, exported.raw);
  });

  test('a database the environment does not have: 400 with line and column; a DEVOPS applies but may not write a password', async () => {
    const bad = DOC.replace('name: db, property: PASSWORD', 'name: nope, property: PASSWORD').replace('{ name: db, property: HOST } }\n    applications', '{ name: web, property: HOST } }\n    applications');
    const r = await apply(org, bad.replace('name: refs', 'name: refs-bad'), true);
    const body = expectErrorBody(r, 400);
    assert.match(body.message, /web is not a database/);
    const errors = r.body.errors as Array<{ line: number; column: number; path: string; message: string }>;
    assert.deepEqual(errors.map((e) => [e.path, e.line]), [
      ['environments.dev.variables.SHARED_DB_HOST.from_database.name', 8],
      ['environments.dev.applications.web.variables.DB_PASSWORD.from_database.name', 17],
    ]);
    assert.match(errors[1]!.message, /no database named "nope" in environment dev/);
    assert.ok(errors.every((e) => e.column > 1));

    const wrongProperty = await apply(org, DOC.replace('property: URL', 'property: DSN'), true);
    expectErrorBody(wrongProperty, 400);
    assert.deepEqual(wrongProperty.body.errors.map((e: any) => [e.line, e.message]), [[18, 'environments.dev.applications.web.variables.DB_URL.from_database.property: must be one of "HOST", "PORT", "USER", "PASSWORD", "URL"']]);

    const devops = await org.tokenFor('DEVOPS');
    const edited = DOC.replace('MODE: web', 'MODE: worker');
    const unchangedSecrets = await apply(org, edited, false, devops);
    assert.equal(unchangedSecrets.status, 200, unchangedSecrets.raw);
    assert.deepEqual(unchangedSecrets.body.summary.update, 1);
    const refused = await apply(org, edited.replace('name: db, property: USER', 'name: db, property: URL'), false, devops);
    expectErrorBody(refused, 403);
    assert.equal(refused.body.errors[0].line, 16);
  });
});
