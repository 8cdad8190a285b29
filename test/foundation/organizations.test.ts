// Organizations, members, invitations and tokens: who may do what, the invitation flow with two
// real users, the token secret shown once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type TestApp } from '../support/harness.ts';
import { startTestOidc, type TestOidc } from '../support/oidc.ts';
import { hierarchyExamples as ex } from '../../src/http/examples/hierarchy.ts';

describe('organizations', () => {
  let t: TestApp;
  let oidc: TestOidc;
  let alice: string;
  let bob: string;
  before(async () => {
    oidc = await startTestOidc();
    t = await startTestApp({ config: { oidcIssuer: oidc.issuer, oidcAudience: oidc.audience, oidcJwksUrl: oidc.jwksUrl } });
    alice = await oidc.sign({ sub: 'org-alice', email: 'alice@example.com', name: 'Alice' });
    bob = await oidc.sign({ sub: 'org-bob', email: 'Bob@Example.com', name: 'Bob' });
  });
  after(async () => {
    await t.close();
    await oidc.close();
  });

  test('a user creates an organization, becomes its OWNER and sees only their own', async () => {
    const r = await t.request('POST', '/organization', { bearer: alice, body: { name: 'Alice Corp', description: 'hers', id: 'ignored' } });
    assert.equal(r.status, 201);
    assert.equal(r.body.name, 'Alice Corp');
    assert.equal(r.body.plan, 'FREE');
    assert.match(r.body.id, /^[0-9a-f-]{36}$/);
    const me = await t.ctx.db.query<{ id: string }>('select id from users where sub = $1', ['org-alice']);
    assert.equal(r.body.owner, me[0]!.id);
    const mine = await t.request('GET', '/organization', { bearer: alice });
    assert.deepEqual(mine.body.results.map((o: { name: string }) => o.name), ['Alice Corp']);
    const bobs = await t.request('GET', '/organization', { bearer: bob });
    assert.deepEqual(bobs.body.results, []);
    const members = await t.request('GET', `/organization/${r.body.id}/member`, { bearer: alice });
    assert.equal(members.body.results[0].role, 'OWNER');
  });

  test('the reference\'s example creates an organization with every member it sends', async () => {
    const r = await t.request('POST', '/organization', { bearer: alice, body: ex.createOrganization });
    assert.equal(r.status, 201, r.raw);
    for (const k of Object.keys(ex.createOrganization) as (keyof typeof ex.createOrganization)[]) assert.deepEqual(r.body[k], ex.createOrganization[k], k);
    const edited = await t.request('PUT', `/organization/${r.body.id}`, { bearer: alice, body: ex.editOrganization });
    assert.equal(edited.status, 200, edited.raw);
    for (const k of Object.keys(ex.editOrganization) as (keyof typeof ex.editOrganization)[]) assert.deepEqual(edited.body[k], ex.editOrganization[k], k);
    assert.deepEqual(edited.body.admin_emails, ex.createOrganization.admin_emails, 'omitted members keep their value');
  });

  test('organization names are unique case-insensitively (409)', async () => {
    assert.equal((await t.request('POST', '/organization', { bearer: alice, body: { name: 'Unique Org' } })).status, 201);
    const clash = await t.request('POST', '/organization', { bearer: bob, body: { name: 'UNIQUE org' } });
    assert.equal(expectErrorBody(clash, 409).message, 'Organization name is already taken');
  });

  test('validation: missing name, wrong type, unknown plan are 400 naming the field', async () => {
    assert.match(expectErrorBody(await t.request('POST', '/organization', { bearer: alice, body: {} }), 400).message, /name is required/);
    assert.match(expectErrorBody(await t.request('POST', '/organization', { bearer: alice, body: { name: 42 } }), 400).message, /^name /);
    assert.match(expectErrorBody(await t.request('POST', '/organization', { bearer: alice, body: { name: 'x', plan: 'GOLD' } }), 400).message, /plan/);
  });

  test('an API token cannot create organizations (403)', async () => {
    const org = await seedOrganization(t);
    expectErrorBody(await t.request('POST', '/organization', { token: org.token, body: { name: 'by-token' } }), 403);
  });

  test('a non-member gets 403, an unknown organization 404', async () => {
    const org = await seedOrganization(t);
    expectErrorBody(await t.request('GET', `/organization/${org.id}`, { bearer: bob }), 403);
    const other = await seedOrganization(t);
    expectErrorBody(await t.request('GET', `/organization/${org.id}`, { token: other.token }), 403);
    expectErrorBody(await t.request('GET', '/organization/00000000-0000-4000-8000-000000000000', { token: org.token }), 404);
    expectErrorBody(await t.request('GET', '/organization/not-a-uuid', { token: org.token }), 400);
  });

  test('edit keeps omitted members; VIEWER and DEVOPS may not edit; only the OWNER deletes', async () => {
    const org = await seedOrganization(t);
    const edited = await t.request('PUT', `/organization/${org.id}`, { token: org.token, body: { name: org.name, description: 'described', website_url: 'https://x.test' } });
    assert.equal(edited.status, 200);
    const again = await t.request('PUT', `/organization/${org.id}`, { token: org.token, body: { name: org.name + '-renamed' } });
    assert.equal(again.body.description, 'described');
    assert.equal(again.body.website_url, 'https://x.test');
    expectErrorBody(await t.request('PUT', `/organization/${org.id}`, { token: await org.tokenFor('VIEWER'), body: { name: 'nope' } }), 403);
    expectErrorBody(await t.request('PUT', `/organization/${org.id}`, { token: await org.tokenFor('DEVOPS'), body: { name: 'nope' } }), 403);
    expectErrorBody(await t.request('DELETE', `/organization/${org.id}`, { token: await org.tokenFor('ADMIN') }), 403);
    assert.equal((await t.request('DELETE', `/organization/${org.id}`, { token: org.token })).status, 204);
    expectErrorBody(await t.request('GET', `/organization/${org.id}`, { token: org.token }), 401);
  });

  test('invitation flow: invite, the invited user reads and accepts, becomes a member with that role', async () => {
    const created = await t.request('POST', '/organization', { bearer: alice, body: { name: 'Invite Co' } });
    const orgId = created.body.id;
    const invite = await t.request('POST', `/organization/${orgId}/inviteMember`, { bearer: alice, body: { email: 'bob@example.com', role: 'DEVOPS' } });
    assert.equal(invite.status, 201);
    assert.equal(invite.body.invitation_status, 'PENDING');
    assert.equal(invite.body.role, 'DEVOPS');
    assert.equal(invite.body.organization_name, 'Invite Co');
    assert.equal(invite.body.inviter, 'Alice');
    assert.ok(invite.body.invitation_link.startsWith('http://berth.test/organization/'));
    expectErrorBody(await t.request('POST', `/organization/${orgId}/inviteMember`, { bearer: alice, body: { email: 'BOB@example.com', role: 'VIEWER' } }), 409);
    const listed = await t.request('GET', `/organization/${orgId}/inviteMember`, { bearer: alice });
    assert.equal(listed.body.results.length, 1);
    // bob is not a member yet: he can read his own invitation but nothing else of the organization
    expectErrorBody(await t.request('GET', `/organization/${orgId}`, { bearer: bob }), 403);
    assert.equal((await t.request('GET', `/organization/${orgId}/inviteMember/${invite.body.id}`, { bearer: bob })).status, 200);
    const carol = await oidc.sign({ sub: 'org-carol', email: 'carol@example.com' });
    expectErrorBody(await t.request('POST', `/organization/${orgId}/inviteMember/${invite.body.id}`, { bearer: carol }), 403);
    const accepted = await t.request('POST', `/organization/${orgId}/inviteMember/${invite.body.id}`, { bearer: bob });
    assert.equal(accepted.status, 201);
    assert.equal(accepted.body.invitation_status, 'ACCEPTED');
    expectErrorBody(await t.request('POST', `/organization/${orgId}/inviteMember/${invite.body.id}`, { bearer: bob }), 409);
    const members = await t.request('GET', `/organization/${orgId}/member`, { bearer: bob });
    assert.deepEqual(members.body.results.map((m: { role: string }) => m.role).sort(), ['DEVOPS', 'OWNER']);
    assert.equal((await t.request('GET', `/organization/${orgId}`, { bearer: bob })).status, 200);
    // a DEVOPS member may not manage members
    expectErrorBody(await t.request('POST', `/organization/${orgId}/inviteMember`, { bearer: bob, body: { email: 'x@example.com', role: 'VIEWER' } }), 403);
    // role changes: never to OWNER, the OWNER's role is fixed, then removal
    const bobId = members.body.results.find((m: { role: string }) => m.role === 'DEVOPS').id;
    expectErrorBody(await t.request('PUT', `/organization/${orgId}/member`, { bearer: alice, body: { user_id: bobId, role: 'OWNER' } }), 400);
    const promoted = await t.request('PUT', `/organization/${orgId}/member`, { bearer: alice, body: { ...ex.editOrganizationMemberRole, user_id: bobId } });
    assert.equal(promoted.body.role, ex.editOrganizationMemberRole.role);
    const aliceId = members.body.results.find((m: { role: string }) => m.role === 'OWNER').id;
    expectErrorBody(await t.request('PUT', `/organization/${orgId}/member`, { bearer: bob, body: { user_id: aliceId, role: 'VIEWER' } }), 409);
    expectErrorBody(await t.request('DELETE', `/organization/${orgId}/member`, { bearer: bob, body: { user_id: aliceId } }), 409);
    assert.equal((await t.request('DELETE', `/organization/${orgId}/member`, { bearer: alice, body: { user_id: bobId } })).status, 204);
    expectErrorBody(await t.request('GET', `/organization/${orgId}`, { bearer: bob }), 403);
  });

  test('ownership transfer: the new owner may delete, the old one becomes ADMIN', async () => {
    const dave = await oidc.sign({ sub: 'org-dave', email: 'dave@example.com' });
    const erin = await oidc.sign({ sub: 'org-erin', email: 'erin@example.com' });
    const orgId = (await t.request('POST', '/organization', { bearer: dave, body: { name: 'Transfer Co' } })).body.id;
    const pending = await t.request('POST', `/organization/${orgId}/inviteMember`, { bearer: dave, body: ex.postInviteMember });
    assert.deepEqual([pending.status, pending.body.email, pending.body.role], [201, ex.postInviteMember.email, ex.postInviteMember.role]);
    const inv = await t.request('POST', `/organization/${orgId}/inviteMember`, { bearer: dave, body: { email: 'erin@example.com', role_id: '00000000-0000-4000-8000-00000000a004' } });
    assert.equal(inv.body.role, 'VIEWER');
    await t.request('POST', `/organization/${orgId}/inviteMember/${inv.body.id}`, { bearer: erin });
    const erinId = (await t.ctx.db.query<{ id: string }>('select id from users where sub = $1', ['org-erin']))[0]!.id;
    expectErrorBody(await t.request('POST', `/organization/${orgId}/transferOwnership`, { bearer: erin, body: { user_id: erinId } }), 403);
    assert.equal((await t.request('POST', `/organization/${orgId}/transferOwnership`, { bearer: dave, body: { user_id: erinId } })).status, 204);
    expectErrorBody(await t.request('DELETE', `/organization/${orgId}`, { bearer: dave }), 403);
    assert.equal((await t.request('DELETE', `/organization/${orgId}`, { bearer: erin })).status, 204);
  });

  test('tokens: the secret is in the creation response only; roles cannot exceed the creator', async () => {
    const org = await seedOrganization(t);
    const r = await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: ex.createOrganizationApiToken });
    assert.equal(r.status, 201);
    assert.deepEqual([r.body.name, r.body.description, r.body.role], [ex.createOrganizationApiToken.name, ex.createOrganizationApiToken.description, 'DEVOPS']);
    assert.match(r.body.token, /^berth_/);
    assert.equal(r.body.role_name, 'DevOps');
    const list = await t.request('GET', `/organization/${org.id}/apiToken`, { token: org.token });
    assert.ok(list.body.results.length >= 2);
    assert.ok(list.body.results.every((x: Record<string, unknown>) => !('token' in x)));
    assert.ok(!list.raw.includes(r.body.token));
    expectErrorBody(await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: { name: 'CI', role: 'VIEWER' } }), 409);
    const admin = await org.tokenFor('ADMIN');
    expectErrorBody(await t.request('POST', `/organization/${org.id}/apiToken`, { token: admin, body: { name: 'escalate', role: 'OWNER' } }), 403);
    expectErrorBody(await t.request('POST', `/organization/${org.id}/apiToken`, { token: await org.tokenFor('VIEWER'), body: { name: 'v', role: 'VIEWER' } }), 403);
    expectErrorBody(await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: { name: 'norole' } }), 400);
    expectErrorBody(await t.request('POST', `/organization/${org.id}/apiToken`, { token: org.token, body: { name: 'badrole', role: 'KING' } }), 400);
  });

  test('available roles list the four built-in roles with stable ids', async () => {
    const org = await seedOrganization(t);
    const r = await t.request('GET', `/organization/${org.id}/availableRole`, { token: await org.tokenFor('VIEWER') });
    assert.deepEqual(r.body.results.map((x: { name: string }) => x.name), ['Owner', 'Admin', 'DevOps', 'Viewer']);
  });
});
