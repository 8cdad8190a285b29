// How variables combine: overrides and aliases across scopes, precedence (service > environment >
// project), built-ins and secrets in the effective list, secrets never echoed nor stored in clear,
// deployed services made OUT_OF_DATE, the renderer's resolveEffectiveVariables and the clone copy.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { seedEnvironment, seedService, type SeededEnvironment } from '../support/factories.ts';
import { copyVariables, resolveEffectiveVariables } from '../../src/modules/variables/variables.service.ts';

describe('variable resolution', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(() => t.close());

  const post = (url: string, body: unknown) => t.request('POST', url, { token: org.token, body });
  const effective = async (id: string, scope = 'APPLICATION') => {
    const r = await t.request('GET', `/variable/effective?parent_id=${id}&scope=${scope}`, { token: await org.tokenFor('VIEWER') });
    assert.equal(r.status, 200, r.raw);
    return { raw: r.raw, map: Object.fromEntries(r.body.results.map((x: { key: string }) => [x.key, x])) as Record<string, Record<string, unknown>> };
  };

  test('precedence: service > environment > project for the same key', async () => {
    const app = await seedService(t, env, 'APPLICATION', {}, 'prec-app');
    const sibling = await seedService(t, env, 'CONTAINER', {}, 'prec-sibling');
    await post(`/project/${env.projectId}/environmentVariable`, { key: 'LEVEL', value: 'project' });
    await post(`/environment/${env.id}/environmentVariable`, { key: 'LEVEL', value: 'environment' });
    await post(`/application/${app}/environmentVariable`, { key: 'LEVEL', value: 'service' });
    const mine = await effective(app);
    assert.equal(mine.map.LEVEL!.value, 'service');
    assert.equal(mine.map.LEVEL!.scope, 'APPLICATION');
    const theirs = await effective(sibling, 'CONTAINER');
    assert.equal(theirs.map.LEVEL!.value, 'environment');
    assert.equal(theirs.map.LEVEL!.scope, 'ENVIRONMENT');
    const envLevel = await effective(env.id, 'ENVIRONMENT');
    assert.equal(envLevel.map.LEVEL!.value, 'environment');
    assert.equal(envLevel.map.BERTH_SERVICE_ID, undefined, 'no built-ins outside services');
    const list = await t.request('GET', `/application/${app}/environmentVariable`, { token: org.token });
    assert.deepEqual(list.body.results.filter((x: { key: string }) => x.key === 'LEVEL').map((x: { scope: string }) => x.scope), ['PROJECT', 'ENVIRONMENT', 'APPLICATION']);
  });

  test('override: same key, new value, only at a lower scope; its key cannot change; it goes with its variable', async () => {
    const env2 = await seedEnvironment(t, org);
    const app = await seedService(t, env2, 'APPLICATION');
    const base = await post(`/project/${env2.projectId}/environmentVariable`, { key: 'DB_HOST', value: 'db.project' });
    const envOverride = await post(`/environment/${env2.id}/environmentVariable/${base.body.id}/override`, { value: 'db.env' });
    assert.equal(envOverride.status, 201, envOverride.raw);
    assert.equal(envOverride.body.key, 'DB_HOST');
    assert.equal(envOverride.body.variable_type, 'OVERRIDE');
    assert.equal(envOverride.body.scope, 'ENVIRONMENT');
    assert.equal(envOverride.body.overridden_variable.id, base.body.id);
    assert.equal(envOverride.body.overridden_variable.value, 'db.project');
    assert.equal((await effective(app)).map.DB_HOST!.value, 'db.env');
    const appOverride = await post(`/application/${app}/environmentVariable/${base.body.id}/override`, { value: 'db.app' });
    assert.equal(appOverride.status, 201);
    assert.equal((await effective(app)).map.DB_HOST!.value, 'db.app');
    // same scope, or from below, is refused
    assert.match(expectErrorBody(await post(`/project/${env2.projectId}/environmentVariable/${base.body.id}/override`, { value: 'x' }), 400).message, /higher scope/);
    const appVar = await post(`/application/${app}/environmentVariable`, { key: 'APP_ONLY', value: 'a' });
    assert.match(expectErrorBody(await post(`/environment/${env2.id}/environmentVariable/${appVar.body.id}/override`, { value: 'x' }), 400).message, /higher scope/);
    // twice at the same scope: the key is taken
    expectErrorBody(await post(`/application/${app}/environmentVariable/${base.body.id}/override`, { value: 'again' }), 409);
    expectErrorBody(await t.request('PUT', `/application/${app}/environmentVariable/${appOverride.body.id}`, { token: org.token, body: { key: 'RENAMED' } }), 400);
    const revalued = await t.request('PUT', `/application/${app}/environmentVariable/${appOverride.body.id}`, { token: org.token, body: { key: 'DB_HOST', value: 'db.app2' } });
    assert.equal(revalued.body.value, 'db.app2');
    // through /variable with override_scope/override_parent_id
    const app2 = await seedService(t, env2, 'JOB');
    const generic = await post(`/variable/${base.body.id}/override`, { value: 'db.job', override_scope: 'JOB', override_parent_id: app2 });
    assert.equal(generic.status, 201, generic.raw);
    assert.equal((await effective(app2, 'JOB')).map.DB_HOST!.value, 'db.job');
    // deleting the variable deletes its overrides
    assert.equal((await t.request('DELETE', `/project/${env2.projectId}/environmentVariable/${base.body.id}`, { token: org.token })).status, 204);
    assert.equal((await effective(app)).map.DB_HOST, undefined);
    expectErrorBody(await t.request('PUT', `/variable/${appOverride.body.id}`, { token: org.token, body: { key: 'DB_HOST' } }), 404);
  });

  test('alias: new key with the value of an existing variable, at the same or a lower scope; follows overrides; never of an alias', async () => {
    const env3 = await seedEnvironment(t, org);
    const app = await seedService(t, env3, 'APPLICATION');
    const base = await post(`/environment/${env3.id}/environmentVariable`, { key: 'PG_URL', value: 'postgres://env' });
    const sameScope = await post(`/environment/${env3.id}/environmentVariable/${base.body.id}/alias`, { key: 'DATABASE_URL' });
    assert.equal(sameScope.status, 201, sameScope.raw);
    assert.equal(sameScope.body.variable_type, 'ALIAS');
    assert.equal(sameScope.body.value, 'postgres://env');
    assert.equal(sameScope.body.aliased_variable.key, 'PG_URL');
    const appAlias = await post(`/application/${app}/environmentVariable/${base.body.id}/alias`, { key: 'DB' });
    assert.equal(appAlias.status, 201);
    let eff = await effective(app);
    assert.equal(eff.map.DB!.value, 'postgres://env');
    assert.equal(eff.map.DB!.variable_type, 'ALIAS');
    // an override of the aliased key at the service flows into its aliases
    await post(`/application/${app}/environmentVariable/${base.body.id}/override`, { value: 'postgres://app' });
    eff = await effective(app);
    assert.equal(eff.map.DB!.value, 'postgres://app');
    assert.equal(eff.map.DATABASE_URL!.value, 'postgres://app');
    assert.match(expectErrorBody(await post(`/application/${app}/environmentVariable/${appAlias.body.id}/alias`, { key: 'DB2' }), 400).message, /alias of an alias/);
    assert.match(expectErrorBody(await post(`/application/${app}/environmentVariable/${appAlias.body.id}/override`, { value: 'x' }), 400).message, /override an alias/);
    const appVar = await post(`/application/${app}/environmentVariable`, { key: 'LOCAL', value: 'l' });
    assert.match(expectErrorBody(await post(`/environment/${env3.id}/environmentVariable/${appVar.body.id}/alias`, { key: 'UP' }), 400).message, /higher scope/);
    assert.match(expectErrorBody(await post(`/application/${app}/environmentVariable/${base.body.id}/alias`, { key: 'QOVERY_DB' }), 400).message, /reserved/);
    expectErrorBody(await post(`/application/${app}/environmentVariable/${base.body.id}/alias`, { key: 'LOCAL' }), 409);
    expectErrorBody(await t.request('PUT', `/application/${app}/environmentVariable/${appAlias.body.id}`, { token: org.token, body: { key: 'DB', value: 'x' } }), 400);
    const renamed = await t.request('PUT', `/application/${app}/environmentVariable/${appAlias.body.id}`, { token: org.token, body: { key: 'DB_ALIAS' } });
    assert.equal(renamed.body.key, 'DB_ALIAS');
    // through /variable
    const generic = await post(`/variable/${base.body.id}/alias`, { key: 'GENERIC_DB', alias_scope: 'APPLICATION', alias_parent_id: app });
    assert.equal(generic.status, 201, generic.raw);
    assert.equal((await effective(app)).map.GENERIC_DB!.value, 'postgres://app');
    // a variable of another organization is not found
    const other = await seedOrganization(t);
    const otherEnv = await seedEnvironment(t, other);
    expectErrorBody(await t.request('POST', `/environment/${otherEnv.id}/environmentVariable/${base.body.id}/alias`, { token: other.token, body: { key: 'STOLEN' } }), 404);
  });

  test('effective list: built-ins from the spec, secrets with is_secret and no value, secret aliases stay secret', async () => {
    const app = await seedService(t, env, 'APPLICATION', { ports: [{ internal_port: 8080, external_port: 443, protocol: 'HTTP', publicly_accessible: true }] }, 'Web Front');
    const secret = await post(`/application/${app}/secret`, { key: 'STRIPE_KEY', value: 'sk-effective-secret' });
    await post(`/application/${app}/secret/${secret.body.id}/alias`, { key: 'PAYMENT_KEY' });
    const { map, raw } = await effective(app);
    assert.equal(map.BERTH_SERVICE_NAME!.value, 'Web Front');
    assert.equal(map.BERTH_SERVICE_ID!.value, app);
    assert.equal(map.BERTH_ENVIRONMENT_ID!.value, env.id);
    assert.equal(map.BERTH_PROJECT_ID!.value, env.projectId);
    assert.equal(map.BERTH_SERVICE_HOST!.value, `web-front.${env.id.slice(0, 8)}.svc`);
    assert.equal(map.BERTH_SERVICE_PORT!.value, '8080');
    assert.equal(map.BERTH_SERVICE_PORT!.scope, 'BUILT_IN');
    assert.equal(map.STRIPE_KEY!.is_secret, true);
    assert.equal(map.STRIPE_KEY!.value, null);
    assert.equal(map.PAYMENT_KEY!.is_secret, true);
    assert.equal(map.PAYMENT_KEY!.value, null);
    assert.ok(!raw.includes('sk-effective-secret'));
    // the renderer's function opens them
    const rendered = await resolveEffectiveVariables(t.ctx.db, t.ctx.sealer, app);
    const byKey = Object.fromEntries(rendered.map((x) => [x.key, x]));
    assert.equal(byKey.STRIPE_KEY!.value, 'sk-effective-secret');
    assert.equal(byKey.PAYMENT_KEY!.value, 'sk-effective-secret');
    assert.equal(byKey.PAYMENT_KEY!.is_secret, true);
    assert.equal(byKey.BERTH_SERVICE_PORT!.value, '8080');
  });

  test('a secret is never echoed (create, list, edit, alias, override, effective, /variable) and never stored in clear', async () => {
    const app = await seedService(t, env, 'CONTAINER');
    const values = ['plain-secret-AAA', 'plain-secret-BBB', 'plain-secret-CCC', 'plain-secret-DDD', 'plain-secret-EEE'];
    const replies: string[] = [];
    const keep = <R extends { raw: string; status: number }>(r: R): R => { replies.push(r.raw); assert.ok(r.status < 300, r.raw); return r; };
    const project = keep(await post(`/project/${env.projectId}/secret`, { key: 'P_SECRET', value: values[0] }));
    const created = keep(await post(`/container/${app}/secret`, { key: 'C_SECRET', value: values[1], mount_path: '/run/secrets/c' }));
    keep(await t.request('PUT', `/container/${app}/secret/${created.body.id}`, { token: org.token, body: { key: 'C_SECRET', value: values[2] } }));
    keep(await post(`/container/${app}/secret/${project.body.id}/override`, { value: values[3] }));
    keep(await post(`/container/${app}/secret/${project.body.id}/alias`, { key: 'P_ALIAS' }));
    keep(await post('/variable', { key: 'G_SECRET', value: values[4], is_secret: true, variable_scope: 'CONTAINER', variable_parent_id: app }));
    keep(await t.request('GET', `/container/${app}/secret`, { token: org.token }));
    keep(await t.request('GET', `/container/${app}/environmentVariable`, { token: org.token }));
    keep(await t.request('GET', `/variable?parent_id=${app}&scope=CONTAINER`, { token: org.token }));
    keep(await t.request('GET', `/variable/effective?parent_id=${app}&scope=CONTAINER`, { token: org.token }));
    keep(await t.request('GET', `/project/${env.projectId}/secret`, { token: org.token }));
    for (const raw of replies) for (const v of values) assert.ok(!raw.includes(v), `a reply echoed a secret: ${raw.slice(0, 200)}`);
    const dump = await t.ctx.db.query<{ row: string }>('select row_to_json(v)::text as row from variables v where organization_id = $1', [org.id]);
    assert.ok(dump.length >= 5);
    for (const { row } of dump) for (const v of values) assert.ok(!row.includes(v), `stored in clear: ${row}`);
    const rendered = Object.fromEntries((await resolveEffectiveVariables(t.ctx.db, t.ctx.sealer, app)).map((x) => [x.key, x]));
    assert.equal(rendered.C_SECRET!.value, values[2]);
    assert.equal(rendered.C_SECRET!.mount_path, '/run/secrets/c');
    assert.equal(rendered.P_SECRET!.value, values[3], 'the override wins');
    assert.equal(rendered.P_ALIAS!.value, values[3]);
  });

  test('a change makes deployed services of the scope OUT_OF_DATE, in the same transaction; never-deployed ones stay', async () => {
    const env4 = await seedEnvironment(t, org);
    const a = await seedService(t, env4, 'APPLICATION');
    const b = await seedService(t, env4, 'JOB');
    const c = await seedService(t, env4, 'CONTAINER');
    const status = async (id: string) => (await t.ctx.db.query<{ s: string }>('select deployment_status as s from services where id = $1', [id]))[0]!.s;
    const deploy = (...ids: string[]) => t.ctx.db.query(`update services set deployment_status = 'UP_TO_DATE' where id = any($1::uuid[])`, [ids]);
    await deploy(a, b);
    await post(`/application/${a}/environmentVariable`, { key: 'ONLY_A', value: '1' });
    assert.equal(await status(a), 'OUT_OF_DATE');
    assert.equal(await status(b), 'UP_TO_DATE');
    assert.equal(await status(c), 'NEVER_DEPLOYED');
    await deploy(a, b);
    const envVar = await post(`/environment/${env4.id}/secret`, { key: 'ENV_S', value: 's' });
    assert.equal(await status(a), 'OUT_OF_DATE');
    assert.equal(await status(b), 'OUT_OF_DATE');
    assert.equal(await status(c), 'NEVER_DEPLOYED');
    await deploy(a, b);
    await t.request('DELETE', `/environment/${env4.id}/secret/${envVar.body.id}`, { token: org.token });
    assert.equal(await status(b), 'OUT_OF_DATE');
    await deploy(a, b);
    await post(`/project/${env4.projectId}/environmentVariable`, { key: 'PROJECT_WIDE', value: 'p' });
    assert.equal(await status(a), 'OUT_OF_DATE');
    assert.equal(await status(b), 'OUT_OF_DATE');
    await deploy(a);
    // a refused write changes nothing
    expectErrorBody(await post(`/application/${a}/environmentVariable`, { key: 'ONLY_A', value: '2' }), 409);
    assert.equal(await status(a), 'UP_TO_DATE');
  });

  test('copyVariables: a clone gets the environment and service variables, secrets sealed again, derivations re-pointed', async () => {
    const src = await seedEnvironment(t, org);
    const app = await seedService(t, src, 'APPLICATION');
    const projectVar = await post(`/project/${src.projectId}/environmentVariable`, { key: 'SHARED', value: 'p' });
    const envVar = await post(`/environment/${src.id}/environmentVariable`, { key: 'E', value: 'e' });
    await post(`/environment/${src.id}/secret`, { key: 'E_SECRET', value: 'clone-secret' });
    await post(`/application/${app}/environmentVariable/${envVar.body.id}/alias`, { key: 'E_ALIAS' });
    await post(`/application/${app}/environmentVariable/${projectVar.body.id}/override`, { value: 'app' });
    // the clone: same project, a copy of the service
    const clone = (await t.ctx.db.query<{ id: string }>(
      `insert into environments (organization_id, project_id, cluster_id, name, mode) values ($1, $2, $3, 'clone-of', 'DEVELOPMENT') returning id`,
      [org.id, src.projectId, src.clusterId]))[0]!.id;
    const cloneApp = await seedService(t, { ...src, id: clone }, 'APPLICATION');
    const copied = await t.ctx.db.transaction((tx) => copyVariables(tx, t.ctx.sealer, { fromEnvironmentId: src.id, toEnvironmentId: clone, serviceIdMap: new Map([[app, cloneApp]]) }));
    assert.equal(copied, 4);
    const before = Object.fromEntries((await resolveEffectiveVariables(t.ctx.db, t.ctx.sealer, app)).map((x) => [x.key, x.value]));
    const afterCopy = Object.fromEntries((await resolveEffectiveVariables(t.ctx.db, t.ctx.sealer, cloneApp)).map((x) => [x.key, x.value]));
    for (const key of ['SHARED', 'E', 'E_SECRET', 'E_ALIAS']) assert.equal(afterCopy[key], before[key], key);
    assert.equal(afterCopy.E_SECRET, 'clone-secret');
    const sealed = await t.ctx.db.query<{ environment_id: string; value_sealed: string }>(`select environment_id, value_sealed from variables where key = 'E_SECRET' and environment_id = any($1::uuid[])`, [[src.id, clone]]);
    assert.equal(sealed.length, 2);
    assert.notEqual(sealed[0]!.value_sealed, sealed[1]!.value_sealed);
    const alias = await t.ctx.db.query<{ target_env: string }>(
      `select t.environment_id as target_env from variables v join variables t on t.id = v.target_id where v.key = 'E_ALIAS' and v.service_id = $1`, [cloneApp]);
    assert.equal(alias[0]!.target_env, clone, 'the alias points at the copy');
  });
  test('POST /environment/{id}/clone copies the variables through the clone hook (secrets readable in the copy)', async () => {
    const src = await seedEnvironment(t, org);
    const app = await seedService(t, src, 'APPLICATION', {}, 'cloned-app');
    await post(`/environment/${src.id}/environmentVariable`, { key: 'CLONE_ENV', value: 'e' });
    await post(`/application/${app}/secret`, { key: 'CLONE_SECRET', value: 'clone-hook-secret' });
    const c = await t.request('POST', `/environment/${src.id}/clone`, { token: org.token, body: { name: `clone-${src.name}` } });
    assert.equal(c.status, 202, c.raw);
    const copyApp = (await t.ctx.db.query<{ id: string }>('select id from services where environment_id = $1', [c.body.id]))[0]!.id;
    const rendered = Object.fromEntries((await resolveEffectiveVariables(t.ctx.db, t.ctx.sealer, copyApp)).map((x) => [x.key, x.value]));
    assert.equal(rendered.CLONE_ENV, 'e');
    assert.equal(rendered.CLONE_SECRET, 'clone-hook-secret');
    const listed = await t.request('GET', `/application/${copyApp}/secret`, { token: org.token });
    assert.deepEqual(listed.body.results.map((x: { key: string }) => x.key), ['CLONE_SECRET']);
  });
});
