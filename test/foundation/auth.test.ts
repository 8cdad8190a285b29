// Authentication: every 401 case against a real JWKS on loopback, the user recorded on first
// sight, key rotation, API tokens revoked at once, both schemes on the same operation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { expectErrorBody, seedOrganization, startTestApp, type TestApp } from '../support/harness.ts';
import { startTestOidc, type TestOidc } from '../support/oidc.ts';
import { createIdentityService } from '../../src/modules/identity/identity.service.ts';

describe('authentication', () => {
  let t: TestApp;
  let oidc: TestOidc;
  before(async () => {
    oidc = await startTestOidc();
    t = await startTestApp({ config: { oidcIssuer: oidc.issuer, oidcAudience: oidc.audience, oidcJwksUrl: oidc.jwksUrl } });
  });
  after(async () => {
    await t.close();
    await oidc.close();
  });

  test('a missing Authorization header is 401 with the error body', async () => {
    const r = await t.request('GET', '/organization');
    const body = expectErrorBody(r, 401);
    assert.equal(body.error, 'Unauthorized');
  });

  for (const [label, header] of [
    ['a malformed header', 'Token'],
    ['an unknown scheme', 'Basic dXNlcjpwYXNz'],
    ['an unknown API token', 'Token berth_doesnotexist000000000000000000000000000'],
    ['a Bearer token that is not a JWT', 'Bearer not.a.jwt'],
  ] as const) {
    test(`${label} is 401`, async () => {
      expectErrorBody(await t.request('GET', '/organization', { headers: { authorization: header } }), 401);
    });
  }

  test('a valid JWT is accepted and its user recorded on first sight', async () => {
    const jwt = await oidc.sign({ sub: 'auth-user-1', email: 'one@example.com', name: 'User One' });
    const r = await t.request('GET', '/organization', { bearer: jwt });
    assert.equal(r.status, 200);
    const rows = await t.ctx.db.query<{ email: string; name: string }>('select email, name from users where sub = $1', ['auth-user-1']);
    assert.deepEqual(rows, [{ email: 'one@example.com', name: 'User One' }]);
  });

  test('an expired JWT is 401', async () => {
    const jwt = await oidc.sign({ sub: 'auth-user-2' }, { expiresIn: -60 });
    expectErrorBody(await t.request('GET', '/organization', { bearer: jwt }), 401);
  });

  test('a JWT for another audience is 401', async () => {
    const jwt = await oidc.sign({ sub: 'auth-user-3' }, { audience: 'someone-else' });
    expectErrorBody(await t.request('GET', '/organization', { bearer: jwt }), 401);
  });

  test('a JWT from another issuer is 401', async () => {
    const jwt = await oidc.sign({ sub: 'auth-user-4' }, { issuer: 'https://evil.example.com' });
    expectErrorBody(await t.request('GET', '/organization', { bearer: jwt }), 401);
  });

  test('a JWT not yet valid is 401', async () => {
    const jwt = await oidc.sign({ sub: 'auth-user-5' }, { notYetValid: true });
    expectErrorBody(await t.request('GET', '/organization', { bearer: jwt }), 401);
  });

  test('a JWT signed by a key the JWKS does not hold is 401; after rotation new keys are fetched', async () => {
    const before = await oidc.sign({ sub: 'auth-rotate' });
    assert.equal((await t.request('GET', '/organization', { bearer: before })).status, 200);
    await oidc.rotate();
    await new Promise((r) => setTimeout(r, 1100)); // the JWKS is refetched at most once a second
    const fresh = await oidc.sign({ sub: 'auth-rotate-2' });
    assert.equal((await t.request('GET', '/organization', { bearer: fresh })).status, 200, 'a token signed with the new key verifies');
    const stale = await oidc.sign({ sub: 'auth-rotate-3' }, { useOldKey: true });
    expectErrorBody(await t.request('GET', '/organization', { bearer: stale }), 401);
  });

  test('a revoked API token is refused at once', async () => {
    const org = await seedOrganization(t);
    const created = await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: { name: 'short-lived', role: 'VIEWER' } });
    assert.equal(created.status, 201);
    const secret = created.body.token as string;
    assert.equal((await t.request('GET', `/organization/${org.id}`, { token: secret })).status, 200);
    const del = await t.request('DELETE', `/organization/${org.id}/apiToken/${created.body.id}`, { token: org.token });
    assert.equal(del.status, 204);
    expectErrorBody(await t.request('GET', `/organization/${org.id}`, { token: secret }), 401);
  });

  test('a revoked API token is refused at once on the keep-alive connection that used it', async () => {
    const org = await seedOrganization(t);
    const created = await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: { name: 'kept-alive', role: 'VIEWER' } });
    const secret = created.body.token as string;
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const connections = new Set<unknown>();
    t.app.server.on('connection', (socket: unknown) => connections.add(socket));
    const get = () => new Promise<number>((resolve, reject) => {
      http.get(`${address}/organization/${org.id}`, { agent, headers: { authorization: `Token ${secret}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      }).on('error', reject);
    });
    try {
      assert.deepEqual([await get(), await get(), await get()], [200, 200, 200]);
      const del = await t.request('DELETE', `/organization/${org.id}/apiToken/${created.body.id}`, { token: org.token });
      assert.equal(del.status, 204);
      assert.equal(await get(), 401);
      assert.equal(connections.size, 1, 'every request on one connection');
    } finally {
      agent.destroy();
    }
  });

  test('a connection forgets its token once the token cache is emptied for its bound (a later revocation cannot reach it there)', async () => {
    const org = await seedOrganization(t);
    const identity = createIdentityService(t.ctx.db, t.config, t.ctx.services.tokens, t.ctx.services.runCredentials, { cacheLimit: 2 });
    const issued = await Promise.all(['a', 'b', 'c'].map((n) => t.ctx.services.tokens.issue(t.ctx.db, org.id, `bounded-${n}`, 'VIEWER')));
    const [a, b, c] = issued.map((i) => `Token ${i.token}`) as [string, string, string];
    const connection = {};
    await identity.authenticate(a);
    assert.equal(identity.cached(a, connection)?.kind, 'token', 'known, and remembered by the connection');
    await identity.authenticate(b);
    await identity.authenticate(c); // the cache is full: emptied before c goes in
    await t.ctx.db.query('delete from api_tokens where id = $1', [issued[0]!.id]);
    identity.evictToken(issued[0]!.id); // a is no longer in the cache: nothing to expire
    assert.equal(identity.cached(a, connection), undefined);
    await assert.rejects(identity.authenticate(a), (err: { status?: number }) => err.status === 401);
  });

  test('API tokens are stored hashed, never in clear', async () => {
    const org = await seedOrganization(t);
    const rows = await t.ctx.db.query<{ token_hash: string }>('select token_hash from api_tokens where organization_id = $1', [org.id]);
    assert.ok(rows.length > 0);
    for (const r of rows) {
      assert.match(r.token_hash, /^[0-9a-f]{64}$/);
      assert.notEqual(r.token_hash, org.token);
    }
    assert.match(org.token, /^berth_[A-Za-z0-9_-]{43}$/, 'prefix + 32 random bytes');
  });

  test('Bearer tokens are refused when OIDC is not configured', async () => {
    const plain = await startTestApp();
    try {
      const jwt = await oidc.sign({ sub: 'auth-no-oidc' });
      expectErrorBody(await plain.request('GET', '/organization', { bearer: jwt }), 401);
    } finally {
      await plain.close();
    }
  });
});

describe('OIDC discovery', () => {
  test('without OIDC_JWKS_URL the JWKS is discovered from the issuer', async () => {
    const oidc = await startTestOidc('disc-aud');
    const t = await startTestApp({ config: { oidcIssuer: oidc.issuer, oidcAudience: 'disc-aud', oidcJwksUrl: undefined } });
    try {
      const jwt = await oidc.sign({ sub: 'disc-user', email: 'disc@example.com' });
      assert.equal((await t.request('GET', '/organization', { bearer: jwt })).status, 200);
    } finally {
      await t.close();
      await oidc.close();
    }
  });
});
