// Container registries: default URLs per kind, credentials write-only (never in any response,
// sealed in the table), edit merges config, 409 on names and on registries in use, getRegistryRef.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type TestApp } from '../support/harness.ts';
import { seedEnvironment, seedService } from '../support/factories.ts';
import { hierarchyExamples } from '../../src/http/examples/hierarchy.ts';

const UNKNOWN = '00000000-0000-4000-8000-00000000dead';

describe('container registries', () => {
  let t: TestApp;
  before(async () => { t = await startTestApp(); });
  after(async () => { await t.close(); });

  test('create with credentials: 201, default url, credentials never echoed, stored sealed; an edit changes the password sent', async () => {
    const org = await seedOrganization(t);
    const { createContainerRegistry: created, editContainerRegistry: edit } = hierarchyExamples;
    const secrets = new RegExp(`${created.config.username}|${created.config.password}`);
    const r = await t.request('POST', `/organization/${org.id}/containerRegistry`, { token: org.token, body: created });
    assert.equal(r.status, 201, r.raw);
    assert.equal(r.body.url, 'https://docker.io');
    assert.equal(r.body.kind, 'DOCKER_HUB');
    assert.equal(r.body.has_credential, true);
    assert.deepEqual(r.body.config, {});
    assert.doesNotMatch(r.raw, secrets);
    for (const url of [`/organization/${org.id}/containerRegistry/${r.body.id}`, `/organization/${org.id}/containerRegistry`]) {
      const read = await t.request('GET', url, { token: await org.tokenFor('VIEWER') });
      assert.equal(read.status, 200);
      assert.doesNotMatch(read.raw, secrets);
    }
    const rows = await t.ctx.db.query<{ config: object; config_sealed: string }>('select config, config_sealed from container_registries where id = $1', [r.body.id]);
    assert.deepEqual(rows[0]!.config, {});
    assert.doesNotMatch(rows[0]!.config_sealed, secrets);
    assert.deepEqual(JSON.parse(t.ctx.sealer.open(rows[0]!.config_sealed)), created.config);
    assert.deepEqual(await t.ctx.services.registries.credentials(org.id, r.body.id), created.config);
    const e = await t.request('PUT', `/organization/${org.id}/containerRegistry/${r.body.id}`, { token: org.token, body: edit });
    assert.equal(e.status, 200, e.raw);
    assert.doesNotMatch(e.raw, new RegExp(edit.config.password));
    assert.deepEqual(await t.ctx.services.registries.credentials(org.id, r.body.id), { username: created.config.username, password: edit.config.password });
  });

  test('ECR: non-secret config returned, access keys not; url required for kinds without a default', async () => {
    const org = await seedOrganization(t);
    const post = (body: object) => t.request('POST', `/organization/${org.id}/containerRegistry`, { token: org.token, body });
    assert.match(expectErrorBody(await post({ name: 'ecr', kind: 'ECR', config: { region: 'eu-west-3' } }), 400).message, /url is required/);
    const r = await post({ name: 'ecr', kind: 'ECR', url: 'https://1234.dkr.ecr.eu-west-3.amazonaws.com', config: { region: 'eu-west-3', access_key_id: 'AKIAZQ', secret_access_key: 'SECRETZQ', unknown_member: 1 } });
    assert.equal(r.status, 201, r.raw);
    assert.deepEqual(r.body.config, { region: 'eu-west-3' });
    assert.doesNotMatch(r.raw, /AKIAZQ|SECRETZQ/);
    const gh = await post({ name: 'gh', kind: 'GITHUB_CR' });
    assert.equal(gh.body.url, 'https://ghcr.io');
    assert.equal(gh.body.has_credential, false);
  });

  test('validation: missing name/kind, unknown kind, bad url are 400', async () => {
    const org = await seedOrganization(t);
    const post = (body: object) => t.request('POST', `/organization/${org.id}/containerRegistry`, { token: org.token, body });
    assert.match(expectErrorBody(await post({ kind: 'DOCKER_HUB' }), 400).message, /name is required/);
    assert.match(expectErrorBody(await post({ name: 'x' }), 400).message, /kind is required/);
    assert.match(expectErrorBody(await post({ name: 'x', kind: 'QUAY' }), 400).message, /^kind/);
    assert.match(expectErrorBody(await post({ name: 'x', kind: 'GENERIC_CR', url: 'not a url' }), 400).message, /^url/);
    assert.match(expectErrorBody(await post({ name: 'x', kind: 'DOCKER_HUB', config: { password: 42 } }), 400).message, /config\.password/);
  });

  test('names unique per organization in any letter case (409)', async () => {
    const org = await seedOrganization(t);
    await t.request('POST', `/organization/${org.id}/containerRegistry`, { token: org.token, body: { name: 'Mirror', kind: 'DOCKER_HUB' } });
    const clash = await t.request('POST', `/organization/${org.id}/containerRegistry`, { token: org.token, body: { name: 'mIRROR', kind: 'GITHUB_CR' } });
    assert.equal(expectErrorBody(clash, 409).message, 'Container registry name is already taken in this organization');
  });

  test('edit merges config: credentials kept unless sent, changed when sent, never returned', async () => {
    const org = await seedOrganization(t);
    const r = await t.request('POST', `/organization/${org.id}/containerRegistry`, { token: org.token, body: { name: 'g', kind: 'GENERIC_CR', url: 'https://reg.example.com', config: { username: 'u1', password: 'p1' } } });
    const e = await t.request('PUT', `/organization/${org.id}/containerRegistry/${r.body.id}`, { token: org.token, body: { name: 'g2', kind: 'GENERIC_CR', config: { password: 'p2-zq' } } });
    assert.equal(e.status, 200, e.raw);
    assert.equal(e.body.name, 'g2');
    assert.equal(e.body.url, 'https://reg.example.com');
    assert.equal(e.body.has_credential, true);
    assert.doesNotMatch(e.raw, /p2-zq|u1/);
    assert.deepEqual(await t.ctx.services.registries.credentials(org.id, r.body.id), { username: 'u1', password: 'p2-zq' });
  });

  test('permissions: VIEWER/DEVOPS write 403, other organization 403, unknown 404', async () => {
    const org = await seedOrganization(t);
    const other = await seedOrganization(t);
    const body = { name: 'p', kind: 'DOCKER_HUB' };
    expectErrorBody(await t.request('POST', `/organization/${org.id}/containerRegistry`, { token: await org.tokenFor('VIEWER'), body }), 403);
    expectErrorBody(await t.request('POST', `/organization/${org.id}/containerRegistry`, { token: await org.tokenFor('DEVOPS'), body }), 403);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/containerRegistry`, { token: other.token }), 403);
    expectErrorBody(await t.request('GET', `/organization/${UNKNOWN}/containerRegistry`, { token: org.token }), 404);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/containerRegistry`), 401);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/containerRegistry/${UNKNOWN}`, { token: org.token }), 404);
    expectErrorBody(await t.request('DELETE', `/organization/${org.id}/containerRegistry/${UNKNOWN}`, { token: org.token }), 404);
  });

  test('getRegistryRef resolves within the organization only; a registry in use cannot be deleted (409)', async () => {
    const org = await seedOrganization(t);
    const other = await seedOrganization(t);
    const r = await t.request('POST', `/organization/${org.id}/containerRegistry`, { token: org.token, body: { name: 'used', kind: 'DOCKER_HUB' } });
    assert.deepEqual(await t.ctx.services.registries.getRegistryRef(org.id, r.body.id), { id: r.body.id, name: 'used', url: 'https://docker.io', kind: 'DOCKER_HUB' });
    assert.equal(await t.ctx.services.registries.getRegistryRef(other.id, r.body.id), null);
    const env = await seedEnvironment(t, org);
    const svc = await seedService(t, env, 'CONTAINER', { image_name: 'nginx', tag: '1', registry_id: r.body.id });
    assert.match(expectErrorBody(await t.request('DELETE', `/organization/${org.id}/containerRegistry/${r.body.id}`, { token: org.token }), 409).message, /used by 1 service/);
    await t.ctx.db.query('delete from services where id = $1', [svc]);
    assert.equal((await t.request('DELETE', `/organization/${org.id}/containerRegistry/${r.body.id}`, { token: org.token })).status, 204);
  });
});
