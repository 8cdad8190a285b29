// Projects: CRUD, case-insensitive names, permissions, and deletion cascading to environments
// and their services (marked deleting, what runs before the removal sees them so, nothing left
// orphaned).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createEnvironmentsService } from '../../src/modules/environments/environments.service.ts';
import type { RemovedEnvironments } from '../../src/modules/environments/environments.service.ts';
import { createProjectsService } from '../../src/modules/projects/projects.service.ts';
import type { Queryable } from '../../src/db/db.ts';
import { expectErrorBody, seedOrganization, startTestApp, type TestApp } from '../support/harness.ts';
import { seedService } from '../support/factories.ts';
import { hierarchyExamples } from '../../src/http/examples/hierarchy.ts';

const UNKNOWN = '00000000-0000-4000-8000-00000000dead';

describe('projects', () => {
  let t: TestApp;
  before(async () => { t = await startTestApp(); });
  after(async () => { await t.close(); });

  test('create (201 with the full project), get, list items with the seed\'s members, edit keeps omitted members', async () => {
    const org = await seedOrganization(t);
    const { createProject: created, editProject: edit } = hierarchyExamples;
    const r = await t.request('POST', `/organization/${org.id}/project`, { token: org.token, body: created });
    assert.equal(r.status, 201, r.raw);
    assert.match(r.body.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual([r.body.name, r.body.description, r.body.organization.id, r.body.associated_environments_count], [created.name, created.description, org.id, 0]);
    const noDesc = await t.request('POST', `/organization/${org.id}/project`, { token: org.token, body: { name: 'Blog' } });
    assert.equal(noDesc.body.description, '');
    const list = await t.request('GET', `/organization/${org.id}/project`, { token: await org.tokenFor('VIEWER') });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.results.map((p: { name: string }) => p.name), [created.name, 'Blog']);
    for (const k of ['id', 'name', 'description', 'created_at', 'updated_at']) assert.ok(k in list.body.results[0], k);
    assert.deepEqual(list.body.pagination, { page: 1, page_size: 2, total_count: 2, total_pages: 1 });
    const paged = await t.request('GET', `/organization/${org.id}/project?page=2&page_size=1`, { token: org.token });
    assert.deepEqual(paged.body.results.map((p: { name: string }) => p.name), ['Blog']);
    const edited = await t.request('PUT', `/project/${r.body.id}`, { token: await org.tokenFor('ADMIN'), body: edit });
    assert.equal(edited.status, 200);
    assert.deepEqual([edited.body.name, edited.body.description], [edit.name, created.description]);
    assert.ok(edited.body.updated_at);
    const got = await t.request('GET', `/project/${r.body.id}`, { token: await org.tokenFor('VIEWER') });
    assert.equal(got.body.name, edit.name);
  });

  test('validation: missing or empty name, wrong types are 400', async () => {
    const org = await seedOrganization(t);
    const post = (body: object) => t.request('POST', `/organization/${org.id}/project`, { token: org.token, body });
    assert.match(expectErrorBody(await post({}), 400).message, /name is required/);
    assert.match(expectErrorBody(await post({ name: '' }), 400).message, /^name/);
    assert.match(expectErrorBody(await post({ name: '   ' }), 400).message, /^name/);
    assert.match(expectErrorBody(await post({ name: 'x', description: 5 }), 400).message, /^description/);
    const p = await post({ name: 'ok' });
    assert.match(expectErrorBody(await t.request('PUT', `/project/${p.body.id}`, { token: org.token, body: { description: 'no name' } }), 400).message, /name is required/);
  });

  test('names are unique per organization in any letter case (409), on create and on edit', async () => {
    const org = await seedOrganization(t);
    await t.request('POST', `/organization/${org.id}/project`, { token: org.token, body: { name: 'Backend' } });
    const clash = await t.request('POST', `/organization/${org.id}/project`, { token: org.token, body: { name: 'BACKEND' } });
    assert.equal(expectErrorBody(clash, 409).message, 'Project name is already taken in this organization');
    const other = await t.request('POST', `/organization/${org.id}/project`, { token: org.token, body: { name: 'Frontend' } });
    expectErrorBody(await t.request('PUT', `/project/${other.body.id}`, { token: org.token, body: { name: 'backend' } }), 409);
  });

  test('permissions: VIEWER and DEVOPS may not write (403), another organization 403, unknown 404, no token 401', async () => {
    const org = await seedOrganization(t);
    const other = await seedOrganization(t);
    expectErrorBody(await t.request('POST', `/organization/${org.id}/project`, { token: await org.tokenFor('VIEWER'), body: { name: 'v' } }), 403);
    expectErrorBody(await t.request('POST', `/organization/${org.id}/project`, { token: await org.tokenFor('DEVOPS'), body: { name: 'v' } }), 403);
    expectErrorBody(await t.request('POST', `/organization/${org.id}/project`, { token: other.token, body: { name: 'v' } }), 403);
    expectErrorBody(await t.request('POST', `/organization/${UNKNOWN}/project`, { token: org.token, body: { name: 'v' } }), 404);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/project`), 401);
    const p = await t.request('POST', `/organization/${org.id}/project`, { token: org.token, body: { name: 'mine' } });
    expectErrorBody(await t.request('GET', `/project/${p.body.id}`, { token: other.token }), 403);
    expectErrorBody(await t.request('PUT', `/project/${p.body.id}`, { token: await org.tokenFor('VIEWER'), body: { name: 'x' } }), 403);
    expectErrorBody(await t.request('DELETE', `/project/${p.body.id}`, { token: await org.tokenFor('DEVOPS') }), 403);
    expectErrorBody(await t.request('GET', `/project/${UNKNOWN}`, { token: org.token }), 404);
    expectErrorBody(await t.request('PUT', `/project/${UNKNOWN}`, { token: org.token, body: { name: 'x' } }), 404);
    expectErrorBody(await t.request('DELETE', `/project/${UNKNOWN}`, { token: org.token }), 404);
  });

  test('deleting a project deletes its environments and their services; what runs before the removal sees them marked deleting', async () => {
    const org = await seedOrganization(t);
    const p = await t.request('POST', `/organization/${org.id}/project`, { token: org.token, body: { name: 'doomed' } });
    const e1 = await t.request('POST', `/project/${p.body.id}/environment`, { token: org.token, body: { name: 'one' } });
    const e2 = await t.request('POST', `/project/${p.body.id}/environment`, { token: org.token, body: { name: 'two' } });
    const env1 = { organizationId: org.id, projectId: p.body.id, id: e1.body.id, clusterId: e1.body.cluster_id, name: 'one' };
    await seedService(t, env1, 'APPLICATION');
    assert.equal((await t.request('GET', `/project/${p.body.id}`, { token: org.token })).body.associated_environments_count, 2);
    const seen: Array<{ ids: string[]; deleting: boolean[] }> = [];
    // the composition root's wiring, with a recording step before the removal
    const { db, sealer, services: s } = t.ctx;
    const beforeRemoval = async (tx: Queryable, removed: RemovedEnvironments) => {
      const rows = await tx.query<{ deleting: boolean }>('select deleting from environments where id = any($1::uuid[])', [removed.environmentIds]);
      seen.push({ ids: [...removed.environmentIds].sort(), deleting: rows.map((r) => r.deleting) });
    };
    const environments = createEnvironmentsService({ db, sealer, scope: s.scope, projects: s.projects, clusters: s.clusters, deploymentRules: s.deploymentRules, lockDeployments: (tx, ids) => s.deployments.lockEnvironments(tx, ids), copyService: (tx, id, to, secrets) => s.services.copyInto(tx, id, to, secrets), afterClone: async () => {}, beforeRemoval });
    const projects = createProjectsService({ db, organizations: s.organizations, prepareEnvironmentRemoval: (tx, o, ids) => environments.prepareRemoval(tx, o, ids) });
    await projects.remove(await s.identity.authenticate(`Token ${org.token}`), p.body.id);
    assert.deepEqual(seen, [{ ids: [e1.body.id, e2.body.id].sort(), deleting: [true, true] }]);
    expectErrorBody(await t.request('GET', `/project/${p.body.id}`, { token: org.token }), 404);
    expectErrorBody(await t.request('GET', `/environment/${e1.body.id}`, { token: org.token }), 404);
    const left = await t.ctx.db.query<{ n: number }>(
      `select (select count(*)::int from environments where project_id = $1) + (select count(*)::int from services where project_id = $1)
        + (select count(*)::int from environment_deployment_rules where environment_id = any($2::uuid[])) as n`, [p.body.id, [e1.body.id, e2.body.id]]);
    assert.equal(left[0]!.n, 0);
  });
});
