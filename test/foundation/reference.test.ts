// The API reference people use: /docs (Swagger UI from npm, same-origin only), the operational
// paths under /api/v1, a summary for every operation, the role table generated from the rules
// the services enforce (and checked against real requests), the event catalogue as an enum,
// and Location/Link headers on 201 and 202 answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ROLES, type Role } from '../../src/modules/access/roles.ts';
import { seedEnvironment, seedService } from '../support/factories.ts';
import { seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

describe('the API reference', () => {
  let t: TestApp;
  let org: SeededOrganization;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
  });
  after(() => t.close());

  test('/docs, /docs/ and /api/v1/docs serve Swagger UI from this origin only', async () => {
    for (const url of ['/docs', '/docs/', '/api/v1/docs']) {
      const r = await t.app.inject({ method: 'GET', url });
      assert.equal(r.statusCode, 200, url);
      assert.match(String(r.headers['content-type']), /text\/html/);
      assert.match(String(r.headers['content-security-policy']), /^default-src 'self';/);
      assert.doesNotMatch(r.body, /<script>|https?:\/\//, 'no inline script, no outside address');
      for (const src of r.body.matchAll(/(?:src|href)="([^"]+)"/g)) {
        const asset = await t.app.inject({ method: 'GET', url: src[1]! });
        assert.equal(asset.statusCode, 200, src[1]);
        assert.ok(asset.rawPayload.length > 0);
      }
    }
    const bundle = await t.app.inject({ method: 'GET', url: '/docs/swagger-ui-bundle.js' });
    assert.match(String(bundle.headers['content-type']), /javascript/);
    assert.ok(bundle.body.includes('SwaggerUIBundle'));
  });

  test('the operational paths answer under /api/v1 too', async () => {
    for (const path of ['/healthz', '/readyz', '/openapi.json', '/metrics']) {
      const r = await t.app.inject({ method: 'GET', url: `/api/v1${path}`, remoteAddress: '127.0.0.1' });
      assert.equal(r.statusCode, 200, path);
    }
  });

  test('every operation has an operationId and a summary; webhook events are the catalogue as an enum', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    const missing: string[] = [];
    for (const [path, ops] of Object.entries<Record<string, { operationId?: string; summary?: string }>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) if (!op.operationId || !op.summary) missing.push(`${method} ${path}`);
    }
    assert.deepEqual(missing, []);
    assert.equal(doc.paths['/organization/{organizationId}/project'].get.summary, 'List project');
    const schema = JSON.stringify(doc.paths['/organization/{organizationId}/webhook'].post.requestBody.content['application/json'].schema);
    const resolved = schema.includes('$ref') ? JSON.stringify(doc.components.schemas) : schema;
    assert.match(resolved, /"enum":\["DEPLOYMENT_STARTED","DEPLOYMENT_SUCCEEDED","DEPLOYMENT_FAILED","DEPLOYMENT_CANCELLED","WORKFLOW_RUN_STARTED"/);
  });

  test('the role table in the reference is what the services enforce', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    const rows = [...String(doc.info.description).matchAll(/^\| \*\*(\w+)\*\*: [^|]+\| (.+) \|$/gm)];
    assert.deepEqual(rows.map((r) => r[1]), ['read', 'write', 'manage', 'own']);
    const table = Object.fromEntries(rows.map((r) => [r[1], Object.fromEntries(r[2]!.split(' | ').map((cell, i) => [ROLES[i], cell === '✓']))])) as Record<string, Record<Role, boolean>>;

    const env = await seedEnvironment(t, org);
    const allowed = async (role: Role, action: string): Promise<boolean> => {
      const token = await org.tokenFor(role);
      const other = await seedOrganization(t);
      const req = {
        read: () => t.request('GET', `/environment/${env.id}`, { token }),
        write: () => t.request('POST', `/environment/${env.id}/database`, { token, body: { name: `db-${role.toLowerCase()}`, type: 'REDIS', version: '7', mode: 'CONTAINER' } }),
        manage: () => t.request('POST', `/organization/${org.id}/project`, { token, body: { name: `p-${role.toLowerCase()}` } }),
        // own: transferring to a member that does not exist is a 400 once allowed, a 403 before
        own: () => t.request('POST', `/organization/${org.id}/transferOwnership`, { token, body: { user_id: other.id } }),
      }[action]!;
      const r = await req();
      assert.notEqual(r.status, 401);
      return r.status !== 403;
    };
    for (const action of Object.keys(table)) {
      for (const role of ROLES) assert.equal(await allowed(role, action), table[action]![role], `${role} ${action}`);
    }
  });

  test('201 answers carry Location; deployments carry Location and Link to status and logs', async () => {
    const p = await t.request('POST', `/organization/${org.id}/project`, { token: org.token, body: { name: 'located' } });
    assert.equal(p.headers.location, `/project/${p.body.id}`);
    assert.equal((await t.request('GET', String(p.headers.location), { token: org.token })).body.id, p.body.id);
    const v1 = await t.request('POST', `/api/v1/organization/${org.id}/project`, { token: org.token, body: { name: 'located-v1' } });
    assert.equal(v1.headers.location, `/api/v1/project/${v1.body.id}`);
    const env = await seedEnvironment(t, org);
    const variable = await t.request('POST', `/environment/${env.id}/environmentVariable`, { token: org.token, body: { key: 'A', value: '1' } });
    assert.equal(variable.headers.location, `/environment/${env.id}/environmentVariable/${variable.body.id}`);
    const appId = await seedService(t, env, 'APPLICATION');
    const alias = await t.request('POST', `/environment/${env.id}/environmentVariable/${variable.body.id}/alias`, { token: org.token, body: { key: 'B' } });
    assert.equal(alias.headers.location, `/environment/${env.id}/environmentVariable/${alias.body.id}`);
    const d = await t.request('POST', `/application/${appId}/deploy`, { token: org.token });
    assert.equal(d.status, 202);
    assert.equal(d.headers.location, `/deployment/${d.body.id}`);
    assert.equal(d.headers.link, `</deployment/${d.body.id}>; rel="status", </deployment/${d.body.id}/log>; rel="logs"`);
    const e = await t.request('POST', `/environment/${env.id}/stop`, { token: org.token });
    assert.equal(e.headers.location, `/environment/${env.id}/status`);
    assert.match(String(e.headers.link), /rel="history"/);
  });
});
