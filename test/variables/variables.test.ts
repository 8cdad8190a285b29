// Variables and secrets through the API: create/list/edit/delete at every parent kind (per-parent
// routes and /variable), validation (400), who may write (401/403), unknown or mistyped parents
// (404), duplicate keys (409).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, seedService, type SeededEnvironment } from '../support/factories.ts';
import { variableExamples as ex } from '../../src/http/examples/variables.ts';

const UNKNOWN = '00000000-0000-4000-8000-0000000000ff';

describe('variables', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  const ids: Record<string, string> = {};
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    ids.project = env.projectId;
    ids.environment = env.id;
    ids.application = await seedService(t, env, 'APPLICATION', { ports: [{ internal_port: 8080 }] });
    ids.container = await seedService(t, env, 'CONTAINER');
    ids.job = await seedService(t, env, 'JOB');
    ids.workflow = await seedService(t, env, 'AGENTIC_WORKFLOW');
  });
  after(() => t.close());

  const SCOPES: Record<string, string> = { project: 'PROJECT', environment: 'ENVIRONMENT', application: 'APPLICATION', container: 'CONTAINER', job: 'JOB' };

  for (const kind of ['project', 'environment', 'application', 'container', 'job']) {
    test(`${kind}: create, list, edit and delete an environment variable and a secret`, async () => {
      const base = `/${kind}/${ids[kind]}`;
      const key = `K_${kind.toUpperCase()}`;
      const created = await t.request('POST', `${base}/environmentVariable`, { token: org.token, body: { ...ex.createEnvironmentVariable, key } });
      assert.equal(created.status, 201, created.raw);
      assert.equal(created.body.key, key);
      assert.equal(created.body.value, ex.createEnvironmentVariable.value);
      assert.equal(created.body.scope, SCOPES[kind]);
      assert.equal(created.body.variable_type, 'VALUE');
      assert.equal(created.body.mount_path, null);
      assert.equal(created.body.overridden_variable, null);
      assert.equal(created.body.service_id, ['project', 'environment'].includes(kind) ? null : ids[kind]);
      const list = await t.request('GET', `${base}/environmentVariable`, { token: await org.tokenFor('VIEWER') });
      assert.equal(list.status, 200);
      assert.ok(list.body.results.some((x: { id: string }) => x.id === created.body.id));
      assert.ok(list.body.pagination.total_count >= 1);
      const edit = ex.editEnvironmentVariable;
      const edited = await t.request('PUT', `${base}/environmentVariable/${created.body.id}`, { token: await org.tokenFor('DEVOPS'), body: { ...edit, key } });
      assert.equal(edited.status, 200, edited.raw);
      assert.equal(edited.body.value, edit.value);
      assert.equal(edited.body.description, edit.description);
      const renamed = await t.request('PUT', `${base}/environmentVariable/${created.body.id}`, { token: org.token, body: { key: `${key}_2` } });
      assert.equal(renamed.body.key, `${key}_2`);
      assert.equal(renamed.body.value, edit.value, 'omitted value is kept');
      assert.equal(renamed.body.description, edit.description);

      const secret = await t.request('POST', `${base}/secret`, { token: org.token, body: { key: `S_${kind.toUpperCase()}`, value: `hush-${kind}-1` } });
      assert.equal(secret.status, 201, secret.raw);
      assert.equal('value' in secret.body, false);
      const secrets = await t.request('GET', `${base}/secret`, { token: org.token });
      assert.ok(secrets.body.results.some((x: { id: string }) => x.id === secret.body.id));
      assert.ok(!(await t.request('GET', `${base}/environmentVariable`, { token: org.token })).body.results.some((x: { id: string }) => x.id === secret.body.id), 'secrets are not in the variable list');
      const secretEdited = await t.request('PUT', `${base}/secret/${secret.body.id}`, { token: org.token, body: { key: secret.body.key, value: `hush-${kind}-2` } });
      assert.equal(secretEdited.status, 200);
      assert.ok(!secretEdited.raw.includes('hush-'));
      // a secret is not reachable through the variable routes and vice versa
      expectErrorBody(await t.request('PUT', `${base}/environmentVariable/${secret.body.id}`, { token: org.token, body: { key: 'X' } }), 404);
      expectErrorBody(await t.request('DELETE', `${base}/secret/${created.body.id}`, { token: org.token }), 404);

      assert.equal((await t.request('DELETE', `${base}/environmentVariable/${created.body.id}`, { token: org.token })).status, 204);
      assert.equal((await t.request('DELETE', `${base}/secret/${secret.body.id}`, { token: org.token })).status, 204);
      expectErrorBody(await t.request('DELETE', `${base}/environmentVariable/${created.body.id}`, { token: org.token }), 404);
    });
  }

  test('the seed shapes: POST /application/{id}/environmentVariable and /secret with {key, value}, GET the list (also under /api/v1)', async () => {
    const app = await seedService(t, env, 'APPLICATION');
    assert.equal((await t.request('POST', `/application/${app}/environmentVariable`, { token: org.token, body: { key: 'PORT', value: '3000' } })).status, 201);
    assert.equal((await t.request('POST', `/application/${app}/secret`, { token: org.token, body: { key: 'API_KEY', value: 'seed-secret' } })).status, 201);
    const list = await t.request('GET', `/api/v1/application/${app}/environmentVariable`, { token: org.token });
    assert.deepEqual(list.body.results.filter((x: { scope: string }) => x.scope === 'APPLICATION').map((x: { key: string; value: string }) => [x.key, x.value]), [['PORT', '3000']]);
  });

  test('the reference\'s examples as they are: variables and secrets of an environment, their overrides and aliases in an application, an import, /variable', async () => {
    const own = await seedEnvironment(t, org);
    const app = await seedService(t, own, 'APPLICATION');
    const post = (url: string, body: unknown) => t.request('POST', url, { token: org.token, body });
    const created = async (url: string, body: unknown) => {
      const r = await post(url, body);
      assert.equal(r.status, 201, `${url}: ${r.raw}`);
      return r.body;
    };
    const variable = await created(`/environment/${own.id}/environmentVariable`, ex.createEnvironmentVariable);
    const edited = await t.request('PUT', `/environment/${own.id}/environmentVariable/${variable.id}`, { token: org.token, body: ex.editEnvironmentVariable });
    assert.equal(edited.status, 200, edited.raw);
    const override = await created(`/application/${app}/environmentVariable/${variable.id}/override`, ex.createEnvironmentVariableOverride);
    const alias = await created(`/application/${app}/environmentVariable/${variable.id}/alias`, ex.createEnvironmentVariableAlias);
    const secret = await created(`/environment/${own.id}/secret`, ex.createSecret);
    const secretEdited = await t.request('PUT', `/environment/${own.id}/secret/${secret.id}`, { token: org.token, body: ex.editSecret });
    assert.equal(secretEdited.status, 200, secretEdited.raw);
    await created(`/application/${app}/secret/${secret.id}/override`, ex.createSecretOverride);
    await created(`/application/${app}/secret/${secret.id}/alias`, ex.createSecretAlias);
    const effective = await t.request('GET', `/variable/effective?parent_id=${app}&scope=APPLICATION`, { token: org.token });
    const map = Object.fromEntries(effective.body.results.map((x: { key: string; value: string | null }) => [x.key, x.value]));
    assert.equal(map[ex.createEnvironmentVariable.key], ex.createEnvironmentVariableOverride.value);
    assert.equal(map[ex.createEnvironmentVariableAlias.key], ex.createEnvironmentVariableOverride.value);
    assert.equal(map[ex.createSecretAlias.key], null, 'a secret alias stays secret');
    for (const value of [ex.createSecret.value, ex.editSecret.value, ex.createSecretOverride.value]) assert.ok(!effective.raw.includes(value));
    assert.deepEqual([override.variable_type, alias.variable_type], ['OVERRIDE', 'ALIAS']);

    // the generic routes: the examples name an application by a placeholder id, here this one
    const generic = await created('/variable', { ...ex.createVariable, variable_scope: 'ENVIRONMENT', variable_parent_id: own.id });
    const genericEdit = await t.request('PUT', `/variable/${generic.id}`, { token: org.token, body: ex.editVariable });
    assert.equal(genericEdit.body.value, ex.editVariable.value);
    await created(`/variable/${generic.id}/alias`, { ...ex.createVariableAlias, alias_parent_id: app });
    await created(`/variable/${generic.id}/override`, { ...ex.createVariableOverride, override_parent_id: app });
    const after = await t.request('GET', `/variable/effective?parent_id=${app}&scope=APPLICATION`, { token: org.token });
    const values = Object.fromEntries(after.body.results.map((x: { key: string; value: string | null }) => [x.key, x.value]));
    assert.deepEqual([values[ex.createVariable.key], values[ex.createVariableAlias.key]], [ex.createVariableOverride.value, ex.createVariableOverride.value]);

    const other = await seedService(t, own, 'APPLICATION');
    const imported = await created(`/application/${other}/environmentVariable/import`, ex.importApplication);
    assert.equal(imported.successful_imported_variables.length, ex.importApplication.vars.length);
  });

  test('agentic workflow (and any scope) through /variable: create, list, edit, delete; secrets have value null', async () => {
    const wf = ids.workflow!;
    const created = await t.request('POST', '/variable', { token: org.token, body: { key: 'WF_MODE', value: 'fast', is_secret: false, variable_scope: 'AGENTIC_WORKFLOW', variable_parent_id: wf } });
    assert.equal(created.status, 201, created.raw);
    assert.equal(created.body.scope, 'AGENTIC_WORKFLOW');
    assert.equal(created.body.is_secret, false);
    assert.equal(created.body.value, 'fast');
    const secret = await t.request('POST', '/variable', { token: org.token, body: { key: 'WF_TOKEN', value: 'wf-secret-value', is_secret: true, variable_scope: 'AGENTIC_WORKFLOW', variable_parent_id: wf } });
    assert.equal(secret.status, 201);
    assert.equal(secret.body.value, null);
    assert.equal(secret.body.is_secret, true);
    const list = await t.request('GET', `/variable?parent_id=${wf}&scope=AGENTIC_WORKFLOW`, { token: org.token });
    assert.deepEqual(list.body.results.filter((x: { scope: string }) => x.scope === 'AGENTIC_WORKFLOW').map((x: { key: string }) => x.key).sort(), ['WF_MODE', 'WF_TOKEN']);
    assert.ok(!list.raw.includes('wf-secret-value'));
    const onlySecrets = await t.request('GET', `/variable?parent_id=${wf}&scope=AGENTIC_WORKFLOW&is_secret=true`, { token: org.token });
    assert.deepEqual(onlySecrets.body.results.map((x: { key: string }) => x.key), ['WF_TOKEN']);
    const edited = await t.request('PUT', `/variable/${created.body.id}`, { token: org.token, body: { key: 'WF_MODE', value: 'slow' } });
    assert.equal(edited.body.value, 'slow');
    assert.equal((await t.request('DELETE', `/variable/${created.body.id}`, { token: org.token })).status, 204);
    // environment scope through /variable too
    const envVar = await t.request('POST', '/variable', { token: org.token, body: { key: 'ENV_WIDE', value: 'x', is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: env.id } });
    assert.equal(envVar.body.scope, 'ENVIRONMENT');
    const seen = await t.request('GET', `/variable?parent_id=${wf}&scope=AGENTIC_WORKFLOW`, { token: org.token });
    assert.ok(seen.body.results.some((x: { key: string }) => x.key === 'ENV_WIDE'), 'a service sees the variables of its environment');
  });

  test('400: bad key, reserved prefix, too long, missing value, bad mount_path, unknown scope', async () => {
    const url = `/application/${ids.application}/environmentVariable`;
    const post = (body: unknown) => t.request('POST', url, { token: org.token, body });
    assert.match(expectErrorBody(await post({ key: '1ABC', value: 'x' }), 400).message, /start with a letter/);
    assert.match(expectErrorBody(await post({ key: 'A-B', value: 'x' }), 400).message, /letters, digits and underscores/);
    assert.match(expectErrorBody(await post({ key: '', value: 'x' }), 400).message, /key/);
    assert.match(expectErrorBody(await post({ key: 'QOVERY_HOST', value: 'x' }), 400).message, /reserved/);
    assert.match(expectErrorBody(await post({ key: 'BERTH_X', value: 'x' }), 400).message, /reserved/);
    assert.match(expectErrorBody(await post({ key: 'A'.repeat(256), value: 'x' }), 400).message, /at most 255/);
    assert.equal((await post({ key: 'L' + 'A'.repeat(254), value: 'x' })).status, 201, '255 characters are fine');
    assert.equal(expectErrorBody(await post({ key: 'NOVALUE' }), 400).message, 'value is required');
    assert.match(expectErrorBody(await post({ key: 'NUM', value: 3 }), 400).message, /^value /);
    assert.match(expectErrorBody(await post({ value: 'x' }), 400).message, /key is required/);
    assert.match(expectErrorBody(await post({ key: 'F1', value: 'x', mount_path: 'etc/app.conf' }), 400).message, /absolute/);
    assert.match(expectErrorBody(await post({ key: 'F2', value: 'x', mount_path: '/etc/../app.conf' }), 400).message, /\.\./);
    assert.match(expectErrorBody(await post({ key: 'F3', value: 'x', mount_path: '/etc/' }), 400).message, /trailing/);
    assert.match(expectErrorBody(await t.request('POST', `/application/${ids.application}/secret`, { token: org.token, body: { key: 'F4', value: 'x', mount_path: 'rel' } }), 400).message, /absolute/);
    const file = await post({ key: 'CONFIG_FILE', value: 'a: 1', mount_path: '/etc/app/config.yaml' });
    assert.equal(file.status, 201);
    assert.equal(file.body.variable_type, 'FILE');
    assert.equal(file.body.mount_path, '/etc/app/config.yaml');
    const edited = await t.request('PUT', `${url}/${file.body.id}`, { token: org.token, body: { key: 'CONFIG_FILE', mount_path: 'nope' } });
    assert.match(expectErrorBody(edited, 400).message, /absolute/);
    const unfiled = await t.request('PUT', `${url}/${file.body.id}`, { token: org.token, body: { key: 'CONFIG_FILE', mount_path: null } });
    assert.equal(unfiled.body.variable_type, 'VALUE');
    const renamedBad = await t.request('PUT', `${url}/${file.body.id}`, { token: org.token, body: { key: 'QOVERY_NOPE' } });
    assert.match(expectErrorBody(renamedBad, 400).message, /reserved/);
    const badScope = await t.request('POST', '/variable', { token: org.token, body: { key: 'X', value: 'x', is_secret: false, variable_scope: 'BUILT_IN', variable_parent_id: env.id } });
    assert.match(expectErrorBody(badScope, 400).message, /variable_scope must be one of/);
    expectErrorBody(await t.request('GET', `/variable?parent_id=${env.id}`, { token: org.token }), 400);
  });

  test('401 without a token; 403 for a VIEWER writing and for another organization', async () => {
    const url = `/environment/${env.id}/environmentVariable`;
    expectErrorBody(await t.request('GET', url), 401);
    const viewer = await org.tokenFor('VIEWER');
    assert.equal((await t.request('GET', url, { token: viewer })).status, 200);
    expectErrorBody(await t.request('POST', url, { token: viewer, body: { key: 'V', value: 'x' } }), 403);
    expectErrorBody(await t.request('POST', `/project/${env.projectId}/secret`, { token: viewer, body: { key: 'V', value: 'x' } }), 403);
    const mine = await t.request('POST', url, { token: org.token, body: { key: 'GUARDED', value: 'x' } });
    expectErrorBody(await t.request('PUT', `${url}/${mine.body.id}`, { token: viewer, body: { key: 'GUARDED', value: 'y' } }), 403);
    expectErrorBody(await t.request('DELETE', `${url}/${mine.body.id}`, { token: viewer }), 403);
    expectErrorBody(await t.request('PUT', `/variable/${mine.body.id}`, { token: viewer, body: { key: 'GUARDED', value: 'y' } }), 403);
    expectErrorBody(await t.request('POST', '/variable', { token: viewer, body: { key: 'W', value: 'x', is_secret: true, variable_scope: 'AGENTIC_WORKFLOW', variable_parent_id: ids.workflow } }), 403);
    const other = await seedOrganization(t);
    expectErrorBody(await t.request('GET', url, { token: other.token }), 403);
    expectErrorBody(await t.request('POST', `/application/${ids.application}/secret`, { token: other.token, body: { key: 'X', value: 'x' } }), 403);
    expectErrorBody(await t.request('GET', `/project/${env.projectId}/environmentVariable`, { token: other.token }), 403);
    expectErrorBody(await t.request('DELETE', `/variable/${mine.body.id}`, { token: other.token }), 403);
    expectErrorBody(await t.request('GET', `/variable/effective?parent_id=${ids.application}&scope=APPLICATION`, { token: other.token }), 403);
  });

  test('404: unknown parent, parent of the wrong type, unknown variable, a variable of another parent', async () => {
    assert.equal(expectErrorBody(await t.request('GET', `/application/${UNKNOWN}/environmentVariable`, { token: org.token }), 404).message, 'Application not found');
    assert.equal(expectErrorBody(await t.request('POST', `/application/${ids.job}/environmentVariable`, { token: org.token, body: { key: 'A', value: 'b' } }), 404).message, 'Application not found');
    assert.equal(expectErrorBody(await t.request('GET', `/job/${ids.container}/secret`, { token: org.token }), 404).message, 'Job not found');
    assert.equal(expectErrorBody(await t.request('GET', `/container/${ids.application}/environmentVariable`, { token: org.token }), 404).message, 'Container not found');
    assert.equal(expectErrorBody(await t.request('GET', `/project/${UNKNOWN}/environmentVariable`, { token: org.token }), 404).message, 'Project not found');
    assert.equal(expectErrorBody(await t.request('POST', `/environment/${UNKNOWN}/secret`, { token: org.token, body: { key: 'A', value: 'b' } }), 404).message, 'Environment not found');
    assert.equal(expectErrorBody(await t.request('POST', '/variable', { token: org.token, body: { key: 'A', value: 'b', is_secret: false, variable_scope: 'AGENTIC_WORKFLOW', variable_parent_id: ids.application } }), 404).message, 'Agentic workflow not found');
    assert.equal(expectErrorBody(await t.request('GET', `/variable?parent_id=${ids.job}&scope=APPLICATION`, { token: org.token }), 404).message, 'Application not found');
    expectErrorBody(await t.request('PUT', `/variable/${UNKNOWN}`, { token: org.token, body: { key: 'A' } }), 404);
    expectErrorBody(await t.request('DELETE', `/job/${ids.job}/environmentVariable/${UNKNOWN}`, { token: org.token }), 404);
    const onContainer = await t.request('POST', `/container/${ids.container}/environmentVariable`, { token: org.token, body: { key: 'MINE', value: 'x' } });
    expectErrorBody(await t.request('PUT', `/job/${ids.job}/environmentVariable/${onContainer.body.id}`, { token: org.token, body: { key: 'MINE', value: 'y' } }), 404);
  });

  test('409: a duplicate key at the same scope (variables and secrets share keys); keys are case-sensitive', async () => {
    const url = `/container/${ids.container}`;
    assert.equal((await t.request('POST', `${url}/environmentVariable`, { token: org.token, body: { key: 'DUP', value: '1' } })).status, 201);
    assert.equal(expectErrorBody(await t.request('POST', `${url}/environmentVariable`, { token: org.token, body: { key: 'DUP', value: '2' } }), 409).message, 'Variable already exists: DUP');
    expectErrorBody(await t.request('POST', `${url}/secret`, { token: org.token, body: { key: 'DUP', value: '2' } }), 409);
    assert.equal((await t.request('POST', `${url}/environmentVariable`, { token: org.token, body: { key: 'Dup', value: '3' } })).status, 201, 'another letter case is another key');
    assert.equal((await t.request('POST', `/environment/${env.id}/environmentVariable`, { token: org.token, body: { key: 'DUP', value: 'env' } })).status, 201, 'the same key at another scope is fine');
    const other = await t.request('POST', `${url}/environmentVariable`, { token: org.token, body: { key: 'OTHER', value: '1' } });
    expectErrorBody(await t.request('PUT', `${url}/environmentVariable/${other.body.id}`, { token: org.token, body: { key: 'DUP' } }), 409);
    // an environment being deleted takes no new variables (its services neither)
    const doomed = await seedEnvironment(t, org);
    const doomedApp = await seedService(t, doomed, 'APPLICATION');
    await t.ctx.db.query('update environments set deleting = true where id = $1', [doomed.id]);
    assert.equal(expectErrorBody(await t.request('POST', `/environment/${doomed.id}/environmentVariable`, { token: org.token, body: { key: 'LATE', value: '1' } }), 409).message, 'The environment is being deleted: nothing in it can change');
    expectErrorBody(await t.request('POST', `/application/${doomedApp}/secret`, { token: org.token, body: { key: 'LATE', value: '1' } }), 409);
    assert.equal((await t.request('GET', `/application/${doomedApp}/secret`, { token: org.token })).status, 200);
  });
  test('import: into a service and the scopes above it; existing keys skipped or overwritten (never secrets); one bad entry writes nothing', async () => {
    const ienv = await seedEnvironment(t, org);
    const app = await seedService(t, ienv, 'APPLICATION');
    const url = `/application/${app}/environmentVariable/import`;
    await t.ctx.db.query(`update services set deployment_status = 'UP_TO_DATE' where id = $1`, [app]);
    const r = await t.request('POST', url, { token: org.token, body: { vars: [
      { name: 'I_APP', value: 'a', scope: 'APPLICATION', is_secret: false },
      { name: 'I_ENV', value: 'e', scope: 'ENVIRONMENT', is_secret: false },
      { name: 'I_PROJECT', value: 'p', scope: 'PROJECT', is_secret: false },
      { name: 'I_SECRET', value: 'imported-secret-value', scope: 'APPLICATION', is_secret: true },
    ] } });
    assert.equal(r.status, 201, r.raw);
    assert.equal(r.body.total_variables_to_import, 4);
    assert.equal(r.body.successful_imported_variables.length, 4);
    assert.ok(!r.raw.includes('imported-secret-value'));
    const status = await t.ctx.db.query<{ s: string }>('select deployment_status as s from services where id = $1', [app]);
    assert.equal(status[0]!.s, 'OUT_OF_DATE');
    const eff = await t.request('GET', `/variable/effective?parent_id=${app}&scope=APPLICATION`, { token: org.token });
    const map = Object.fromEntries(eff.body.results.map((x: { key: string; scope: string; value: string }) => [x.key, [x.scope, x.value]]));
    assert.deepEqual([map.I_APP, map.I_ENV, map.I_PROJECT, map.I_SECRET], [['APPLICATION', 'a'], ['ENVIRONMENT', 'e'], ['PROJECT', 'p'], ['APPLICATION', null]]);
    const again = [{ name: 'I_APP', value: 'a2', scope: 'APPLICATION', is_secret: false }, { name: 'I_SECRET', value: 'x', scope: 'APPLICATION', is_secret: false }];
    assert.equal((await t.request('POST', url, { token: org.token, body: { vars: again } })).body.successful_imported_variables.length, 0, 'existing keys are skipped');
    const over = await t.request('POST', `/variable/import?service_id=${app}&service_type=APPLICATION`, { token: org.token, body: { vars: again, overwrite: true } });
    assert.equal(over.status, 201, over.raw);
    assert.deepEqual(over.body.successful_imported_variables.map((x: { name: string }) => x.name), ['I_APP'], 'a secret is never overwritten');
    const bad = await t.request('POST', url, { token: org.token, body: { vars: [{ name: 'OK_ONE', value: '1', scope: 'APPLICATION', is_secret: false }, { name: 'QOVERY_X', value: '1', scope: 'APPLICATION', is_secret: false }] } });
    assert.match(expectErrorBody(bad, 400).message, /vars\[1\]\.name: .*reserved/);
    assert.match(expectErrorBody(await t.request('POST', url, { token: org.token, body: { vars: [{ name: 'J', value: '1', scope: 'JOB', is_secret: false }] } }), 400).message, /vars\[0\]\.scope/);
    const none = await t.ctx.db.query(`select 1 from variables where key = 'OK_ONE'`);
    assert.equal(none.length, 0);
    expectErrorBody(await t.request('POST', url, { token: await org.tokenFor('VIEWER'), body: { vars: [] } }), 403);
    expectErrorBody(await t.request('POST', `/job/${app}/environmentVariable/import`, { token: org.token, body: { vars: [] } }), 404);
  });
});
