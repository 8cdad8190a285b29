// berth.yaml over HTTP (issue 41, decision 0745): apply into an organization, plan (dry_run)
// field by field, idempotence, export → apply into an empty organization → export, secrets by
// reference (refused as values, resolved from secret_values and from an existing secret,
// compared by fingerprint), ownership and prune, every error of a bad file with line and column,
// all or nothing, deploy of what changed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

const DOC = (extra = '') => `version: 1
project:
  name: shop
  description: The shop
environments:
  staging:
    mode: STAGING
    variables:
      LOG_LEVEL: info
    secrets:
      STRIPE_KEY: { from: env:STRIPE_KEY }
    applications:
      web:
        git_repository: { url: https://github.com/acme/shop, branch: main }
        cpu: 500
        ports:
          - { internal_port: 8080, publicly_accessible: true }
        variables: { PORT: "8080" }
        secrets:
          SESSION: { from: secret:STRIPE_KEY }
        advanced_settings:
          network.ingress.proxy_body_size_mb: 250
    containers:
      api:
        registry: hub
        image_name: nginx
        tag: "1.27"
    databases:
      db: { type: POSTGRESQL, mode: CONTAINER, version: "16" }
    jobs:
      migrate:
        source: { image: { registry: hub, image_name: migrate, tag: v1 } }
        schedule: { on_start: { arguments: [up] } }
    workflows:
      triage:
        agent_prompt: Triage the incoming issue.
        governance: { host_allowlist: [api.github.com] }
        context_services: [web]
${extra}`;

async function newOrg(t: TestApp): Promise<SeededOrganization> {
  const org = await seedOrganization(t);
  await t.ctx.db.query(`insert into container_registries (organization_id, name, kind, url) values ($1, 'hub', 'DOCKER_HUB', 'https://docker.io')`, [org.id]);
  return org;
}

describe('berth.yaml: plan, apply, export', () => {
  let t: TestApp;
  let org: SeededOrganization;
  const apply = (o: SeededOrganization, body: Record<string, unknown>, dryRun = false) =>
    t.request('POST', `/organization/${o.id}/apply${dryRun ? '?dry_run=true' : ''}`, { token: o.token, body: { file: 'infra/berth.yaml', ...body } });
  before(async () => {
    t = await startTestApp();
    org = await newOrg(t);
  });
  after(async () => t.close());

  test('dry run answers the plan and writes nothing; apply creates every resource; a second apply changes nothing', async () => {
    const plan = await apply(org, { document: DOC(), secret_values: { STRIPE_KEY: 'sk_1' } }, true);
    assert.equal(plan.status, 200, plan.raw);
    assert.equal(plan.body.dry_run, true);
    assert.equal(plan.body.summary.update + plan.body.summary.unchanged + plan.body.summary.delete, 0);
    assert.ok(plan.body.changes.some((c: any) => c.kind === 'workflow' && c.action === 'create'));
    assert.equal((await t.ctx.db.query('select 1 from projects where organization_id = $1', [org.id])).length, 0, 'dry run wrote nothing');

    const first = await apply(org, { document: DOC(), secret_values: { STRIPE_KEY: 'sk_1' } });
    assert.equal(first.status, 200, first.raw);
    assert.ok(first.body.project.id);
    const services = await t.ctx.db.query<{ name: string; type: string }>('select name, type from services where project_id = $1 order by name', [first.body.project.id]);
    assert.deepEqual(services.map((s) => `${s.type}:${s.name}`), ['CONTAINER:api', 'DATABASE:db', 'JOB:migrate', 'AGENTIC_WORKFLOW:triage', 'APPLICATION:web']);
    const secretRaw = JSON.stringify(first.body);
    assert.ok(!secretRaw.includes('sk_1'), 'no secret value in the answer');

    const again = await apply(org, { document: DOC(), secret_values: { STRIPE_KEY: 'sk_1' } });
    assert.equal(again.status, 200, again.raw);
    assert.deepEqual(again.body.changes.filter((c: any) => c.action !== 'unchanged'), []);
    // without the value, an existing secret is kept, not changed
    const kept = await apply(org, { document: DOC() }, true);
    assert.equal(kept.status, 200, kept.raw);
    assert.equal(kept.body.summary.update + kept.body.summary.create, 0, kept.raw);
  });

  test('plan field by field; secrets only as changed true/false', async () => {
    const changed = DOC().replace('cpu: 500', 'cpu: 1000').replace('LOG_LEVEL: info', 'LOG_LEVEL: debug');
    const r = await apply(org, { document: changed, secret_values: { STRIPE_KEY: 'sk_2' } }, true);
    assert.equal(r.status, 200, r.raw);
    const web = r.body.changes.find((c: any) => c.path === 'environments.staging.applications.web');
    assert.equal(web.action, 'update');
    assert.deepEqual(web.changes, [{ field: 'cpu', from: 500, to: 1000 }]);
    const log = r.body.changes.find((c: any) => c.path === 'environments.staging.variables.LOG_LEVEL');
    assert.deepEqual(log.changes, [{ field: 'value', from: 'info', to: 'debug' }]);
    const secret = r.body.changes.find((c: any) => c.path === 'environments.staging.secrets.STRIPE_KEY');
    assert.deepEqual(secret, { ...secret, action: 'update', changes: [{ field: 'value', changed: true }] });
    assert.ok(!r.raw.includes('sk_2') && !r.raw.includes('sk_1'));
    const same = await apply(org, { document: DOC(), secret_values: { STRIPE_KEY: 'sk_1' } }, true);
    assert.deepEqual(same.body.changes.find((c: any) => c.path === 'environments.staging.secrets.STRIPE_KEY').changes, [{ field: 'value', changed: false }]);
    // the secret:STRIPE_KEY reference was resolved from the environment's secret
    const rows = await t.ctx.db.query<{ key: string; value_sealed: string }>(`select key, value_sealed from variables where key = 'SESSION'`);
    assert.equal(t.ctx.sealer.open(rows[0]!.value_sealed), 'sk_1');
  });

  test('export → apply into an empty organization → export gives the same text', async () => {
    const project = (await t.ctx.db.query<{ id: string }>(`select id from projects where organization_id = $1 and name = 'shop'`, [org.id]))[0]!.id;
    const env = (await t.ctx.db.query<{ id: string }>(`select id from environments where project_id = $1`, [project]))[0]!.id;
    const exported = await t.request('GET', `/environment/${env}/export`, { token: org.token });
    assert.equal(exported.status, 200, exported.raw);
    assert.match(String(exported.headers['content-type']), /application\/yaml/);
    assert.match(exported.raw, /STRIPE_KEY:\n\s+from: secret:STRIPE_KEY/);
    assert.ok(!exported.raw.includes('sk_1'));
    for (const kind of ['applications:', 'containers:', 'databases:', 'jobs:', 'workflows:']) assert.ok(exported.raw.includes(kind), kind);

    const empty = await newOrg(t);
    const applied = await apply(empty, { document: exported.raw, secret_values: { STRIPE_KEY: 'sk_1', SESSION: 'sk_1' } });
    assert.equal(applied.status, 200, applied.raw);
    const env2 = (await t.ctx.db.query<{ id: string }>(`select id from environments where project_id = $1`, [applied.body.project.id]))[0]!.id;
    const again = await t.request('GET', `/environment/${env2}/export`, { token: empty.token });
    if (process.env.MANIFESTS_SHOW) process.stdout.write(exported.raw);
    assert.equal(again.raw, exported.raw);
    const project2 = await t.request('GET', `/project/${applied.body.project.id}/export`, { token: empty.token });
    assert.equal(project2.raw, exported.raw, 'one environment: the project export is the same file');
  });

  test('a secret value in the file is refused; every problem of a bad file comes with its line and column', async () => {
    const bad = `version: 1
project:
  name: shop
  colour: blue
environments:
  staging:
    secrets:
      API_KEY: sk_live_123
    applications:
      web:
        cpu: 0
        git_repository: { url: https://x }
`;
    const r = await apply(org, { document: bad, file: 'deploy/berth.yaml' });
    const body = expectErrorBody(r, 400);
    assert.equal(body.code, 'validation_error');
    const errors = r.body.errors as Array<{ file: string; line: number; column: number; path: string; message: string }>;
    assert.deepEqual(errors.map((e) => [e.path, e.line, e.column]), [
      ['project.colour', 4, 3],
      ['environments.staging.secrets.API_KEY', 8, 16],
      ['environments.staging.applications.web.cpu', 11, 14],
    ]);
    assert.ok(errors.every((e) => e.file === 'deploy/berth.yaml'));
    assert.match(errors[1]!.message, /never written in the file/);
    assert.ok(!r.raw.includes('sk_live_123'));
    const syntax = await apply(org, { document: 'version: 1\nproject: [\n' });
    expectErrorBody(syntax, 400);
    assert.equal(syntax.body.errors[0].line, 3);
    const missing = await apply(org, { document: DOC().replace('shop\n', 'other-shop\n') });
    expectErrorBody(missing, 400);
    assert.match(missing.body.message, /env:STRIPE_KEY/);
    assert.equal(missing.body.errors[0].line, 11);
  });

  test('another file\'s resource is refused with its name; prune deletes only what this file owns', async () => {
    const other = await apply(org, { document: DOC(), file: 'other/berth.yaml' }, true);
    const body = expectErrorBody(other, 409);
    assert.match(body.message, /infra\/berth\.yaml/);
    const project = (await t.ctx.db.query<{ id: string }>(`select id from projects where organization_id = $1 and name = 'shop'`, [org.id]))[0]!.id;
    const env = (await t.ctx.db.query<{ id: string }>(`select id from environments where project_id = $1`, [project]))[0]!.id;
    // a service made by hand is not owned: prune leaves it
    const hand = await t.request('POST', `/environment/${env}/database`, { token: org.token, body: { name: 'cache', type: 'REDIS', mode: 'CONTAINER', version: '7' } });
    assert.equal(hand.status, 201, hand.raw);
    const withoutJob = DOC().replace(/    jobs:\n(.*\n){3}/, '');
    const plan = await apply(org, { document: withoutJob, prune: true }, true);
    assert.equal(plan.status, 200, plan.raw);
    assert.deepEqual(plan.body.changes.filter((c: any) => c.action === 'delete').map((c: any) => c.path), ['environments.staging.jobs.migrate']);
    const done = await apply(org, { document: withoutJob, prune: true });
    assert.equal(done.status, 200, done.raw);
    const names = (await t.ctx.db.query<{ name: string }>('select name from services where environment_id = $1 order by name', [env])).map((r) => r.name);
    assert.deepEqual(names, ['api', 'cache', 'db', 'triage', 'web']);
    // without prune, nothing is deleted
    await apply(org, { document: DOC() });
    const plan2 = await apply(org, { document: withoutJob }, true);
    assert.equal(plan2.body.summary.delete, 0);
  });

  test('a failure midway leaves nothing written; deploy queues only what changed', async () => {
    const fresh = await newOrg(t);
    const broken = DOC().replace('version: "16"', 'version: "3"'); // unsupported: the database service refuses it after the project, environment and web were made
    const r = await apply(fresh, { document: broken, secret_values: { STRIPE_KEY: 'x' } });
    expectErrorBody(r, 400);
    assert.match(r.body.message, /environments\.staging\.databases\.db/);
    assert.equal(r.body.errors[0].line, 29);
    assert.equal((await t.ctx.db.query('select 1 from projects where organization_id = $1', [fresh.id])).length, 0);
    assert.equal((await t.ctx.db.query('select 1 from manifest_resources where organization_id = $1', [fresh.id])).length, 0);

    const deployed = await apply(org, { document: DOC().replace('tag: "1.27"', 'tag: "1.28"'), deploy: true });
    assert.equal(deployed.status, 200, deployed.raw);
    assert.deepEqual(deployed.body.deployments.map((d: any) => d.name), ['api']);
  });

  test('a VIEWER may plan but not apply; the schema is served', async () => {
    const viewer = await org.tokenFor('VIEWER');
    const planned = await t.request('POST', `/organization/${org.id}/apply?dry_run=true`, { token: viewer, body: { document: DOC(), file: 'infra/berth.yaml' } });
    assert.equal(planned.status, 200, planned.raw);
    expectErrorBody(await t.request('POST', `/organization/${org.id}/apply`, { token: viewer, body: { document: DOC(), file: 'infra/berth.yaml' } }), 403);
    const schema = await t.request('GET', '/manifests/schema.json');
    assert.equal(schema.status, 200);
    assert.equal(JSON.parse(schema.raw).title, 'berth.yaml');
  });
});
