// Clusters: CRUD with defaults, capacity, who may do what, the default cluster, the bootstrap
// local cluster, and 409 when environments still use a cluster.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ensureOrganization } from '../../src/bootstrap.ts';
import { expectErrorBody, seedOrganization, startTestApp, type TestApp } from '../support/harness.ts';
import { seedEnvironment } from '../support/factories.ts';
import { hierarchyExamples } from '../../src/http/examples/hierarchy.ts';

const UNKNOWN = '00000000-0000-4000-8000-00000000dead';

describe('clusters', () => {
  let t: TestApp;
  before(async () => { t = await startTestApp(); });
  after(async () => { await t.close(); });

  test('the bootstrap organization gets one local default cluster, and only one', async () => {
    const name = `boot-${Date.now()}`;
    const org = await ensureOrganization(t.ctx, name);
    await ensureOrganization(t.ctx, name);
    const rows = await t.ctx.db.query<{ name: string; is_default: boolean; cpu: number; memory: number; gpu: number }>(
      'select name, is_default, cpu, memory, gpu from clusters where organization_id = $1', [org.id]);
    assert.deepEqual(rows, [{ name: 'local', is_default: true, cpu: 4000, memory: 8192, gpu: 0 }]);
  });

  test('create with defaults (201), read, list, status; capacity as sent', async () => {
    const org = await seedOrganization(t);
    const r = await t.request('POST', `/organization/${org.id}/cluster`, { token: org.token, body: { name: 'Prod EU', region: 'eu-west-3', cloud_provider: 'AWS', id: 'ignored', status: 'ignored' } });
    assert.equal(r.status, 201, r.raw);
    assert.equal(r.body.name, 'Prod EU');
    assert.equal(r.body.kubernetes, 'MANAGED');
    assert.equal(r.body.production, false);
    assert.equal(r.body.min_running_nodes, 1);
    assert.equal(r.body.max_running_nodes, 1);
    assert.equal(r.body.disk_size, 40);
    assert.deepEqual([r.body.cpu, r.body.memory, r.body.gpu], [4000, 8192, 0]);
    assert.equal(r.body.is_default, false, 'the local cluster stays the default');
    assert.equal(r.body.organization.id, org.id);
    const example = hierarchyExamples.createCluster;
    const big = await t.request('POST', `/organization/${org.id}/cluster`, { token: org.token, body: example });
    assert.equal(big.status, 201, big.raw);
    for (const k of Object.keys(example) as (keyof typeof example)[]) assert.deepEqual(big.body[k], example[k], k);
    const got = await t.request('GET', `/organization/${org.id}/cluster/${big.body.id}`, { token: await org.tokenFor('VIEWER') });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, big.body);
    const list = await t.request('GET', `/organization/${org.id}/cluster`, { token: await org.tokenFor('VIEWER') });
    assert.deepEqual(list.body.results.map((c: { name: string }) => c.name), ['local', 'Prod EU', example.name]);
    assert.equal(list.body.pagination.total_count, 3);
    const status = await t.request('GET', `/organization/${org.id}/cluster/${big.body.id}/status`, { token: org.token });
    assert.equal(status.status, 200);
    assert.equal(status.body.cluster_id, big.body.id);
    assert.equal(status.body.is_deployed, true);
    const statuses = await t.request('GET', `/organization/${org.id}/cluster/status`, { token: org.token });
    assert.equal(statuses.body.results.length, 3);
  });

  test('a cluster capacity is what the scope service reports for its environments', async () => {
    const org = await seedOrganization(t);
    const c = await t.request('POST', `/organization/${org.id}/cluster`, { token: org.token, body: { name: 'cap', region: 'r', cloud_provider: 'ON_PREMISE', cpu: 2500, memory: 3000, gpu: 1 } });
    const env = await seedEnvironment(t, org, { clusterId: c.body.id });
    const scope = await t.ctx.services.scope.environment({ kind: 'token', id: 'x', organizationId: org.id, role: 'VIEWER', name: 'x', key: 'x' }, env.id, 'read');
    assert.deepEqual(scope.capacity, { cpu: 2500, memory: 3000, gpu: 1 });
  });

  test('validation: missing name/region/cloud_provider, unknown enum, bad numbers, min > max are 400', async () => {
    const org = await seedOrganization(t);
    const post = (body: object) => t.request('POST', `/organization/${org.id}/cluster`, { token: org.token, body });
    const base = { name: 'v', region: 'r', cloud_provider: 'AWS' };
    assert.match(expectErrorBody(await post({ region: 'r', cloud_provider: 'AWS' }), 400).message, /name is required/);
    assert.match(expectErrorBody(await post({ name: 'v', cloud_provider: 'AWS' }), 400).message, /region is required/);
    assert.match(expectErrorBody(await post({ name: 'v', region: 'r' }), 400).message, /cloud_provider is required/);
    assert.match(expectErrorBody(await post({ ...base, cloud_provider: 'MOON' }), 400).message, /cloud_provider/);
    assert.match(expectErrorBody(await post({ ...base, kubernetes: 'WILD' }), 400).message, /kubernetes/);
    assert.match(expectErrorBody(await post({ ...base, cpu: 0 }), 400).message, /^cpu/);
    assert.match(expectErrorBody(await post({ ...base, memory: '1024' }), 400).message, /^memory/);
    assert.match(expectErrorBody(await post({ ...base, gpu: -1 }), 400).message, /^gpu/);
    assert.match(expectErrorBody(await post({ ...base, min_running_nodes: 3, max_running_nodes: 2 }), 400).message, /max_running_nodes/);
    assert.match(expectErrorBody(await post({ ...base, name: '' }), 400).message, /^name/);
  });

  test('names are unique per organization in any letter case (409); other organizations may reuse them', async () => {
    const org = await seedOrganization(t);
    const other = await seedOrganization(t);
    const body = { name: 'Shared', region: 'r', cloud_provider: 'AWS' };
    assert.equal((await t.request('POST', `/organization/${org.id}/cluster`, { token: org.token, body })).status, 201);
    const clash = await t.request('POST', `/organization/${org.id}/cluster`, { token: org.token, body: { ...body, name: 'SHARED' } });
    assert.equal(expectErrorBody(clash, 409).message, 'Cluster name is already taken in this organization');
    assert.equal((await t.request('POST', `/organization/${other.id}/cluster`, { token: other.token, body })).status, 201);
  });

  test('edit keeps omitted members; is_default moves the default', async () => {
    const org = await seedOrganization(t);
    const { createCluster: created, editCluster: edit } = hierarchyExamples;
    const c = await t.request('POST', `/organization/${org.id}/cluster`, { token: org.token, body: { ...created, name: 'e', region: 'r' } });
    const e = await t.request('PUT', `/organization/${org.id}/cluster/${c.body.id}`, { token: await org.tokenFor('ADMIN'), body: edit });
    assert.equal(e.status, 200, e.raw);
    assert.deepEqual([e.body.name, e.body.region, e.body.cpu, e.body.memory, e.body.description, e.body.is_default],
      [edit.name, edit.region, created.cpu, edit.memory, created.description, true]);
    assert.ok(e.body.updated_at);
    const defaults = await t.ctx.db.query('select id from clusters where organization_id = $1 and is_default', [org.id]);
    assert.deepEqual(defaults.map((d: any) => d.id), [c.body.id]);
    expectErrorBody(await t.request('PUT', `/organization/${org.id}/cluster/${c.body.id}`, { token: org.token, body: { ...edit, min_running_nodes: created.max_running_nodes + 1 } }), 400);
  });

  test('VIEWER and DEVOPS may not write (403); another organization\'s token 403; unknown ids 404; no token 401', async () => {
    const org = await seedOrganization(t);
    const other = await seedOrganization(t);
    const body = { name: 'x', region: 'r', cloud_provider: 'AWS' };
    expectErrorBody(await t.request('POST', `/organization/${org.id}/cluster`, { token: await org.tokenFor('VIEWER'), body }), 403);
    expectErrorBody(await t.request('POST', `/organization/${org.id}/cluster`, { token: await org.tokenFor('DEVOPS'), body }), 403);
    expectErrorBody(await t.request('POST', `/organization/${org.id}/cluster`, { token: other.token, body }), 403);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/cluster`, { token: other.token }), 403);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/cluster`), 401);
    expectErrorBody(await t.request('GET', `/organization/${UNKNOWN}/cluster`, { token: org.token }), 404);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/cluster/${UNKNOWN}`, { token: org.token }), 404);
    expectErrorBody(await t.request('PUT', `/organization/${org.id}/cluster/${UNKNOWN}`, { token: org.token, body }), 404);
    expectErrorBody(await t.request('DELETE', `/organization/${org.id}/cluster/${UNKNOWN}`, { token: org.token }), 404);
    const c = await t.request('POST', `/organization/${org.id}/cluster`, { token: org.token, body });
    expectErrorBody(await t.request('DELETE', `/organization/${org.id}/cluster/${c.body.id}`, { token: await org.tokenFor('VIEWER') }), 403);
    // a cluster of another organization is not found under this one
    expectErrorBody(await t.request('GET', `/organization/${other.id}/cluster/${c.body.id}`, { token: other.token }), 404);
  });

  test('a cluster environments use cannot be deleted (409); an unused one can (204)', async () => {
    const org = await seedOrganization(t);
    const c = await t.request('POST', `/organization/${org.id}/cluster`, { token: org.token, body: { name: 'busy', region: 'r', cloud_provider: 'AWS' } });
    const env = await seedEnvironment(t, org, { clusterId: c.body.id });
    assert.match(expectErrorBody(await t.request('DELETE', `/organization/${org.id}/cluster/${c.body.id}`, { token: org.token }), 409).message, /used by 1 environment/);
    await t.ctx.db.query('delete from environments where id = $1', [env.id]);
    assert.equal((await t.request('DELETE', `/organization/${org.id}/cluster/${c.body.id}`, { token: org.token })).status, 204);
    expectErrorBody(await t.request('GET', `/organization/${org.id}/cluster/${c.body.id}`, { token: org.token }), 404);
  });

  test('every hierarchy route is in the OpenAPI document with its operationId', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { operationId?: string }>> };
    const ids = new Set(Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId)));
    for (const id of ['listOrganizationCluster', 'createCluster', 'getCluster', 'editCluster', 'deleteCluster', 'getClusterStatus',
      'getOrganizationClusterStatus', 'listContainerRegistry', 'createContainerRegistry', 'getContainerRegistry', 'editContainerRegistry',
      'deleteContainerRegistry', 'listProject', 'createProject', 'getProject', 'editProject', 'deleteProject', 'listEnvironment',
      'createEnvironment', 'getEnvironment', 'editEnvironment', 'deleteEnvironment', 'cloneEnvironment', 'listProjectDeploymentRules',
      'createDeploymentRule', 'getProjectDeploymentRule', 'editProjectDeployemtnRule', 'deleteProjectDeploymentRule',
      'updateDeploymentRulesPriorityOrder', 'getEnvironmentDeploymentRule', 'editEnvironmentDeploymentRule']) {
      assert.ok(ids.has(id), id);
    }
  });
});
