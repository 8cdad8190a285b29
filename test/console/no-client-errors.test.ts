// The console never causes an error answer on its own pages: every page (the organizations, each
// organization tab, a webhook, a project, an environment and a preview of it, each service type
// with its settings form, log and advanced settings, a deployment, an agentic workflow and its
// runs) is opened afresh in Chromium with data present, its forms opened, and every answer berth
// gives the page is recorded: none may be 400 or above (issue 36: the workflow page asked for
// `/organization//llmProvider` before it knew the organization). Nothing here provokes an error
// on purpose, so there is no exception to the rule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page, Request } from 'playwright-core';
import { eventually, seedOrganization, type SeededOrganization } from '../support/harness.ts';
import { browserSkipReason, ensureConsoleBuilt, launchChromium, startListeningBerth, type Chrome, type LiveBerth, signedInPage } from './browser.ts';
import { TRIAGE_RUN, recordRun } from './recorded-run.ts';

const skip = browserSkipReason();
const REPO = 'https://github.com/acme/storefront';

interface Answer { status: number; method: string; path: string }

describe('the console causes no error answer on its own pages', { skip: skip ?? false }, () => {
  let berth: LiveBerth;
  let chrome: Chrome;
  let page: Page;
  let org: SeededOrganization;
  const ids: Record<string, string> = {};
  /** every answer berth gave the page since the current visit began */
  const answers: Answer[] = [];
  /** the page's requests to berth still waiting for an answer (a stream counts as answered once its headers came) */
  const pending = new Set<Request>();
  const problems: string[] = [];

  const call = async (method: string, url: string, body?: unknown) => {
    const r = await berth.t.request(method, url, { token: org.token, ...(body !== undefined ? { body } : {}) });
    assert.ok(r.status < 300, `${method} ${url}: ${r.raw}`);
    return r.body;
  };
  const ours = (url: string) => url.startsWith(`${berth.base}/`);
  const button = (name: string) => page.getByRole('button', { name, exact: true });
  const heading = (name: string | RegExp) => page.getByRole('heading', { name, level: 1 });

  /** until no request of the page has been waiting for its answer for half a second */
  async function settle(): Promise<void> {
    const deadline = Date.now() + 15_000;
    let quietSince = Date.now();
    while (Date.now() - quietSince < 500) {
      if (Date.now() > deadline) throw new Error(`still unanswered: ${[...pending].map((r) => r.url()).join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
      if (pending.size > 0) quietSince = Date.now();
    }
  }

  /** opens `path` afresh (nothing cached), waits for its data, does `act`, and notes every error answer */
  async function visit(path: string, ready: () => Locator, act?: () => Promise<void>): Promise<Answer[]> {
    answers.length = 0;
    await page.goto(`${berth.base}${path}`);
    await ready().waitFor();
    await act?.();
    await settle();
    for (const a of answers.filter((x) => x.status >= 400)) problems.push(`on ${path}: ${a.method} ${a.path} answered ${a.status}`);
    return [...answers];
  }

  /** the problems noted since the last check, none expected */
  function assertNone(): void {
    const found = problems.splice(0);
    assert.deepEqual(found, [], `the console caused error answers:\n${found.join('\n')}`);
  }

  before(async () => {
    ensureConsoleBuilt();
    berth = await startListeningBerth({}, { simulated: { stepMs: 50 } });
    org = await seedOrganization(berth.t, `hooli-${Math.random().toString(36).slice(2, 8)}`);
    const o = `/organization/${org.id}`;
    ids.project = (await call('POST', `${o}/project`, { name: 'storefront', description: 'the shop' })).id;
    ids.env = (await call('POST', `/project/${ids.project}/environment`, { name: 'staging', mode: 'STAGING', auto_preview: true })).id;
    ids.registry = (await call('POST', `${o}/containerRegistry`, { name: 'hub', kind: 'DOCKER_HUB' })).id;
    ids.provider = (await call('POST', `${o}/llmProvider`, { name: 'anthropic', type: 'CLAUDE', credential: 'sk-ant-never-shown' })).id;
    await call('POST', `${o}/mcpServer`, { name: 'tools', url: 'https://mcp.example.com/tools' });
    await call('POST', `${o}/gitToken`, { name: 'github', type: 'GITHUB', token: 'ghp-never-shown' });
    await call('POST', `${o}/gitWebhook`);
    ids.hook = (await call('POST', `${o}/webhook`, { target_url: 'https://hooks.example.com/berth', events: ['DEPLOYMENT_FAILED'], description: 'ops' })).id;
    await call('POST', `${o}/inviteMember`, { email: 'grace@example.com', role: 'DEVOPS' });
    const env = `/environment/${ids.env}`;
    ids.application = (await call('POST', `${env}/application`, { name: 'web', git_repository: { url: `${REPO}.git`, branch: 'main' }, ports: [{ internal_port: 8080, publicly_accessible: true }] })).id;
    ids.container = (await call('POST', `${env}/container`, { name: 'cache', registry_id: ids.registry, image_name: 'redis', tag: '7', ports: [{ internal_port: 6379, publicly_accessible: false }] })).id;
    ids.database = (await call('POST', `${env}/database`, { name: 'orders-db', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER' })).id;
    ids.job = (await call('POST', `${env}/job`, { name: 'nightly', source: { image: { registry_id: ids.registry, image_name: 'alpine', tag: '3.20' } }, schedule: { cronjob: { scheduled_at: '0 3 * * *' } } })).id;
    ids.workflow = (await call('POST', `${env}/agenticWorkflow`, { name: 'triage', agent_prompt: 'Triage the alert.', model: { type: 'CLAUDE', llm_provider_id: ids.provider } })).id;
    await call('POST', `/project/${ids.project}/environmentVariable`, { key: 'REGION', value: 'eu' });
    await call('POST', `${env}/secret`, { key: 'API_KEY', value: 'never-shown' });
    await call('POST', `/application/${ids.application}/environmentVariable`, { key: 'PORT', value: '8080' });
    // a deployment and a run that went through the simulated engine, and a run as the Docker engine leaves one
    await call('POST', `/application/${ids.application}/deploy`);
    ids.deployment = (await call('GET', `/application/${ids.application}/deploymentHistoryV2`)).results[0].id;
    ids.run = (await call('POST', `/agenticWorkflow/${ids.workflow}/run`, { alert: 'disk full' })).id;
    await eventually(async () => (await call('GET', `/agenticWorkflow/${ids.workflow}/run/${ids.run}`)).finished_at, 20_000);
    await eventually(async () => (await call('GET', `/deployment/${ids.deployment}`)).finished, 20_000);
    ids.recordedRun = await recordRun(berth.t, { organizationId: org.id, projectId: ids.project, id: ids.env, clusterId: '', name: 'staging' }, ids.workflow, TRIAGE_RUN);
    const [opened] = await berth.t.ctx.services.previews.onPullRequest({
      provider: 'GITHUB', action: 'opened', title: 'New checkout', repositoryUrls: [REPO], baseBranch: 'main', author: 'octocat', organizationId: org.id,
      number: 5, headBranch: 'checkout', headCommit: 'c0ffee'.padEnd(40, '0'),
    });
    ids.preview = opened!.preview_environment_id!;

    chrome = await launchChromium();
    page = await signedInPage(chrome, org.token);
    page.on('request', (r) => { if (ours(r.url())) pending.add(r); });
    page.on('requestfailed', (r) => pending.delete(r));
    page.on('response', (r) => {
      pending.delete(r.request());
      if (ours(r.url())) answers.push({ status: r.status(), method: r.request().method(), path: r.url().slice(berth.base.length) });
    });
    page.on('pageerror', (err) => problems.push(`uncaught in the page: ${err.message}`));
  });
  after(async () => {
    await chrome?.close();
    await berth?.close();
  });

  test('the organizations, each organization tab and a webhook', async () => {
    await visit('/ui', () => page.getByRole('link', { name: org.name }));
    const tabs: Array<[string, string]> = [
      ['projects', 'storefront'], ['members', 'grace@example.com'], ['tokens', 'API tokens'], ['registries', 'hub'],
      ['git', 'github'], ['webhooks', 'ops'], ['llm', 'anthropic'], ['mcp', 'tools'],
    ];
    for (const [tab, shown] of tabs) await visit(`/ui/organizations/${org.id}/${tab}`, () => page.getByText(shown, { exact: true }).first());
    await visit(`/ui/organizations/${org.id}/webhooks/${ids.hook}`, () => page.getByText('DEPLOYMENT_FAILED', { exact: false }).first());
    assertNone();
  });

  test('a project, its environment with every kind of new service form, and a preview', async () => {
    await visit(`/ui/projects/${ids.project}`, () => page.getByRole('link', { name: 'staging', exact: true }), async () => {
      await button('New environment').click();
      await page.getByLabel('Cluster').waitFor();
    });
    await visit(`/ui/environments/${ids.env}`, () => page.locator('tr[data-service="triage"]').getByRole('link'), async () => {
      await button('New service').click();
      for (const kind of ['Application', 'Container', 'Database', 'Job', 'Agentic workflow']) {
        await page.getByLabel(kind, { exact: true }).check();
        await page.getByRole('button', { name: `Create ${kind.toLowerCase()}` }).waitFor();
      }
      await page.getByLabel('LLM provider').locator('option', { hasText: 'anthropic' }).waitFor({ state: 'attached' });
    });
    await visit(`/ui/environments/${ids.preview}`, () => page.getByRole('note', { name: 'Preview of a pull request' }).getByRole('link'));
    assertNone();
  });

  test('each service type: its page with the settings form and log open, and its advanced settings', async () => {
    for (const [kind, name] of [['application', 'web'], ['container', 'cache'], ['database', 'orders-db'], ['job', 'nightly']]) {
      await visit(`/ui/services/${kind}/${ids[kind]}`, () => heading(new RegExp(`^${name}`)), async () => {
        await button('Edit settings').click();
        await page.getByRole('form', { name: `Settings of ${name}` }).waitFor();
        await page.locator('summary', { hasText: 'Service log' }).click();
        await page.locator('pre[aria-label="Service log"]').waitFor();
      });
      if (kind !== 'database') await visit(`/ui/services/${kind}/${ids[kind]}/settings/advanced`, () => page.getByRole('link', { name }).first());
    }
    await visit(`/ui/deployments/${ids.deployment}`, () => heading(/^Deployment of web/));
    assertNone();
  });

  test('an agentic workflow, with its settings form, and its runs', async () => {
    const seen = await visit(`/ui/workflows/${ids.workflow}`, () => page.locator(`tr[data-run="${ids.recordedRun}"]`), async () => {
      await button('Edit settings').click();
      await page.getByRole('form', { name: 'Settings of triage' }).getByLabel('LLM provider').locator('option', { hasText: 'anthropic' }).waitFor({ state: 'attached' });
      await button('Run now').click();
      await page.getByLabel('Payload (JSON)').waitFor();
    });
    assert.ok(seen.some((a) => a.path === `/organization/${org.id}/llmProvider` && a.status === 200), 'the LLM providers are asked for once the organization is known');
    for (const run of [ids.run, ids.recordedRun]) {
      await visit(`/ui/workflows/${ids.workflow}/runs/${run}`, () => page.locator('pre[aria-label="Transcript"] .line').first());
    }
    assertNone();
  });
});
