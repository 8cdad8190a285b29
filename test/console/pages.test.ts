// The rest of the console's pages in Chromium, as an admin uses them: API tokens (shown once),
// members, container registries, containers and jobs from their forms, LLM providers and MCP
// connectors (credentials never shown back), an organization webhook with its deliveries and
// redeliver, and an agentic workflow with its incoming webhook URL, next scheduled run and runs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { seedOrganization, type SeededOrganization } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { browserSkipReason, ensureConsoleBuilt, launchChromium, screenshot, startListeningBerth, type Chrome, type LiveBerth, signedInPage } from './browser.ts';

const skip = browserSkipReason();
const CREDENTIAL = `sk-ant-${Math.random().toString(36).slice(2)}-never-shown`;

describe('the console\'s organization and workflow pages', { skip: skip ?? false }, () => {
  let berth: LiveBerth;
  let chrome: Chrome;
  let page: Page;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let receiver: Server;
  let receiverUrl = '';
  let received = 0;

  before(async () => {
    ensureConsoleBuilt();
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => { received += 1; res.end('ok'); });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/berth`;
    berth = await startListeningBerth({}, { webhooks: true });
    org = await seedOrganization(berth.t, `globex-${Math.random().toString(36).slice(2, 8)}`);
    env = await seedEnvironment(berth.t, org);
    chrome = await launchChromium();
    page = await signedInPage(chrome, org.token);
  });
  after(async () => {
    await chrome?.close();
    await berth?.close();
    await new Promise((r) => receiver?.close(r));
  });

  const button = (name: string) => page.getByRole('button', { name, exact: true });
  const tab = async (name: string) => {
    await page.goto(`${berth.base}/ui/organizations/${org.id}`);
    await page.getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { name, exact: true }).waitFor();
  };

  test('API tokens: a new token is shown once, then only its name and role', async () => {
    await tab('API tokens');
    await button('New API token').click();
    await page.getByLabel('Name', { exact: true }).fill('deploy-bot');
    await page.getByLabel('Role').selectOption('DEVOPS');
    await button('Create token').click();
    const shown = page.locator('.secret-once');
    await shown.waitFor();
    const token = (await shown.innerText()).trim();
    assert.ok(token.length >= 32);
    const works = await berth.t.request('GET', '/organization', { token });
    assert.equal(works.status, 200, 'the token shown is a working one');
    await button('I have copied it').click();
    await page.getByRole('cell', { name: 'deploy-bot' }).waitFor();
    assert.ok(!(await page.content()).includes(token), 'not shown again');
    await screenshot(page, 'api-tokens');
  });

  test('members: the empty state says what to expect; an invitation is sent and withdrawn', async () => {
    await tab('Members');
    await page.getByText('No member has signed in').waitFor();
    await page.getByText('No pending invitation').waitFor();
    await button('Invite someone').click();
    await page.getByLabel('Email').fill('grace@example.com');
    await page.getByLabel('Role').selectOption('DEVOPS');
    await button('Send invitation').click();
    const row = page.getByRole('row', { name: /grace@example\.com/ });
    await row.waitFor();
    assert.match(await row.innerText(), /DevOps/i);
    await row.getByRole('button', { name: 'Withdraw' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Withdraw' }).click();
    await page.getByText('No pending invitation').waitFor();
  });

  test('LLM providers and MCP connectors: created, listed, credential never shown', async () => {
    await tab('LLM providers');
    await page.getByText('No LLM provider yet').waitFor();
    await button('New LLM provider').click();
    await page.getByLabel('Name', { exact: true }).fill('anthropic');
    await page.getByLabel('Type').selectOption('CLAUDE');
    await page.getByLabel('Credential').fill(CREDENTIAL);
    await button('Create provider').click();
    await page.getByText('credential set (never shown)').waitFor();
    assert.ok(!(await page.content()).includes(CREDENTIAL));

    await tab('MCP connectors');
    await button('New MCP connector').click();
    await page.getByLabel('Name', { exact: true }).fill('github-tools');
    await page.getByLabel('URL').fill('https://mcp.example.com/github');
    await button('Create connector').click();
    await page.getByText('https://mcp.example.com/github').waitFor();
  });

  test('a container registry, then a container and a cron job pulling from it', async () => {
    await tab('Container registries');
    await page.getByText('No container registry yet').waitFor();
    await button('New registry').click();
    await page.getByLabel('Name', { exact: true }).fill('docker-hub');
    await page.getByLabel('Kind').selectOption('DOCKER_HUB');
    await button('Create registry').click();
    await page.getByText('no credentials: public images').waitFor();

    await page.goto(`${berth.base}/ui/environments/${env.id}`);
    await button('New service').click();
    await page.getByLabel('Container', { exact: true }).check();
    await page.getByLabel('Name', { exact: true }).fill('cache');
    await page.getByLabel('Container registry').selectOption({ label: 'docker-hub (DOCKER_HUB)' });
    await page.getByLabel('Image name').fill('redis');
    await page.getByLabel('Tag').fill('7');
    await button('Create container').click();
    await page.getByRole('heading', { name: /^cache/ }).waitFor();

    await page.goto(`${berth.base}/ui/environments/${env.id}`);
    await button('New service').click();
    await page.getByLabel('Job', { exact: true }).check();
    await page.getByLabel('Name', { exact: true }).fill('nightly-report');
    await page.getByLabel('Container registry').selectOption({ label: 'docker-hub (DOCKER_HUB)' });
    await page.getByLabel('Image name').fill('alpine');
    await page.getByLabel('Tag').fill('3.20');
    await page.getByLabel('Cron schedule (a cron job)').fill('0 3 * * *');
    await button('Create job').click();
    await page.getByRole('heading', { name: /^nightly-report/ }).waitFor();
  });

  test('webhooks: a test ping shows as a delivery with its attempts, and can be redelivered', async () => {
    await tab('Webhooks');
    await page.getByText('No webhook yet').waitFor();
    await button('New webhook').click();
    await page.getByLabel('Target URL').fill(receiverUrl);
    await page.getByLabel('Events (comma-separated)').fill('DEPLOYMENT_STARTED, DEPLOYMENT_FAILED');
    await page.getByLabel('Description').fill('ops channel');
    await button('Create webhook').click();
    const secret = (await page.locator('.secret-once').innerText()).trim();
    assert.match(secret, /^whsec_/, 'the generated signing secret, shown once');
    await button('I have copied it').click();
    assert.ok(!(await page.content()).includes(secret));
    await page.getByRole('link', { name: 'ops channel' }).click();
    await page.getByText('Nothing delivered yet').waitFor();
    await button('Send a test ping').click();
    const delivery = page.locator('details.card').first();
    await delivery.waitFor();
    await page.locator('details.card summary', { hasText: /1 attempt/ }).waitFor({ timeout: 15_000 });
    await delivery.locator('summary').click();
    await delivery.getByRole('cell', { name: '200' }).waitFor({ timeout: 15_000 });
    const before = received;
    await delivery.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Redeliver' }).click();
    for (let i = 0; i < 100 && received === before; i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(received > before, 'the receiver got the event again');
    await screenshot(page, 'webhook');
  });

  test('agentic workflow: created from the environment, with its webhook URL, next run and runs', async () => {
    await page.goto(`${berth.base}/ui/environments/${env.id}`);
    await button('New service').click();
    await page.getByLabel('Agentic workflow').check();
    await page.getByLabel('Name', { exact: true }).fill('triage-bot');
    await page.getByLabel('Model').selectOption('CLAUDE');
    await page.getByLabel('LLM provider').selectOption({ label: 'anthropic (CLAUDE)' });
    await page.getByLabel('Cron schedule').fill('*/1 * * * *');
    await page.getByLabel('Time zone').fill('Etc/UTC');
    await button('Create agentic workflow').click();
    // more often than every 5 minutes: the API's message next to the field
    const fieldError = page.locator('.field.invalid .field-error');
    await fieldError.waitFor();
    assert.match(await page.locator('.field.invalid label').innerText(), /Cron schedule/);
    await page.getByLabel('Cron schedule').fill('0 * * * *');
    await button('Create agentic workflow').click();
    await page.getByRole('heading', { name: /^triage-bot/ }).waitFor();
    const hookUrl = (await page.locator('dt:text("Incoming webhook") + dd').innerText()).trim();
    assert.match(hookUrl, /\/agenticWorkflow\/[0-9a-f-]{36}\/hook\//);
    assert.match(await page.locator('dt:text("Schedule") + dd').innerText(), /0 \* \* \* \* \(Etc\/UTC\) · next run \d/);
    await page.getByText('No run yet').waitFor();
    const hit = await fetch(berth.base + new URL(hookUrl).pathname, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"issue": 42}' });
    assert.equal(hit.status, 202);
    // a webhook run is listed (the picture of the workflow page, with runs that ran, is taken in workflow-runs.test.ts)
    await page.locator('section[aria-label="Runs"] tbody tr').first().waitFor({ timeout: 10_000 });
    // an edit sends only what changed: the model and its provider stay as they were
    await button('Edit settings').click();
    const form = page.getByRole('form', { name: 'Settings of triage-bot' });
    assert.equal(await form.getByLabel('Cron schedule').inputValue(), '0 * * * *');
    await form.getByLabel('Agent prompt').fill('Label new issues');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    const workflowId = new URL(page.url()).pathname.split('/').pop()!;
    const saved = await berth.t.request('GET', `/agenticWorkflow/${workflowId}`, { token: org.token });
    assert.equal(saved.body.agent_prompt, 'Label new issues');
    assert.equal(saved.body.model.type, 'CLAUDE');
    assert.ok(saved.body.model.llm_provider_id, 'the provider is still attached');
    assert.equal(saved.body.schedule.cron_expression, '0 * * * *');
    // and it is listed among the environment's services, next to a database made from its form
    await page.goto(`${berth.base}/ui/environments/${env.id}`);
    await button('New service').click();
    await page.getByLabel('Database').check();
    await page.getByLabel('Name', { exact: true }).fill('orders-db');
    await page.getByLabel('Type').selectOption('POSTGRESQL');
    await page.getByLabel('Version').fill('16');
    await page.getByLabel('Mode').selectOption('CONTAINER');
    await button('Create database').click();
    await page.getByRole('heading', { name: /^orders-db/ }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Variables and secrets' }).count(), 0, 'databases have no variables of their own');
    await page.goto(`${berth.base}/ui/environments/${env.id}`);
    await page.locator('tr[data-service="triage-bot"]').getByRole('link', { name: 'triage-bot' }).click();
    await page.getByRole('heading', { name: /^triage-bot/ }).waitFor();
  });
});
