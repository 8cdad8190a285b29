// The official Qovery TypeScript SDK (qovery-typescript-axios) as a client of a real listening
// berth: every family berth shares with Qovery, called the way the SDK calls it (bodiless
// actions as empty form-urlencoded POSTs, its own request shapes), and the members its types
// declare read back from each answer. What still differs is in docs/qovery-compatibility.md.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApplicationActionsApi, ApplicationConfigurationApi, ApplicationDeploymentHistoryApi, ApplicationEnvironmentVariableApi,
  ApplicationLogsApi, ApplicationMainCallsApi, ApplicationSecretApi, ApplicationsApi, ClustersApi, Configuration,
  ContainerActionsApi, ContainerMainCallsApi, OrganizationEventApi, ContainerRegistriesApi, ContainersApi, DatabaseActionsApi, DatabaseMainCallsApi,
  DatabasesApi, EnvironmentActionsApi, EnvironmentDeploymentHistoryApi, EnvironmentMainCallsApi, EnvironmentVariableApi,
  EnvironmentsApi, JobActionsApi, JobMainCallsApi, JobsApi, MembersApi, OrganizationApiTokenApi, OrganizationMainCallsApi,
  OrganizationWebhookApi, ProjectDeploymentRuleApi, ProjectEnvironmentVariableApi, ProjectMainCallsApi, ProjectSecretApi,
  ProjectsApi, VariableMainCallsApi,
} from 'qovery-typescript-axios';
import { seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';
import { startTestOidc, type TestOidc } from '../support/oidc.ts';

const NO_HEALTHCHECKS = {};

describe('the official Qovery TypeScript SDK against a listening berth', () => {
  let t: TestApp;
  let oidc: TestOidc;
  let org: SeededOrganization;
  let token: Configuration;
  let base: string;
  before(async () => {
    oidc = await startTestOidc();
    t = await startTestApp({ config: { oidcIssuer: oidc.issuer, oidcAudience: oidc.audience, oidcJwksUrl: oidc.jwksUrl } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const address = t.app.server.address();
    assert.ok(address && typeof address === 'object');
    base = `http://127.0.0.1:${address.port}`;
    org = await seedOrganization(t);
    token = new Configuration({ basePath: base, apiKey: `Token ${org.token}` });
  });
  after(async () => {
    await t.close();
    await oidc.close();
  });

  /** a project, a cluster and an environment made through the SDK */
  async function hierarchy(name: string) {
    const cluster = (await new ClustersApi(token).createCluster(org.id, { name: `c-${name}`, region: 'local', cloud_provider: 'ON_PREMISE' })).data;
    const project = (await new ProjectsApi(token).createProject(org.id, { name: `p-${name}` })).data;
    const env = (await new EnvironmentsApi(token).createEnvironment(project.id, { name: `e-${name}`, cluster: cluster.id, mode: 'DEVELOPMENT' })).data;
    return { cluster, project, env };
  }

  test('organizations, API tokens (role_id null) and members with an invitation accepted by a user', async () => {
    const orgs = new OrganizationMainCallsApi(token);
    assert.equal((await orgs.getOrganization(org.id)).data.id, org.id);
    const edited = (await orgs.editOrganization(org.id, { name: org.name, description: 'through the SDK' })).data;
    assert.equal(edited.description, 'through the SDK');

    const tokens = new OrganizationApiTokenApi(token);
    const created = await tokens.createOrganizationApiToken(org.id, { name: 'sdk token', role_id: null });
    assert.equal(created.status, 201);
    assert.equal(created.data.role_name, 'Viewer');
    assert.ok(created.data.token);
    assert.ok((await tokens.listOrganizationApiTokens(org.id)).data.results?.some((x) => x.id === created.data.id));
    assert.equal((await tokens.deleteOrganizationApiToken(org.id, created.data.id)).status, 204);

    const alice = await oidc.sign({ sub: 'sdk-alice', email: 'alice.sdk@example.com', name: 'Alice' });
    const bob = await oidc.sign({ sub: 'sdk-bob', email: 'bob.sdk@example.com', name: 'Bob' });
    const aliceOrg = (await new OrganizationMainCallsApi(new Configuration({ basePath: base, accessToken: alice })).createOrganization({ name: 'sdk-alice-org', plan: 'FREE' })).data;
    const asAlice = new MembersApi(new Configuration({ basePath: base, accessToken: alice }));
    const invite = (await asAlice.postInviteMember(aliceOrg.id, { email: 'bob.sdk@example.com', role: 'DEVELOPER' })).data;
    assert.equal(invite.email, 'bob.sdk@example.com');
    assert.equal((await asAlice.getOrganizationInvitedMembers(aliceOrg.id)).data.results?.length, 1);
    // the SDK sends this action with no body and `content-type: application/x-www-form-urlencoded`
    const accepted = await new MembersApi(new Configuration({ basePath: base, accessToken: bob })).postAcceptInviteMember(aliceOrg.id, invite.id);
    assert.ok(accepted.status === 200 || accepted.status === 201);
    const members = (await asAlice.getOrganizationMembers(aliceOrg.id)).data.results ?? [];
    assert.deepEqual(members.map((m) => m.email).sort(), ['alice.sdk@example.com', 'bob.sdk@example.com']);
  });

  test('clusters with advanced settings, registries, projects, environments and deployment rules', async () => {
    const { cluster, project, env } = await hierarchy('infra');
    const clusters = new ClustersApi(token);
    assert.ok((await clusters.listOrganizationCluster(org.id)).data.results?.some((c) => c.id === cluster.id));
    assert.equal((await clusters.getClusterStatus(org.id, cluster.id)).data.cluster_id, cluster.id);
    const settings = (await clusters.getClusterAdvancedSettings(org.id, cluster.id)).data;
    assert.equal(settings['database.postgresql.deny_any_access'], false);
    const changed = await clusters.editClusterAdvancedSettings(org.id, cluster.id, { 'loki.log_retention_in_week': 4 });
    assert.equal(changed.status, 201);
    assert.equal(changed.data['loki.log_retention_in_week'], 4);
    assert.equal((await clusters.getClusterAdvancedSettings(org.id, cluster.id)).data['loki.log_retention_in_week'], 4);

    const registries = new ContainerRegistriesApi(token);
    const registry = (await registries.createContainerRegistry(org.id, { name: 'sdk-hub', kind: 'DOCKER_HUB', url: 'https://docker.io', config: {} })).data;
    assert.equal(registry.kind, 'DOCKER_HUB');
    assert.ok((await registries.listContainerRegistry(org.id)).data.results?.some((r) => r.id === registry.id));

    assert.equal((await new ProjectMainCallsApi(token).getProject(project.id)).data.name, 'p-infra');
    const gotEnv = (await new EnvironmentMainCallsApi(token).getEnvironment(env.id)).data;
    assert.equal(gotEnv.mode, 'DEVELOPMENT');
    const rules = new ProjectDeploymentRuleApi(token);
    const rule = (await rules.createDeploymentRule(project.id, {
      name: 'office hours', mode: 'DEVELOPMENT', cluster_id: cluster.id, timezone: 'Europe/Paris', start_time: '1970-01-01T08:00:00.000Z',
      stop_time: '1970-01-01T19:00:00.000Z', weekdays: ['MONDAY', 'TUESDAY'], wildcard: 'dev-*', auto_stop: false,
    })).data;
    assert.deepEqual(rule.weekdays, ['MONDAY', 'TUESDAY']);
    assert.equal((await rules.listProjectDeploymentRules(project.id)).data.results?.length, 1);
  });

  test('applications: create, status, links, advanced settings, every action, histories and logs', async () => {
    const { env } = await hierarchy('apps');
    const created = (await new ApplicationsApi(token).createApplication(env.id, {
      name: 'web', git_repository: { url: 'https://github.com/acme/web', branch: 'main', provider: 'GITHUB' }, healthchecks: NO_HEALTHCHECKS,
      ports: [{ internal_port: 8080, publicly_accessible: true, protocol: 'HTTP' }],
    })).data;
    const main = new ApplicationMainCallsApi(token);
    assert.equal((await main.getApplication(created.id)).data.name, 'web');
    const links = (await main.listApplicationLinks(created.id)).data.results ?? [];
    assert.ok(links.length >= 1);
    assert.equal(links[0]!.internal_port, 8080);
    assert.match(links[0]!.url, new RegExp(`^http://web-[0-9a-f]{8}\\.${t.config.ingressDomain}`));
    assert.equal(links[0]!.service_id, created.id);

    const config = new ApplicationConfigurationApi(token);
    assert.equal(typeof (await config.getAdvancedSettings(created.id)).data['deployment.termination_grace_period_seconds'], 'number');
    const edited = await config.editAdvancedSettings(created.id, { 'deployment.termination_grace_period_seconds': 45 } as never);
    assert.equal(edited.data['deployment.termination_grace_period_seconds'], 45);

    const actions = new ApplicationActionsApi(token);
    const deployed = await actions.deployApplication(created.id);
    assert.equal(deployed.status, 202);
    assert.equal(deployed.data.id && (deployed.data as unknown as { status: string }).status, 'QUEUED');
    for (const call of [() => actions.redeployApplication(created.id), () => actions.rebootApplication(created.id), () => actions.stopApplication(created.id)]) {
      assert.equal((await call()).status, 202);
    }
    const status = (await main.getApplicationStatus(created.id)).data;
    assert.equal(status.id, created.id);
    assert.ok(status.state);

    const history = new ApplicationDeploymentHistoryApi(token);
    const v1 = (await history.listApplicationDeploymentHistory(created.id)).data;
    assert.equal(v1.page, 1);
    assert.equal(v1.results?.length, 4);
    const v2 = (await history.listApplicationDeploymentHistoryV2(created.id, 2)).data;
    assert.deepEqual([v2.page, v2.page_size, v2.results?.length], [1, 2, 2]);
    const logs = (await new ApplicationLogsApi(token).listApplicationLog(created.id)).data;
    assert.ok(Array.isArray(logs.results));
  });

  test('containers, databases and jobs: every action the SDK sends without a body', async () => {
    const { env } = await hierarchy('others');
    const registry = (await new ContainerRegistriesApi(token).createContainerRegistry(org.id, { name: 'sdk-hub-2', kind: 'DOCKER_HUB', url: 'https://docker.io', config: {} })).data;
    const container = (await new ContainersApi(token).createContainer(env.id, {
      name: 'cache', registry_id: registry.id, image_name: 'library/redis', tag: '7', healthchecks: NO_HEALTHCHECKS,
      ports: [{ internal_port: 6379, publicly_accessible: false, protocol: 'TCP' }],
    })).data;
    const containerActions = new ContainerActionsApi(token);
    for (const call of [
      () => containerActions.deployContainer(container.id), () => containerActions.redeployContainer(container.id),
      () => containerActions.rebootContainer(container.id), () => containerActions.stopContainer(container.id),
    ]) assert.equal((await call()).status, 202);
    const containerMain = new ContainerMainCallsApi(token);
    assert.deepEqual((await containerMain.listContainerLinks(container.id)).data.results, [], 'a private port has no public link');
    assert.equal((await containerMain.getContainerStatus(container.id)).data.id, container.id);

    const database = (await new DatabasesApi(token).createDatabase(env.id, { name: 'db', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER' })).data;
    const dbActions = new DatabaseActionsApi(token);
    for (const call of [
      () => dbActions.deployDatabase(database.id), () => dbActions.redeployDatabase(database.id),
      () => dbActions.rebootDatabase(database.id), () => dbActions.stopDatabase(database.id),
    ]) assert.equal((await call()).status, 202);
    assert.equal((await new DatabaseMainCallsApi(token).getDatabaseStatus(database.id)).data.id, database.id);

    const job = (await new JobsApi(token).createJob(env.id, {
      name: 'nightly', healthchecks: NO_HEALTHCHECKS,
      source: { image: { image_name: 'acme/report', tag: '1', registry_id: registry.id } },
      schedule: { cronjob: { scheduled_at: '0 3 * * *' } },
    })).data;
    const jobActions = new JobActionsApi(token);
    for (const call of [() => jobActions.deployJob(job.id), () => jobActions.redeployJob(job.id), () => jobActions.stopJob(job.id)]) {
      assert.equal((await call()).status, 202);
    }
    assert.equal((await new JobMainCallsApi(token).getJobStatus(job.id)).data.id, job.id);
  });

  test('environments: actions without a body, status, statuses and deployment history', async () => {
    const { env } = await hierarchy('envs');
    const app = (await new ApplicationsApi(token).createApplication(env.id, {
      name: 'api', git_repository: { url: 'https://github.com/acme/api', provider: 'GITHUB' }, healthchecks: NO_HEALTHCHECKS,
    })).data;
    const main = new EnvironmentMainCallsApi(token);
    const before = (await main.getEnvironmentStatus(env.id)).data;
    assert.deepEqual([before.id, before.state, before.deployment_status], [env.id, 'READY', 'NEVER_DEPLOYED']);

    const actions = new EnvironmentActionsApi(token);
    for (const call of [() => actions.deployEnvironment(env.id), () => actions.redeployEnvironment(env.id), () => actions.stopEnvironment(env.id)]) {
      assert.equal((await call()).status, 202);
    }
    const status = (await main.getEnvironmentStatus(env.id)).data;
    assert.equal(status.id, env.id);
    assert.ok(status.last_deployment_id);
    const statuses = (await main.getEnvironmentStatuses(env.id)).data;
    assert.equal(statuses.environment.id, env.id);
    assert.deepEqual(statuses.applications.map((s) => [s.id, s.is_part_last_deployment]), [[app.id, true]]);
    assert.deepEqual([statuses.containers, statuses.databases, statuses.jobs, statuses.helms, statuses.terraforms], [[], [], [], [], []]);
    const history = (await new EnvironmentDeploymentHistoryApi(token).listEnvironmentDeploymentHistoryV2(env.id)).data;
    assert.equal(history.page, 1);
    assert.equal(history.results?.length, 3);
    assert.equal((await actions.uninstallEnvironment(env.id)).status, 202);
  });

  test('variables and secrets at each scope, with aliases and overrides', async () => {
    const { project, env } = await hierarchy('vars');
    const app = (await new ApplicationsApi(token).createApplication(env.id, {
      name: 'worker', git_repository: { url: 'https://github.com/acme/worker', provider: 'GITHUB' }, healthchecks: NO_HEALTHCHECKS,
    })).data;
    const projectVar = (await new ProjectEnvironmentVariableApi(token).createProjectEnvironmentVariable(project.id, { key: 'REGION', value: 'eu' })).data;
    await new ProjectSecretApi(token).createProjectSecret(project.id, { key: 'TOKEN', value: 's3cret' });
    await new EnvironmentVariableApi(token).createEnvironmentEnvironmentVariable(env.id, { key: 'LEVEL', value: 'debug' });
    const appVars = new ApplicationEnvironmentVariableApi(token);
    const own = (await appVars.createApplicationEnvironmentVariable(app.id, { key: 'PORT', value: '8080' })).data;
    assert.equal(own.scope, 'APPLICATION');
    const alias = (await appVars.createApplicationEnvironmentVariableAlias(app.id, projectVar.id, { key: 'AWS_REGION' })).data;
    assert.equal(alias.aliased_variable?.key, 'REGION');
    const override = (await appVars.createApplicationEnvironmentVariableOverride(app.id, projectVar.id, { value: 'us' })).data;
    assert.equal(override.overridden_variable?.key, 'REGION');
    const secret = (await new ApplicationSecretApi(token).createApplicationSecret(app.id, { key: 'API_KEY', value: 'hidden' })).data;
    assert.equal((secret as unknown as { value?: unknown }).value ?? null, null, 'secrets are never returned');
    const listed = (await appVars.listApplicationEnvironmentVariable(app.id)).data.results ?? [];
    assert.ok(listed.some((v) => v.key === 'LEVEL' && v.scope === 'ENVIRONMENT'));
    const all = (await new VariableMainCallsApi(token).listVariables(app.id, 'APPLICATION')).data.results ?? [];
    assert.ok(all.some((v) => v.key === 'PORT'));
  });

  test('organization webhooks', async () => {
    const hooks = new OrganizationWebhookApi(token);
    const created = await hooks.createOrganizationWebhook(org.id, {
      kind: 'STANDARD', target_url: 'https://hooks.example.com/sdk', events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCESSFUL'], enabled: true,
    });
    assert.equal(created.status, 201);
    // berth answers with the seed's names of the same events (docs/qovery-compatibility.md)
    assert.deepEqual(created.data.events, ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED']);
    assert.ok((await hooks.listOrganizationWebHooks(org.id)).data.results?.some((h) => h.id === created.data.id));
  });

  test('the audit log reads as getOrganizationEvents, filtered and paged', async () => {
    const api = new OrganizationEventApi(token);
    const page = (await api.getOrganizationEvents(org.id, 3)).data;
    assert.equal(page.events?.length, 3);
    assert.ok(page.links?.next);
    const e = page.events![0]!;
    assert.ok(e.id && e.timestamp && e.event_type && e.target_type && e.triggered_by && e.origin);
    const continueToken = new URL(page.links!.next!, base).searchParams.get('continueToken')!;
    const next = (await api.getOrganizationEvents(org.id, 3, undefined, undefined, continueToken)).data;
    assert.notEqual(next.events![0]!.id, e.id);
    const deploys = (await api.getOrganizationEvents(org.id, 100, undefined, undefined, undefined, undefined, 'TRIGGER_DEPLOY', 'APPLICATION')).data;
    assert.ok((deploys.events ?? []).length >= 1);
    assert.ok(deploys.events!.every((x) => x.event_type === 'TRIGGER_DEPLOY' && x.target_type === 'APPLICATION'));
  });
});
