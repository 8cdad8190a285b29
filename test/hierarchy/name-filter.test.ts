// `?name=` on lists of named resources: the one item of that name (case-insensitive), an empty
// list when there is none, combined with paging; scripts need not page to find one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedEnvironment } from '../support/factories.ts';
import { seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

describe('?name= on lists', () => {
  let t: TestApp;
  let org: SeededOrganization;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
  });
  after(() => t.close());

  const names = async (url: string) => {
    const r = await t.request('GET', url, { token: org.token });
    assert.equal(r.status, 200, r.raw);
    return { names: r.body.results.map((x: { name: string }) => x.name), total: r.body.pagination.total_count };
  };

  test('projects, environments, clusters, registries, services and agentic workflows by name', async () => {
    const env = await seedEnvironment(t, org);
    for (const name of ['Alpha', 'Beta', 'alphabet']) await t.request('POST', `/organization/${org.id}/project`, { token: org.token, body: { name } });
    assert.deepEqual(await names(`/organization/${org.id}/project?name=ALPHA`), { names: ['Alpha'], total: 1 });
    assert.deepEqual(await names(`/organization/${org.id}/project?name=alph`), { names: [], total: 0 });
    assert.deepEqual(await names(`/organization/${org.id}/project?name=beta&page=1&page_size=5`), { names: ['Beta'], total: 1 });
    assert.equal((await names(`/organization/${org.id}/project`)).names.length >= 4, true);

    await t.request('POST', `/project/${env.projectId}/environment`, { token: org.token, body: { name: 'staging' } });
    assert.deepEqual((await names(`/project/${env.projectId}/environment?name=Staging`)).names, ['staging']);
    const cluster = (await t.request('GET', `/organization/${org.id}/cluster`, { token: org.token })).body.results[0];
    assert.deepEqual((await names(`/organization/${org.id}/cluster?name=${encodeURIComponent(cluster.name.toUpperCase())}`)).names, [cluster.name]);
    assert.deepEqual((await names(`/organization/${org.id}/cluster?name=none`)), { names: [], total: 0 });
    await t.request('POST', `/organization/${org.id}/containerRegistry`, { token: org.token, body: { name: 'Hub', kind: 'DOCKER_HUB', url: 'https://docker.io' } });
    assert.deepEqual((await names(`/organization/${org.id}/containerRegistry?name=hub`)).names, ['Hub']);

    for (const name of ['api', 'web']) {
      const r = await t.request('POST', `/environment/${env.id}/application`, { token: org.token, body: { name, git_repository: { url: 'https://github.com/a/b' } } });
      assert.equal(r.status, 201, r.raw);
    }
    assert.deepEqual((await names(`/environment/${env.id}/application?name=WEB`)).names, ['web']);
    assert.deepEqual((await names(`/environment/${env.id}/services?name=api`)).names, ['api']);
    assert.deepEqual((await names(`/environment/${env.id}/container?name=api`)).names, []);

    for (const name of ['Triage', 'triage-2']) {
      const r = await t.request('POST', `/environment/${env.id}/agenticWorkflow`, { token: org.token, body: { name } });
      assert.equal(r.status, 201, r.raw);
    }
    assert.deepEqual(await names(`/environment/${env.id}/agenticWorkflow?name=TRIAGE`), { names: ['Triage'], total: 1 });
    assert.deepEqual(await names(`/environment/${env.id}/agenticWorkflow?name=none`), { names: [], total: 0 });
    assert.equal((await names(`/environment/${env.id}/agenticWorkflow`)).names.length, 2);
  });

  test('an empty name is a 400', async () => {
    const r = await t.request('GET', `/organization/${org.id}/project?name=`, { token: org.token });
    assert.equal(r.status, 400);
  });
});
