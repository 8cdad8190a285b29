// Conventions every operation follows: the error body on every failure kind, pagination,
// rate limiting, Idempotency-Key, the /api/v1 alias, the OpenAPI document, health probes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { startTestOidc, type TestOidc } from '../support/oidc.ts';

describe('conventions', () => {
  let t: TestApp;
  let org: SeededOrganization;
  before(async () => {
    t = await startTestApp({ config: { bodyLimitBytes: 4096 } });
    org = await seedOrganization(t);
  });
  after(() => t.close());

  test('malformed JSON is 400 with the error body', async () => {
    const r = await t.app.inject({ method: 'POST', url: `/organization/${org.id}/apiToken`, headers: { authorization: `Token ${org.token}`, 'content-type': 'application/json' }, payload: '{"name": ' });
    const body = JSON.parse(r.body);
    assert.equal(r.statusCode, 400);
    assert.equal(body.status, 400);
    assert.equal(body.error, 'Bad Request');
    assert.equal(body.message, 'The request body is not valid JSON');
  });

  test('a NUL character in a string is 400, not a database error', async () => {
    const r = await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: { name: 'nul\u0000name', role: 'VIEWER' } });
    assert.equal(expectErrorBody(r, 400).message, 'Strings must not contain NUL characters');
  });

  test('an oversized body is 413 with the error body', async () => {
    const r = await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: { name: 'x'.repeat(10_000), role: 'VIEWER' } });
    expectErrorBody(r, 413);
  });

  test('an unsupported content type is 415 with the error body', async () => {
    const r = await t.app.inject({ method: 'POST', url: `/organization/${org.id}/apiToken`, headers: { authorization: `Token ${org.token}`, 'content-type': 'text/plain' }, payload: 'hi' });
    assert.equal(r.statusCode, 415);
    assert.equal(JSON.parse(r.body).status, 415);
  });

  test('an unknown route is 404 and a wrong method 405, both with the error body', async () => {
    expectErrorBody(await t.request('GET', '/nothing/here', { token: org.token }), 404);
    const r = await t.request('PATCH', `/organization/${org.id}`, { token: org.token, body: {} });
    expectErrorBody(r, 405);
    assert.match(String(r.headers.allow), /GET/);
  });

  test('a wrong JSON type is 400, not coerced, and the message names the field', async () => {
    const r = await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: { name: 123, role: 'VIEWER' } });
    assert.equal(expectErrorBody(r, 400).message, 'name must be string; got 123');
  });

  test('read-only members on input are ignored', async () => {
    const r = await t.request('POST', `/organization/${org.id}/apiToken`, {
      token: org.token, body: { name: 'ro', role: 'VIEWER', id: '11111111-1111-4111-8111-111111111111', created_at: '2000-01-01T00:00:00Z' },
    });
    assert.equal(r.status, 201);
    assert.notEqual(r.body.id, '11111111-1111-4111-8111-111111111111');
    assert.notEqual(r.body.created_at, '2000-01-01T00:00:00.000Z');
  });

  test('pagination: pages, totals, beyond the end, and invalid values', async () => {
    const p = await seedOrganization(t);
    for (let i = 0; i < 4; i++) await t.ctx.services.tokens.issue(t.ctx.db, p.id, `page-${i}`, 'VIEWER');
    const all = await t.request('GET', `/organization/${p.id}/apiToken`, { token: p.token });
    assert.equal(all.body.results.length, 5, 'without parameters a configuration list returns every item');
    assert.deepEqual(all.body.pagination, { page: 1, page_size: 5, total_count: 5, total_pages: 1 });
    const second = await t.request('GET', `/organization/${p.id}/apiToken?page=2&page_size=2`, { token: p.token });
    assert.equal(second.body.results.length, 2);
    assert.deepEqual(second.body.pagination, { page: 2, page_size: 2, total_count: 5, total_pages: 3 });
    const last = await t.request('GET', `/organization/${p.id}/apiToken?page=3&page_size=2`, { token: p.token });
    assert.equal(last.body.results.length, 1);
    const beyond = await t.request('GET', `/organization/${p.id}/apiToken?page=9&page_size=2`, { token: p.token });
    assert.deepEqual(beyond.body.results, []);
    assert.equal(beyond.body.pagination.total_count, 5);
    const names = [...second.body.results, ...last.body.results].map((x: { name: string }) => x.name);
    assert.equal(new Set(names).size, 3, 'pages do not overlap');
    for (const q of ['page=0', 'page=-1', 'page_size=0', 'page_size=101', 'page=abc', 'page_size=2.5']) {
      expectErrorBody(await t.request('GET', `/organization/${p.id}/apiToken?${q}`, { token: p.token }), 400);
    }
    const onlySize = await t.request('GET', `/organization/${p.id}/apiToken?page_size=100`, { token: p.token });
    assert.deepEqual(onlySize.body.pagination, { page: 1, page_size: 100, total_count: 5, total_pages: 1 });
  });

  test('every route also answers under /api/v1', async () => {
    const a = await t.request('GET', `/organization/${org.id}`, { token: org.token });
    const b = await t.request('GET', `/api/v1/organization/${org.id}`, { token: org.token });
    assert.equal(b.status, 200);
    assert.deepEqual(b.body, a.body);
    expectErrorBody(await t.request('GET', `/api/v1/organization/${org.id}`), 401);
  });

  test('Idempotency-Key replays the stored reply without doing the work twice; another body is 409', async () => {
    const headers = { 'idempotency-key': 'create-token-1' };
    const body = { name: 'idem', role: 'VIEWER' };
    const first = await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body, headers });
    assert.equal(first.status, 201);
    const again = await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body, headers });
    assert.equal(again.status, 201);
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    const rows = await t.ctx.db.query('select id from api_tokens where organization_id = $1 and name = $2', [org.id, 'idem']);
    assert.equal(rows.length, 1, 'the work was done once');
    const other = await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: { name: 'idem2', role: 'VIEWER' }, headers });
    assert.equal(expectErrorBody(other, 409).code, 'idempotency_key_reused');
    // the same key from another caller is a different key
    const viewerOrg = await seedOrganization(t);
    const elsewhere = await t.request('POST', `/organization/${viewerOrg.id}/apiToken`, { token: viewerOrg.token, body, headers });
    assert.equal(elsewhere.status, 201);
    assert.notEqual(elsewhere.body.id, first.body.id);
  });

  test('an expired idempotency record is removed by maintenance and the key is usable again', async () => {
    const { runMaintenance } = await import('../../src/workers/maintenance.ts');
    const headers = { 'idempotency-key': 'old-key' };
    const first = await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: { name: 'old-1', role: 'VIEWER' }, headers });
    await t.ctx.db.query(`update idempotency_keys set created_at = now() - interval '25 hours' where key = 'old-key'`);
    const result = await runMaintenance(t.ctx);
    assert.ok(result.idempotencyKeys >= 1);
    const second = await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: { name: 'old-2', role: 'VIEWER' }, headers });
    assert.equal(second.status, 201);
    assert.notEqual(second.body.id, first.body.id);
  });

  test('health probes need no authentication', async () => {
    assert.deepEqual((await t.request('GET', '/healthz')).body, { status: 'ok' });
    const ready = await t.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ready');
    assert.equal(ready.headers['x-ratelimit-limit'], undefined);
  });

  test('the OpenAPI document declares both schemes and every route with its error responses', async () => {
    const r = await t.request('GET', '/openapi.json');
    assert.equal(r.status, 200);
    const doc = r.body;
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['ApiKeyAuth', 'bearerAuth']);
    const op = doc.paths['/organization/{organizationId}/apiToken'].post;
    assert.ok(op.requestBody);
    for (const s of ['201', '400', '401', '403', '404', '429', '500']) assert.ok(op.responses[s], `response ${s}`);
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/api/v1')));
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(refs.length > 0, 'repeated schemas are shared');
    for (const name of new Set(refs)) assert.ok(doc.components.schemas[name], `component ${name} exists`);
    const docs = await t.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(docs.statusCode, 200);
    assert.match(docs.headers['content-type'] as string, /text\/html/);
  });

  test('request ids are returned and echoed in error bodies', async () => {
    const r = await t.request('GET', '/organization', { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(r.headers['x-request-id'], 'trace-123');
    assert.equal(r.body.request_id, 'trace-123');
  });
});

describe('rate limit', () => {
  let t: TestApp;
  let oidc: TestOidc;
  before(async () => {
    oidc = await startTestOidc();
    t = await startTestApp({ config: { rateLimitPerHour: 5, oidcIssuer: oidc.issuer, oidcAudience: oidc.audience, oidcJwksUrl: oidc.jwksUrl } });
  });
  after(async () => {
    await t.close();
    await oidc.close();
  });

  test('headers on every authenticated response, then 429 with Retry-After; budgets are per token', async () => {
    const org = await seedOrganization(t);
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.request('GET', `/organization/${org.id}`, { token: org.token });
      assert.equal(r.status, 200);
      assert.equal(r.headers['x-ratelimit-limit'], '5');
      seen.push(Number(r.headers['x-ratelimit-remaining']));
      const reset = Number(r.headers['x-ratelimit-reset']);
      assert.ok(reset > Date.now() / 1000 && reset <= Date.now() / 1000 + 3600, 'reset is a Unix time within the hour');
    }
    assert.deepEqual(seen, [4, 3, 2, 1, 0]);
    const limited = await t.request('GET', `/organization/${org.id}`, { token: org.token });
    const body = expectErrorBody(limited, 429);
    assert.equal(body.error, 'Too Many Requests');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal(limited.headers['x-ratelimit-remaining'], '0');
    const other = await t.request('GET', `/organization/${org.id}`, { token: await org.tokenFor('VIEWER') });
    assert.equal(other.status, 200, 'another token has its own budget');
  });

  test('a user is limited per user across their JWTs', async () => {
    for (let i = 0; i < 5; i++) {
      const jwt = await oidc.sign({ sub: 'limited-user' }, { expiresIn: 600 + i });
      assert.equal((await t.request('GET', '/organization', { bearer: jwt })).status, 200);
    }
    const jwt = await oidc.sign({ sub: 'limited-user' }, { expiresIn: 900 });
    expectErrorBody(await t.request('GET', '/organization', { bearer: jwt }), 429);
  });
});
