// berth.yaml in the console (issue 41), in Chromium against a listening berth: the environment's
// "Export as berth.yaml" downloads the file (the schema comment, the service); the project's apply
// page takes a changed copy, plans it (an update row with its fields from → to, the rest folded as
// unchanged), and "Confirm apply" stores the change (read back through the API); an `env:NAME`
// reference gets a value input and a refusal without it lists the problem with its line and column;
// a bad document lists every problem as `line:column — message`, as text; a VIEWER sees the export
// but neither the apply link nor the form.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { seedOrganization, type SeededOrganization } from '../support/harness.ts';
import { browserSkipReason, ensureConsoleBuilt, launchChromium, startListeningBerth, type Chrome, type LiveBerth, signedInPage } from './browser.ts';

const skip = browserSkipReason();

describe('the console\'s berth.yaml: export, plan and apply', { skip: skip ?? false }, () => {
  let berth: LiveBerth;
  let chrome: Chrome;
  let page: Page;
  let org: SeededOrganization;
  let projectId = '';
  let envId = '';
  let webId = '';
  let exported = '';
  const api = async (method: string, url: string, body?: unknown, token = org.token) => {
    const r = await berth.t.request(method, url, { token, ...(body !== undefined ? { body } : {}) });
    assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${r.raw}`);
    return r.body;
  };
  const applyPage = () => page.getByRole('form', { name: 'Plan and apply' });
  const paste = async (text: string) => {
    await applyPage().getByLabel('berth.yaml', { exact: true }).fill(text);
  };

  before(async () => {
    ensureConsoleBuilt();
    berth = await startListeningBerth();
    org = await seedOrganization(berth.t);
    const project = await api('POST', `/organization/${org.id}/project`, { name: 'shop', description: 'The shop' });
    projectId = project.id;
    envId = (await api('POST', `/project/${projectId}/environment`, { name: 'staging', mode: 'STAGING' })).id;
    webId = (await api('POST', `/environment/${envId}/application`, {
      name: 'web', git_repository: { url: 'https://github.com/acme/shop.git', branch: 'main' }, cpu: 500, ports: [{ internal_port: 8080, publicly_accessible: true }],
    })).id;
    chrome = await launchChromium();
    page = await signedInPage(chrome, org.token);
  });
  after(async () => {
    await chrome?.close();
    await berth?.close();
  });

  test('the environment page exports the environment as a berth.yaml download', async () => {
    await page.goto(`${berth.base}/ui/environments/${envId}`);
    const button = page.getByRole('button', { name: 'Export as berth.yaml' });
    await button.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
    assert.equal(download.suggestedFilename(), 'berth.yaml');
    exported = await readFile((await download.path())!, 'utf8');
    assert.match(exported, /^# yaml-language-server: \$schema=/);
    assert.match(exported, /applications:\n\s+web:\n/);
    assert.match(exported, /cpu: 500\b/);
    const same = await berth.t.request('GET', `/environment/${envId}/export`, { token: org.token });
    assert.equal(exported, same.raw, 'the download is the export as the API answers it');
  });

  test('the project page links to the apply page; a changed copy is planned field by field, then applied and stored', async () => {
    await page.goto(`${berth.base}/ui/projects/${projectId}`);
    await page.getByRole('button', { name: 'Export project as berth.yaml' }).waitFor();
    await page.getByRole('link', { name: 'Apply a berth.yaml' }).click();
    await page.waitForURL(`**/ui/projects/${projectId}/apply`);
    await paste(exported.replace(/cpu: 500\b/, 'cpu: 750').replace('branch: main', 'branch: develop'));
    await applyPage().getByRole('button', { name: 'Plan' }).click();
    const plan = page.getByRole('region', { name: 'Plan' });
    await plan.waitFor();
    const row = plan.locator('tr[data-path="environments.staging.applications.web"][data-action="update"]');
    await row.waitFor();
    assert.equal((await row.locator('li[data-field="cpu"]').innerText()).trim(), 'cpu: 500 → 750');
    assert.equal((await row.locator('li[data-field="git_repository.branch"]').innerText()).trim(), 'git_repository.branch: main → develop', 'an object member by member');
    assert.match(await plan.getByTestId('plan-summary').innerText(), /0 to create, 1 to update, 0 to delete, \d+ unchanged/);
    assert.match(await plan.locator('details.unchanged summary').innerText(), /^\d+ unchanged$/);
    assert.equal((await api('GET', `/application/${webId}`)).cpu, 500, 'a plan writes nothing');

    await applyPage().getByRole('button', { name: 'Confirm apply' }).click();
    const applied = page.getByRole('region', { name: 'Applied' });
    await applied.waitFor();
    assert.match(await applied.getByTestId('apply-summary').innerText(), /0 created, 1 updated, 0 deleted/);
    const web = await api('GET', `/application/${webId}`);
    assert.equal(web.cpu, 750);
    assert.equal(web.git_repository.branch, 'develop');
    assert.equal(await page.getByRole('button', { name: 'Confirm apply' }).count(), 0, 'a plan is confirmed once');
  });

  test('an env: reference asks for its value; without it the refusal says where; with it the plan shows the secret as created', async () => {
    const withSecret = exported.replace(/cpu: 500\b/, 'cpu: 750').replace(/(\n( +)web:\n)/, '$1$2  secrets:\n$2    API_TOKEN: { from: env:API_TOKEN }\n');
    await paste(withSecret);
    const input = applyPage().getByLabel('API_TOKEN');
    await input.waitFor();
    await applyPage().getByRole('button', { name: 'Plan' }).click();
    const problems = page.getByRole('region', { name: 'Problems' });
    await problems.waitFor();
    const line = withSecret.split('\n').findIndex((l) => l.includes('env:API_TOKEN')) + 1;
    assert.match(await problems.locator('li').first().innerText(), new RegExp(`^${line}:\\d+ — .*env:API_TOKEN`));
    await input.fill('tok-<b>secret</b>');
    await applyPage().getByRole('button', { name: 'Plan' }).click();
    const plan = page.getByRole('region', { name: 'Plan' });
    await plan.locator('tr[data-action="create"]').filter({ hasText: 'API_TOKEN' }).waitFor();
    assert.ok(!(await page.content()).includes('tok-&lt;b&gt;secret'), 'the value is never shown');
    await applyPage().getByLabel('berth.yaml', { exact: true }).fill(withSecret + '\n');
    await page.getByText('plan again before applying').waitFor();
    assert.equal(await applyPage().getByRole('button', { name: 'Confirm apply' }).isDisabled(), true);
  });

  test('a bad document lists every problem as line:column — message, as text', async () => {
    await paste('version: 1\nproject:\n  name: shop\n  colour: <b>blue</b>\nenvironments:\n  staging:\n    applications:\n      web:\n        cpu: 0\n');
    await applyPage().getByRole('button', { name: 'Plan' }).click();
    const problems = page.getByRole('region', { name: 'Problems' });
    await problems.waitFor();
    const items = await problems.locator('li').allInnerTexts();
    assert.ok(items.length >= 2, items.join('\n'));
    assert.ok(items.every((i) => /^\d+:\d+ — \S/.test(i)), items.join('\n'));
    assert.ok(items.some((i) => i.startsWith('4:3 — ')), items.join('\n'));
    assert.ok(items.some((i) => i.startsWith('9:')), items.join('\n'));
    assert.equal(await problems.locator('b').count(), 0);
    assert.equal(await page.getByRole('region', { name: 'Plan' }).count(), 0);
  });

  test('a VIEWER exports but sees neither the apply link nor the form', async () => {
    const viewer = await signedInPage(chrome, await org.tokenFor('VIEWER'));
    await viewer.goto(`${berth.base}/ui/projects/${projectId}`);
    await viewer.getByRole('button', { name: 'Export project as berth.yaml' }).waitFor();
    assert.equal(await viewer.getByRole('link', { name: 'Apply a berth.yaml' }).count(), 0);
    await viewer.goto(`${berth.base}/ui/projects/${projectId}/apply`);
    await viewer.getByText('Your role can look but not apply').waitFor();
    assert.equal(await viewer.getByRole('form', { name: 'Plan and apply' }).count(), 0);
    await viewer.goto(`${berth.base}/ui/organizations/${org.id}/projects`);
    await viewer.getByRole('link', { name: 'shop' }).waitFor();
    assert.equal(await viewer.getByRole('link', { name: 'Apply a berth.yaml' }).count(), 0);
    await viewer.close();
  });

  test('the organization\'s projects tab links to applying a new project', async () => {
    await page.goto(`${berth.base}/ui/organizations/${org.id}/projects`);
    await page.getByRole('link', { name: 'Apply a berth.yaml' }).click();
    await page.waitForURL(`**/ui/organizations/${org.id}/apply`);
    await paste('version: 1\nproject:\n  name: docs-site\nenvironments:\n  dev:\n    variables: { LOG_LEVEL: info }\n');
    await applyPage().getByRole('button', { name: 'Plan' }).click();
    await page.getByRole('region', { name: 'Plan' }).locator('tr[data-action="create"]').first().waitFor();
    await applyPage().getByRole('button', { name: 'Confirm apply' }).click();
    const applied = page.getByRole('region', { name: 'Applied' });
    await applied.getByRole('link', { name: 'open the project' }).click();
    await page.getByRole('heading', { name: 'docs-site' }).waitFor();
    const projects = await api('GET', `/organization/${org.id}/project`);
    assert.ok(projects.results.some((p: { name: string }) => p.name === 'docs-site'));
  });
});
