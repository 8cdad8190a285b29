// Environments: create on a cluster (cluster_id, cluster, the default), the 400s, names, rights,
// edit, delete with services, and clone (services copied, secrets re-sealed, state reset, hooks).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createEnvironmentsService, type AfterClone } from '../../src/modules/environments/environments.service.ts';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedCluster, seedService } from '../support/factories.ts';
import { hierarchyExamples } from '../../src/http/examples/hierarchy.ts';

const UNKNOWN = '00000000-0000-4000-8000-00000000dead';

describe('environments', () => {
  let t: TestApp;
  before(async () => { t = await startTestApp(); });
  /** the environments service as the composition root makes it, with another step after a clone */
  const withAfterClone = (afterClone: AfterClone) => {
    const { db, sealer, services: s } = t.ctx;
    return createEnvironmentsService({ db, sealer, scope: s.scope, projects: s.projects, clusters: s.clusters, deploymentRules: s.deploymentRules, lockDeployments: (tx, ids) => s.deployments.lockEnvironments(tx, ids), copyService: (tx, id, to, secrets) => s.services.copyInto(tx, id, to, secrets), afterClone, beforeRemoval: async () => {} });
  };
  after(async () => { await t.close(); });

  async function project(org: SeededOrganization, name = 'p'): Promise<string> {
    const r = await t.request('POST', `/organization/${org.id}/project`, { token: org.token, body: { name } });
    assert.equal(r.status, 201, r.raw);
    return r.body.id;
  }

  test('create on the default cluster (201) with every response member; cluster_id and cluster both accepted', async () => {
    const org = await seedOrganization(t);
    const pid = await project(org);
    const local = (await t.ctx.db.query<{ id: string }>('select id from clusters where organization_id = $1 and is_default', [org.id]))[0]!.id;
    const example = hierarchyExamples.createEnvironment;
    const r = await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: example });
    assert.equal(r.status, 201, r.raw);
    assert.deepEqual(
      [r.body.name, r.body.mode, r.body.cluster_id, r.body.cluster_name, r.body.project.id, r.body.organization.id, r.body.auto_preview, r.body.expires_at],
      [example.name, example.mode, local, 'local', pid, org.id, example.auto_preview, null]);
    assert.ok(r.body.created_at);
    const other = await seedCluster(t, org.id);
    const byId = await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: { name: 'prod', mode: 'PRODUCTION', cluster_id: other, auto_preview: true } });
    assert.equal(byId.body.cluster_id, other);
    assert.equal(byId.body.auto_preview, true);
    const byClient = await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: { name: 'dev', cluster: other } });
    assert.equal(byClient.body.cluster_id, other);
    assert.equal(byClient.body.mode, 'DEVELOPMENT');
    const list = await t.request('GET', `/project/${pid}/environment`, { token: await org.tokenFor('VIEWER') });
    assert.deepEqual(list.body.results.map((e: { name: string }) => e.name), [example.name, 'prod', 'dev']);
    const got = await t.request('GET', `/environment/${byId.body.id}`, { token: await org.tokenFor('VIEWER') });
    assert.deepEqual(got.body, byId.body);
  });

  test('400s: name, mode (PREVIEW only for clones), unknown cluster, another organization\'s cluster, no default cluster', async () => {
    const org = await seedOrganization(t);
    const other = await seedOrganization(t);
    const pid = await project(org);
    const post = (body: object) => t.request('POST', `/project/${pid}/environment`, { token: org.token, body });
    assert.match(expectErrorBody(await post({ mode: 'STAGING' }), 400).message, /name is required/);
    assert.match(expectErrorBody(await post({ name: 'x', mode: 'PREVIEW' }), 400).message, /^mode/);
    assert.match(expectErrorBody(await post({ name: 'x', mode: 'staging' }), 400).message, /^mode/);
    assert.match(expectErrorBody(await post({ name: 'x', cluster_id: 'nope' }), 400).message, /^cluster_id/);
    assert.equal(expectErrorBody(await post({ name: 'x', cluster_id: UNKNOWN }), 400).message, 'cluster_id does not name a cluster of this organization');
    const foreign = await seedCluster(t, other.id);
    assert.equal(expectErrorBody(await post({ name: 'x', cluster: foreign }), 400).message, 'cluster does not name a cluster of this organization');
    assert.match(expectErrorBody(await post({ name: 'x', cluster: foreign, cluster_id: UNKNOWN }), 400).message, /cluster_id and cluster/);
    assert.match(expectErrorBody(await post({ name: 'x', auto_preview: 'yes' }), 400).message, /^auto_preview/);
    await t.ctx.db.query('update clusters set is_default = false where organization_id = $1', [org.id]);
    assert.match(expectErrorBody(await post({ name: 'x' }), 400).message, /cluster_id is required/);
  });

  test('names unique per project in any letter case (409); other projects may reuse them', async () => {
    const org = await seedOrganization(t);
    const p1 = await project(org, 'one');
    const p2 = await project(org, 'two');
    await t.request('POST', `/project/${p1}/environment`, { token: org.token, body: { name: 'Main' } });
    const clash = await t.request('POST', `/project/${p1}/environment`, { token: org.token, body: { name: 'MAIN' } });
    assert.equal(expectErrorBody(clash, 409).message, 'Environment name is already taken in this project');
    assert.equal((await t.request('POST', `/project/${p2}/environment`, { token: org.token, body: { name: 'main' } })).status, 201);
  });

  test('permissions: VIEWER/DEVOPS writes 403, another organization 403, unknown project/environment 404', async () => {
    const org = await seedOrganization(t);
    const other = await seedOrganization(t);
    const pid = await project(org);
    expectErrorBody(await t.request('POST', `/project/${pid}/environment`, { token: await org.tokenFor('VIEWER'), body: { name: 'v' } }), 403);
    expectErrorBody(await t.request('POST', `/project/${pid}/environment`, { token: await org.tokenFor('DEVOPS'), body: { name: 'v' } }), 403);
    expectErrorBody(await t.request('POST', `/project/${pid}/environment`, { token: other.token, body: { name: 'v' } }), 403);
    expectErrorBody(await t.request('GET', `/project/${pid}/environment`, { token: other.token }), 403);
    expectErrorBody(await t.request('POST', `/project/${UNKNOWN}/environment`, { token: org.token, body: { name: 'v' } }), 404);
    expectErrorBody(await t.request('GET', `/project/${UNKNOWN}/environment`, { token: org.token }), 404);
    const e = await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: { name: 'e' } });
    expectErrorBody(await t.request('GET', `/environment/${e.body.id}`, { token: other.token }), 403);
    expectErrorBody(await t.request('PUT', `/environment/${e.body.id}`, { token: await org.tokenFor('VIEWER'), body: { name: 'x' } }), 403);
    expectErrorBody(await t.request('DELETE', `/environment/${e.body.id}`, { token: await org.tokenFor('DEVOPS') }), 403);
    expectErrorBody(await t.request('POST', `/environment/${e.body.id}/clone`, { token: await org.tokenFor('VIEWER'), body: { name: 'c' } }), 403);
    for (const [m, url] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/clone']] as const) {
      expectErrorBody(await t.request(m, `/environment/${UNKNOWN}${url}`, { token: org.token, ...(m === 'PUT' || m === 'POST' ? { body: { name: 'x' } } : {}) }), 404);
    }
  });


  test('the list of a project answers 404 once the project is deleted, though its organization was already known; an empty project lists nothing (200)', async () => {
    const org = await seedOrganization(t);
    const other = await seedOrganization(t);
    const pid = await project(org, 'listed');
    await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: { name: 'one' } });
    const listed = await t.request('GET', `/project/${pid}/environment`, { token: org.token });
    assert.equal(listed.status, 200, listed.raw);
    assert.deepEqual(listed.body.results.map((e: { name: string }) => e.name), ['one']);
    // known organization, another caller: still 403, not a page
    expectErrorBody(await t.request('GET', `/project/${pid}/environment`, { token: other.token }), 403);
    const empty = await project(org, 'empty');
    const none = await t.request('GET', `/project/${empty}/environment`, { token: org.token });
    assert.equal(none.status, 200, none.raw);
    assert.equal(none.body.results.length, 0);
    assert.equal((await t.request('DELETE', `/project/${pid}`, { token: org.token })).status, 204);
    expectErrorBody(await t.request('GET', `/project/${pid}/environment`, { token: org.token }), 404);
  });
  test('edit changes what is sent; PREVIEW cannot be set by edit; rename clash 409', async () => {
    const org = await seedOrganization(t);
    const pid = await project(org);
    const e = await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: { name: 'e', mode: 'STAGING' } });
    await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: { name: 'taken' } });
    const edit = hierarchyExamples.editEnvironment;
    const r = await t.request('PUT', `/environment/${e.body.id}`, { token: org.token, body: { ...edit, auto_preview: true } });
    assert.equal(r.status, 200, r.raw);
    assert.deepEqual([r.body.name, r.body.mode, r.body.auto_preview], [edit.name, 'STAGING', true], 'the mode omitted is kept');
    const back = await t.request('PUT', `/environment/${e.body.id}`, { token: org.token, body: edit });
    assert.equal(back.body.auto_preview, edit.auto_preview);
    const r2 = await t.request('PUT', `/environment/${e.body.id}`, { token: org.token, body: { name: 'e2', mode: 'PRODUCTION', cluster_id: UNKNOWN } });
    assert.deepEqual([r2.body.name, r2.body.mode, r2.body.cluster_id], ['e2', 'PRODUCTION', e.body.cluster_id]);
    assert.match(expectErrorBody(await t.request('PUT', `/environment/${e.body.id}`, { token: org.token, body: { mode: 'PREVIEW' } }), 400).message, /^mode/);
    expectErrorBody(await t.request('PUT', `/environment/${e.body.id}`, { token: org.token, body: { name: 'TAKEN' } }), 409);
  });

  test('delete removes the environment, its services and its rule (204)', async () => {
    const org = await seedOrganization(t);
    const pid = await project(org);
    const e = await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: { name: 'gone' } });
    await seedService(t, { organizationId: org.id, projectId: pid, id: e.body.id, clusterId: e.body.cluster_id, name: 'gone' }, 'APPLICATION');
    assert.equal((await t.request('DELETE', `/environment/${e.body.id}`, { token: await org.tokenFor('ADMIN') })).status, 204);
    expectErrorBody(await t.request('GET', `/environment/${e.body.id}`, { token: org.token }), 404);
    const left = await t.ctx.db.query<{ n: number }>(
      `select (select count(*)::int from services where environment_id = $1) + (select count(*)::int from environment_deployment_rules where environment_id = $1) as n`, [e.body.id]);
    assert.equal(left[0]!.n, 0);
  });

  test('clone copies every service (secrets re-sealed, state reset) in one go, records cloned_from_id, runs what follows a clone', async () => {
    const org = await seedOrganization(t);
    const pid = await project(org);
    const src = await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: { name: 'source', mode: 'STAGING', auto_preview: true } });
    const env = { organizationId: org.id, projectId: pid, id: src.body.id, clusterId: src.body.cluster_id, name: 'source' };
    const a = await seedService(t, env, 'APPLICATION', { cpu: 500 }, 'api');
    const w = await seedService(t, env, 'AGENTIC_WORKFLOW', { agent_prompt: 'hi' }, 'agent');
    const sealed = t.ctx.sealer.seal('model-key');
    await t.ctx.db.query(`update services set secrets = $2::jsonb, state = 'RUNNING', deployment_status = 'UP_TO_DATE', last_deployment_at = now(), advanced_settings = '{"hpa.cpu.average_utilization_percent": 70}'::jsonb where id = $1`,
      [w, JSON.stringify({ api_key: sealed })]);
    const calls: Array<{ from: string; to: string; map: [string, string][] }> = [];
    // what runs after a clone gets the source, the copy and each service's copy
    const recorded = withAfterClone(async (_tx, clone) => {
      calls.push({ from: clone.fromEnvironmentId, to: clone.toEnvironmentId, map: [...clone.serviceIdMap.entries()] });
    });
    const viaService = await recorded.clone(await t.ctx.services.identity.authenticate(`Token ${org.token}`), src.body.id, { name: 'recorded' });
    const c = await t.request('POST', `/environment/${src.body.id}/clone`, { token: org.token, body: { name: 'copy', mode: 'PREVIEW', expires_at: '2099-01-01T00:00:00Z' } });
    assert.equal(c.status, 202, c.raw);
    assert.deepEqual([c.body.name, c.body.mode, c.body.cluster_id, c.body.cloned_from_id, c.body.expires_at, c.body.auto_preview],
      ['copy', 'PREVIEW', src.body.cluster_id, src.body.id, '2099-01-01T00:00:00.000Z', true]);
    const rows = await t.ctx.db.query<{ id: string; name: string; type: string; slug: string; spec: any; secrets: any; advanced_settings: any; state: string; deployment_status: string; last_deployment_at: Date | null; project_id: string }>(
      'select id, name, type, slug, spec, secrets, advanced_settings, state, deployment_status, last_deployment_at, project_id from services where environment_id = $1 order by name', [c.body.id]);
    assert.deepEqual(rows.map((r) => [r.name, r.type, r.state, r.deployment_status, r.last_deployment_at, r.project_id]),
      [['agent', 'AGENTIC_WORKFLOW', 'STOPPED', 'NEVER_DEPLOYED', null, pid], ['api', 'APPLICATION', 'STOPPED', 'NEVER_DEPLOYED', null, pid]]);
    assert.deepEqual(rows[1]!.spec, { cpu: 500 });
    assert.deepEqual(rows[0]!.advanced_settings, { 'hpa.cpu.average_utilization_percent': 70 });
    assert.notEqual(rows[0]!.secrets.api_key, sealed);
    assert.equal(t.ctx.sealer.open(rows[0]!.secrets.api_key), 'model-key');
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.from, src.body.id);
    assert.equal(calls[0]!.to, viaService.id);
    const copies = await t.ctx.db.query<{ id: string; name: string }>('select id, name from services where environment_id = $1 order by name', [viaService.id]);
    assert.deepEqual(new Map(calls[0]!.map), new Map([[a, copies[1]!.id], [w, copies[0]!.id]]));
    // the source is untouched
    const srcRows = await t.ctx.db.query<{ state: string }>('select state from services where id = $1', [w]);
    assert.equal(srcRows[0]!.state, 'RUNNING');
  });

  test('clone: defaults to the source mode and cluster; 400s; name clash 409; a failing step after the clone leaves nothing behind', async () => {
    const org = await seedOrganization(t);
    const pid = await project(org);
    const src = await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: { name: 'src', mode: 'PRODUCTION' } });
    await seedService(t, { organizationId: org.id, projectId: pid, id: src.body.id, clusterId: src.body.cluster_id, name: 'src' }, 'APPLICATION');
    const plain = await t.request('POST', `/environment/${src.body.id}/clone`, { token: org.token, body: { name: 'plain' } });
    assert.deepEqual([plain.body.mode, plain.body.cluster_id, plain.body.expires_at], ['PRODUCTION', src.body.cluster_id, null]);
    const other = await seedCluster(t, org.id);
    const moved = await t.request('POST', `/environment/${src.body.id}/clone`, { token: org.token, body: { name: 'moved', cluster: other } });
    assert.equal(moved.body.cluster_id, other);
    const clone = (body: object) => t.request('POST', `/environment/${src.body.id}/clone`, { token: org.token, body });
    const example = await clone(hierarchyExamples.cloneEnvironment);
    assert.equal(example.status, 202, example.raw);
    assert.deepEqual([example.body.name, example.body.mode, example.body.cluster_id],
      [hierarchyExamples.cloneEnvironment.name, hierarchyExamples.cloneEnvironment.mode, src.body.cluster_id]);
    assert.match(expectErrorBody(await clone({}), 400).message, /name is required/);
    assert.match(expectErrorBody(await clone({ name: 'x', mode: 'TEST' }), 400).message, /^mode/);
    assert.match(expectErrorBody(await clone({ name: 'x', cluster_id: UNKNOWN }), 400).message, /^cluster_id/);
    assert.match(expectErrorBody(await clone({ name: 'x', expires_at: 'tomorrow' }), 400).message, /^expires_at/);
    assert.match(expectErrorBody(await clone({ name: 'x', expires_at: '2000-01-01T00:00:00Z' }), 400).message, /expires_at must be in the future/);
    expectErrorBody(await clone({ name: 'PLAIN' }), 409);
    const failing = withAfterClone(async () => { throw new Error('after clone failed'); });
    await assert.rejects(failing.clone(await t.ctx.services.identity.authenticate(`Token ${org.token}`), src.body.id, { name: 'half' }), /after clone failed/);
    const half = await t.ctx.db.query('select id from environments where project_id = $1 and name = $2', [pid, 'half']);
    assert.equal(half.length, 0);
  });

  test('cloneForSystem makes a throwaway copy without a caller, inside a given transaction or its own', async () => {
    const org = await seedOrganization(t);
    const pid = await project(org);
    const src = await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: { name: 'wf-src' } });
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const own = await t.ctx.services.environments.cloneForSystem(undefined, src.body.id, { name: 'run-1', mode: 'PREVIEW', expiresAt });
    assert.deepEqual([own.mode, own.expires_at, own.cloned_from_id], ['PREVIEW', expiresAt, src.body.id]);
    const inTx = await t.ctx.db.transaction((tx) => t.ctx.services.environments.cloneForSystem(tx, src.body.id, { name: 'run-2' }));
    assert.equal(inTx.mode, 'DEVELOPMENT');
    const rule = await t.request('GET', `/environment/${inTx.id}/deploymentRule`, { token: org.token });
    assert.equal(rule.status, 200);
  });

  test('maintenance deletes a throwaway copy once its expires_at has passed, and only that', async () => {
    const org = await seedOrganization(t);
    const pid = await project(org);
    const src = await t.request('POST', `/project/${pid}/environment`, { token: org.token, body: { name: 'expiring-src' } });
    const copy = await t.request('POST', `/environment/${src.body.id}/clone`, { token: org.token, body: { name: 'expiring-copy', expires_at: new Date(Date.now() + 3_600_000).toISOString() } });
    assert.ok(copy.status < 300, copy.raw);
    const copyId = copy.body.id;
    const { runMaintenance } = await import('../../src/workers/maintenance.ts');
    await runMaintenance(t.ctx);
    assert.equal((await t.request('GET', `/environment/${copyId}`, { token: org.token })).status, 200, 'not expired yet');
    await t.ctx.db.query(`update environments set expires_at = now() - interval '1 minute' where id = $1`, [copyId]);
    const result = await runMaintenance(t.ctx);
    assert.ok(result.expiredEnvironments >= 1);
    assert.equal((await t.request('GET', `/environment/${copyId}`, { token: org.token })).status, 404);
    assert.equal((await t.request('GET', `/environment/${src.body.id}`, { token: org.token })).status, 200);
  });
});
