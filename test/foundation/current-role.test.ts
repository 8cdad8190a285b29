// GET /organization/{id}/currentRole (decision 0605): an API token of each role and a signed-in
// user learn their own role and what it allows, with the member row's role, role_name and
// role_id; another organization's token and a non-member are refused (403), an unknown
// organization is 404, and a role change shows at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { startTestOidc, type TestOidc } from '../support/oidc.ts';

const ALLOWED = {
  OWNER: { read: true, write: true, manage: true, own: true },
  ADMIN: { read: true, write: true, manage: true, own: false },
  DEVOPS: { read: true, write: true, manage: false, own: false },
  VIEWER: { read: true, write: false, manage: false, own: false },
} as const;

describe('the caller\'s own role', () => {
  let t: TestApp;
  let oidc: TestOidc;
  let org: SeededOrganization;
  let roleIds: Map<string, string>;
  before(async () => {
    oidc = await startTestOidc();
    t = await startTestApp({ config: { oidcIssuer: oidc.issuer, oidcAudience: oidc.audience, oidcJwksUrl: oidc.jwksUrl } });
    org = await seedOrganization(t);
    const available = await t.request('GET', `/organization/${org.id}/availableRole`, { token: org.token });
    roleIds = new Map(available.body.results.map((r: { id: string; name: string }) => [r.name, r.id]));
  });
  after(async () => {
    await t.close();
    await oidc.close();
  });

  test('an API token of each role reads its role, its name and what the role allows', async () => {
    for (const role of ['OWNER', 'ADMIN', 'DEVOPS', 'VIEWER'] as const) {
      const made = await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: { name: `who-${role.toLowerCase()}`, role } });
      assert.equal(made.status, 201, made.raw);
      const r = await t.request('GET', `/organization/${org.id}/currentRole`, { token: made.body.token });
      assert.equal(r.status, 200, r.raw);
      assert.deepEqual(r.body, {
        organization_id: org.id, role, role_name: made.body.role_name, role_id: made.body.role_id,
        principal: { kind: 'TOKEN', id: made.body.id, name: `who-${role.toLowerCase()}` },
        permissions: ALLOWED[role],
      });
      assert.equal(roleIds.get(r.body.role_name), r.body.role_id, 'the id /availableRole gives that role');
    }
    // also under /api/v1, like every path
    const v1 = await t.request('GET', `/api/v1/organization/${org.id}/currentRole`, { token: await org.tokenFor('DEVOPS') });
    assert.equal(v1.body.role, 'DEVOPS');
  });

  test('another organization\'s token is refused (403), an unknown organization is 404, no credential 401', async () => {
    const other = await seedOrganization(t);
    const refused = expectErrorBody(await t.request('GET', `/organization/${org.id}/currentRole`, { token: other.token }), 403);
    assert.equal(refused.message, 'You are not a member of this organization');
    expectErrorBody(await t.request('GET', '/organization/00000000-0000-4000-8000-000000000000/currentRole', { token: org.token }), 404);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/currentRole`), 401);
    expectErrorBody(await t.request('GET', '/organization/not-a-uuid/currentRole', { token: org.token }), 400);
  });

  test('a signed-in user reads the role of their membership, the same as their member row; a change shows at once', async () => {
    const owner = await oidc.sign({ sub: 'role-olga', email: 'olga@example.com', name: 'Olga' });
    const dev = await oidc.sign({ sub: 'role-dan', email: 'dan@example.com', email_verified: true });
    const stranger = await oidc.sign({ sub: 'role-sam', email: 'sam@example.com', name: 'Sam' });
    const orgId = (await t.request('POST', '/organization', { bearer: owner, body: { name: `Role Co ${Date.now()}` } })).body.id;
    const mine = await t.request('GET', `/organization/${orgId}/currentRole`, { bearer: owner });
    assert.equal(mine.status, 200, mine.raw);
    assert.equal(mine.body.role, 'OWNER');
    assert.deepEqual(mine.body.permissions, ALLOWED.OWNER);
    assert.equal(mine.body.principal.kind, 'USER');
    assert.equal(mine.body.principal.name, 'Olga');

    const invite = await t.request('POST', `/organization/${orgId}/inviteMember`, { bearer: owner, body: { email: 'dan@example.com', role: 'DEVOPS' } });
    expectErrorBody(await t.request('GET', `/organization/${orgId}/currentRole`, { bearer: dev }), 403);
    assert.equal((await t.request('POST', `/organization/${orgId}/inviteMember/${invite.body.id}`, { bearer: dev })).status, 201);
    const devRole = await t.request('GET', `/organization/${orgId}/currentRole`, { bearer: dev });
    assert.equal(devRole.body.role, 'DEVOPS');
    assert.deepEqual(devRole.body.permissions, ALLOWED.DEVOPS);
    assert.equal(devRole.body.principal.name, 'dan@example.com', 'no name claim: the email');
    const row = (await t.request('GET', `/organization/${orgId}/member`, { bearer: dev })).body.results
      .find((m: { id: string }) => m.id === devRole.body.principal.id);
    assert.deepEqual([row.role, row.role_name, row.role_id], [devRole.body.role, devRole.body.role_name, devRole.body.role_id]);

    assert.equal((await t.request('PUT', `/organization/${orgId}/member`, { bearer: owner, body: { user_id: row.id, role: 'VIEWER' } })).status, 200);
    const demoted = await t.request('GET', `/organization/${orgId}/currentRole`, { bearer: dev });
    assert.equal(demoted.body.role, 'VIEWER');
    assert.deepEqual(demoted.body.permissions, ALLOWED.VIEWER);
    expectErrorBody(await t.request('GET', `/organization/${orgId}/currentRole`, { bearer: stranger }), 403);
  });
});
