// The organization's git settings in the console, in Chromium, as an admin uses them: a git
// token made, listed and edited without its value ever appearing in the page; the git webhook's
// secret made and shown once (a working one: a signed GitHub delivery is accepted), never after a
// reload, with the payload URL of each provider; an application whose form picks the token and
// turns previews on (saved, as the API says); and a token in use that cannot be deleted, the
// API's 409 naming the service next to its row.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { seedOrganization, type SeededOrganization } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { browserSkipReason, ensureConsoleBuilt, launchChromium, screenshot, startListeningBerth, type Chrome, type LiveBerth, signedInPage } from './browser.ts';

const skip = browserSkipReason();
const TOKEN = `github_pat_${randomUUID().replace(/-/g, '')}_never_shown`;

describe('the console\'s git tokens, git webhook and a service\'s git settings', { skip: skip ?? false }, () => {
  let berth: LiveBerth;
  let chrome: Chrome;
  let page: Page;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let tokenId = '';
  let appId = '';

  before(async () => {
    ensureConsoleBuilt();
    berth = await startListeningBerth();
    org = await seedOrganization(berth.t, `initech-${Math.random().toString(36).slice(2, 8)}`);
    env = await seedEnvironment(berth.t, org);
    chrome = await launchChromium();
    page = await signedInPage(chrome, org.token);
  });
  after(async () => {
    await chrome?.close();
    await berth?.close();
  });

  const button = (name: string) => page.getByRole('button', { name, exact: true });
  const api = async (method: string, url: string) => {
    const r = await berth.t.request(method, url, { token: org.token });
    assert.ok(r.status < 300, r.raw);
    return r.body;
  };
  const gitTab = async () => {
    await page.goto(`${berth.base}/ui/organizations/${org.id}`);
    await page.getByRole('link', { name: 'Git', exact: true }).click();
    await page.getByRole('heading', { name: 'Git tokens', exact: true }).waitFor();
  };
  const sealed = async () => (await berth.t.ctx.db.query<{ token_sealed: string }>('select token_sealed from git_tokens where id = $1', [tokenId]))[0]!.token_sealed;

  test('a git token: created from its form, listed, edited; its value never in the page', async () => {
    await gitTab();
    await page.getByText('No git token yet').waitFor();
    await button('New git token').click();
    await page.getByLabel('Name', { exact: true }).fill('github-acme');
    await page.getByLabel('Type').selectOption('GITHUB');
    const field = page.getByLabel('Token', { exact: true });
    assert.equal(await field.getAttribute('type'), 'password');
    await field.fill(TOKEN);
    await page.getByLabel('Description').fill('read access to acme');
    await page.getByLabel('Expires on').fill('2031-06-30');
    await button('Create git token').click();
    const row = page.locator('tr[data-git-token="github-acme"]');
    await row.waitFor();
    assert.match(await row.innerText(), /github-acme\s+GITHUB\s+read access to acme\s+2031-06-30\s+0 services/);
    assert.ok(!(await page.content()).includes(TOKEN), 'the token is not in the page');
    const listed = await api('GET', `/organization/${org.id}/gitToken`);
    assert.equal(listed.results.length, 1);
    tokenId = listed.results[0].id;
    assert.equal(new Date(listed.results[0].expired_at).toISOString(), '2031-06-30T00:00:00.000Z');

    // an edit with the token left empty keeps the stored one
    const before = await sealed();
    await row.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit git token "github-acme"' });
    assert.equal(await form.getByLabel('New token').inputValue(), '', 'never filled with the token');
    assert.equal(await form.getByLabel('Expires on').inputValue(), '2031-06-30');
    await form.getByLabel('Description').fill('read access to acme, rotated yearly');
    await form.getByRole('button', { name: 'Save git token' }).click();
    await row.getByText('read access to acme, rotated yearly').waitFor();
    assert.equal(await sealed(), before, 'the stored token is kept');
    const edited = await api('GET', `/organization/${org.id}/gitToken/${tokenId}`);
    assert.equal(new Date(edited.expired_at).toISOString(), '2031-06-30T00:00:00.000Z', 'an unchanged expiry is kept');
    assert.ok(!(await page.content()).includes(TOKEN));
    await page.reload();
    await row.waitFor();
    assert.ok(!(await page.content()).includes(TOKEN), 'nor after a reload');
  });

  test('the git webhook: a secret made and shown once, the payload URL per provider', async () => {
    await gitTab();
    const section = page.getByRole('region', { name: 'Git webhook' });
    await section.getByText('Secret: none').waitFor();
    for (const provider of ['github', 'gitlab', 'bitbucket', 'gitea', 'forgejo']) {
      assert.match(await section.locator(`tr[data-provider="${provider}"]`).innerText(), new RegExp(`/gitWebhook/${org.id}/${provider}`));
    }
    await section.getByRole('button', { name: 'Make a secret' }).click();
    const shown = section.getByRole('status', { name: 'New git webhook secret' });
    await shown.waitFor();
    assert.match(await shown.innerText(), /it will not be shown again/);
    const secret = (await shown.locator('.secret-once').innerText()).trim();
    assert.match(secret, /^bgw_\S{32,}$/);
    await chrome.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: berth.base });
    await shown.getByRole('button', { name: 'Copy secret' }).click();
    await shown.getByText('Copied.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret, 'the copy button copies it');
    await section.getByText('Secret: set').waitFor();
    await screenshot(page, 'git-webhook-secret');

    // the secret shown is the one berth checks deliveries with
    const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
    const deliver = (key: string) => fetch(`${berth.base}/gitWebhook/${org.id}/github`, {
      method: 'POST', body,
      headers: {
        'content-type': 'application/json', 'x-github-event': 'ping', 'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${createHmac('sha256', key).update(body).digest('hex')}`,
      },
    });
    assert.equal((await deliver(secret)).status, 200);
    assert.equal((await deliver('not-the-secret')).status, 401);

    await page.reload();
    await section.getByText('Secret: set').waitFor();
    assert.equal(await section.getByRole('status', { name: 'New git webhook secret' }).count(), 0);
    assert.ok(!(await page.content()).includes(secret), 'not shown after a reload');
    assert.match(await section.locator('tr[data-provider="gitlab"]').innerText(), new RegExp(`/gitWebhook/${org.id}/gitlab`));

    // replacing asks first, then shows the new one once
    await section.getByRole('button', { name: 'Replace secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Replace' }).click();
    const replaced = (await shown.locator('.secret-once').innerText()).trim();
    assert.notEqual(replaced, secret);
    assert.equal((await deliver(secret)).status, 401, 'the old secret no longer checks out');
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await shown.count(), 0);
    assert.ok(!(await page.content()).includes(replaced));
  });

  test('an application form picks the git token and turns previews on; the API has both', async () => {
    await page.goto(`${berth.base}/ui/environments/${env.id}`);
    await button('New service').click();
    await page.getByLabel('Name', { exact: true }).fill('web');
    await page.getByLabel('Git repository URL').fill('https://github.com/acme/private-web.git');
    const select = page.getByLabel('Git token', { exact: true });
    await select.locator('option', { hasText: 'github-acme (GITHUB)' }).waitFor({ state: 'attached' });
    assert.equal(await select.locator('option').first().innerText(), 'none (a public repository)');
    await select.selectOption({ label: 'github-acme (GITHUB)' });
    const preview = page.getByLabel('Preview environment for each pull request');
    assert.equal(await preview.isChecked(), false, 'the environment has no previews: the box starts as that');
    await preview.check();
    await button('Create application').click();
    await page.getByRole('heading', { name: /^web/ }).waitFor();
    appId = /\/ui\/services\/application\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    let app = await api('GET', `/application/${appId}`);
    assert.equal(app.git_repository.git_token_id, tokenId);
    assert.equal(app.auto_preview, true);

    // the settings form shows both, and the switches change what the API has
    await button('Edit settings').click();
    const form = page.getByRole('form', { name: 'Settings of web' });
    assert.equal(await form.getByLabel('Git token', { exact: true }).inputValue(), tokenId);
    assert.equal(await form.getByLabel('Preview environment for each pull request').isChecked(), true);
    assert.equal(await form.getByLabel('Deploy automatically on new commits').isChecked(), true);
    await screenshot(page, 'service-git-settings');
    await form.getByLabel('Deploy automatically on new commits').uncheck();
    await form.getByLabel('Preview environment for each pull request').uncheck();
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    app = await api('GET', `/application/${appId}`);
    assert.equal(app.auto_deploy, false);
    assert.equal(app.auto_preview, false);
    assert.equal(app.git_repository.git_token_id, tokenId, 'the token is kept');
  });

  test('a token in use is not deleted: the API\'s message names the service next to its row', async () => {
    await gitTab();
    const row = page.locator('tr[data-git-token="github-acme"]');
    await row.getByText('1 service', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    const problem = page.locator('tr[data-git-token-problem="github-acme"]');
    await problem.waitFor();
    assert.match(await problem.innerText(), /Git token 'github-acme' is used by 1 service: 'web' \(APPLICATION in [^/]+\/[^)]+\); give them another token \(or none\) first/);
    // the dialog closes as the answer comes; the problem row may render a frame before it is gone
    await page.getByRole('dialog').waitFor({ state: 'detached', timeout: 5000 });
    await row.waitFor();
    assert.equal((await api('GET', `/organization/${org.id}/gitToken`)).results.length, 1, 'still there');
    assert.ok(!(await page.content()).includes(TOKEN));
    await screenshot(page, 'organization-git');
  });

  test('a Bitbucket token without its workspace: the API\'s 400 under the field', async () => {
    await gitTab();
    await button('New git token').click();
    const form = page.getByRole('form', { name: 'New git token' });
    await form.getByLabel('Name', { exact: true }).fill('bitbucket-acme');
    await form.getByLabel('Type').selectOption('BITBUCKET');
    await form.getByLabel('Token', { exact: true }).fill('ATBB-not-a-real-one');
    await form.getByRole('button', { name: 'Create git token' }).click();
    const fieldError = form.locator('.field.invalid .field-error');
    await fieldError.waitFor();
    assert.equal(await fieldError.innerText(), 'Workspace (Bitbucket) is required for a BITBUCKET git token');
    await form.getByLabel('Workspace (Bitbucket)').fill('acme');
    await form.getByRole('button', { name: 'Create git token' }).click();
    await page.locator('tr[data-git-token="bitbucket-acme"]').getByText('workspace acme').waitFor();
  });

  test('a viewer sees the tokens but no button to change them, and not the webhook', async () => {
    const viewer = await signedInPage(chrome, await org.tokenFor('VIEWER'));
    await viewer.goto(`${berth.base}/ui/organizations/${org.id}/git`);
    await viewer.locator('tr[data-git-token="github-acme"]').waitFor();
    await viewer.getByText('Only admins and owners can see the organization\'s git webhook.').waitFor();
    for (const name of ['New git token', 'Edit', 'Delete', 'Make a secret', 'Replace secret', 'Delete secret']) {
      assert.equal(await viewer.getByRole('button', { name, exact: true }).count(), 0, name);
    }
    await viewer.close();
  });
});
