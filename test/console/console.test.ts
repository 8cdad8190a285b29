// The console in a real browser (Debian's Chromium) against a real, listening berth: what a new
// user does first, end to end — sign in with a token, create a project, an environment and an
// application, add a variable and a secret, deploy and watch it reach RUNNING with its log
// live, see a validation error next to its field, be a DEVOPS token who sees the service and
// deploy buttons but not the admin ones, be a viewer who sees no mutate button and is refused
// anyway, and sign out. CONSOLE_SCREENSHOTS=1 refreshes the pictures in docs/console/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { seedOrganization, type SeededOrganization } from '../support/harness.ts';
import { browserSkipReason, ensureConsoleBuilt, launchChromium, screenshot, startListeningBerth, type Chrome, type LiveBerth } from './browser.ts';

// browser globals, used only inside page.evaluate (this file is type-checked without the DOM lib)
declare const document: any;
declare const window: any;
declare const location: any;

const skip = browserSkipReason();
const SECRET_VALUE = `s3cr3t-${Math.random().toString(36).slice(2)}-value`;

describe('the web console in Chromium', { skip: skip ?? false }, () => {
  let berth: LiveBerth;
  let chrome: Chrome;
  let page: Page;
  let org: SeededOrganization;
  let viewerToken: string;
  const names = { project: 'shop', environment: 'staging', app: 'storefront' };
  let serviceUrl = '';

  before(async () => {
    ensureConsoleBuilt();
    berth = await startListeningBerth({}, { simulated: { stepMs: 300 } });
    org = await seedOrganization(berth.t, `acme-${Math.random().toString(36).slice(2, 8)}`);
    viewerToken = await org.tokenFor('VIEWER');
    chrome = await launchChromium();
    page = await chrome.context.newPage();
  });
  after(async () => {
    await chrome?.close();
    await berth?.close();
  });

  const button = (name: string | RegExp) => page.getByRole('button', { name, exact: typeof name === 'string' });

  test('a wrong token is refused in plain words; the right one signs in', async () => {
    await page.goto(`${berth.base}/`);
    await page.getByLabel('API token').fill('not-a-real-token');
    await button('Sign in').click();
    await page.getByRole('alert').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'a refused token is not kept');
    // keyboard only: the token field has the focus, Enter signs in
    await page.getByLabel('API token').fill('');
    await page.getByLabel('API token').focus();
    await page.keyboard.type(org.token);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Organizations' }).waitFor();
    assert.equal(await page.evaluate(() => Object.values(sessionStorage).join()), org.token, 'kept in session storage');
    assert.equal(await page.evaluate(() => localStorage.length), 0);
    await page.getByRole('link', { name: org.name }).click();
    await page.getByRole('heading', { name: org.name }).waitFor();
    await page.getByText('No project yet').waitFor();
  });

  test('create a project, an environment and an application (after a validation error shown next to its field)', async () => {
    await button('New project').click();
    await page.getByLabel('Name').fill(names.project);
    await button('Create project').click();
    await page.getByRole('link', { name: names.project }).waitFor();
    await screenshot(page, 'organization');
    await page.getByRole('link', { name: names.project }).click();
    await page.getByRole('heading', { name: names.project }).waitFor();

    await button('New environment').click();
    await page.getByLabel('Name').fill(names.environment);
    await page.getByLabel('Mode').selectOption('STAGING');
    await button('Create environment').click();
    await page.getByRole('link', { name: names.environment }).click();
    await page.getByText('No service in this environment yet').waitFor();

    await button('New service').click();
    await page.getByLabel('Name', { exact: true }).fill(names.app);
    await page.getByLabel('Git repository URL').fill('ftp://example.com/shop.git');
    await page.getByLabel('Port the service listens on').fill('8080');
    await page.getByLabel('Publicly accessible').check();
    await button('Create application').click();
    // the API's message, under the field it names, and the field marked invalid
    const fieldError = page.locator('.field.invalid .field-error');
    await fieldError.waitFor();
    assert.equal(await fieldError.innerText(), 'Git repository URL: git transport "ftp://" is not allowed (allowed: https, http, ssh, git)', "the API's message, with the field's label");
    assert.equal(await page.getByLabel('Git repository URL').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('.field.invalid').count(), 1, 'only that field');
    await screenshot(page, 'create-form-validation');

    await page.getByLabel('Git repository URL').fill('https://github.com/acme/storefront.git');
    await button('Create application').click();
    await page.getByRole('heading', { name: new RegExp(`^${names.app}`) }).waitFor();
    await page.locator('p.empty', { hasText: 'Never deployed' }).waitFor();
    serviceUrl = page.url();
    assert.match(serviceUrl, /\/ui\/services\/application\/[0-9a-f-]{36}$/);
  });

  test('add a variable and a secret; the secret value never appears in the page afterwards', async () => {
    await button('Add variable').click();
    await page.getByLabel('Key').fill('GREETING');
    await page.getByLabel('Value', { exact: true }).fill('hello-from-the-console');
    await button('Add').click();
    await page.locator('tr[data-variable="GREETING"]').waitFor();

    await button('Add variable').click();
    await page.getByLabel('Key').fill('STRIPE_KEY');
    await page.getByLabel('Value', { exact: true }).fill(SECRET_VALUE);
    await page.getByLabel(/^Secret/).check();
    await button('Add').click();
    const row = page.locator('tr[data-variable="STRIPE_KEY"]');
    await row.waitFor();
    assert.match(await row.innerText(), /hidden \(write-only\)/);
    assert.match(await page.locator('tr[data-variable="GREETING"]').innerText(), /hello-from-the-console/);
    const inputsHold = await page.evaluate((v) => [...document.querySelectorAll('input, textarea')].some((i) => (i as { value: string }).value.includes(v)), SECRET_VALUE);
    assert.equal(inputsHold, false, 'no field still holds it');
    assert.ok(!(await page.content()).includes(SECRET_VALUE), 'not in the page');
    await page.reload();
    await row.waitFor();
    assert.ok(!(await page.content()).includes(SECRET_VALUE), 'not after a reload either');
  });

  test('deploy: the status reaches RUNNING and log lines appear without reloading', async () => {
    await page.evaluate(() => { window.sameDocument = true; });
    await button('Deploy').click();
    await page.locator('.log .line').first().waitFor({ timeout: 20_000 });
    await page.locator('h1 + .row [data-status="RUNNING"], .row [data-status="RUNNING"]').first().waitFor({ timeout: 30_000 });
    assert.ok(await page.locator('.log .line').count() >= 2, 'several log lines');
    assert.equal(await page.evaluate(() => window.sameDocument), true, 'the page was never reloaded');
    await page.locator('.deployment-log [data-status="DEPLOYED"], .deployment-log [data-status="DONE"], .deployment-log .badge.ok').first().waitFor({ timeout: 20_000 });
    await screenshot(page, 'service');
    // the service's own log, on demand
    await page.getByText('Service log (build, deployment and runtime lines)').click();
    await page.locator('pre[aria-label="Service log"] .line', { hasText: 'Listening on port 8080' }).waitFor();

    // the environment lists it with its live status
    await page.getByRole('link', { name: names.environment }).click();
    await page.locator(`tr[data-service="${names.app}"] [data-status="RUNNING"]`).waitFor();
    await screenshot(page, 'environment');
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 1, `no sideways scrolling on a phone (overflow ${overflow}px)`);
    await screenshot(page, 'environment-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test('edit settings: the current values are filled in, a bad one is refused next to its field', async () => {
    await page.goto(serviceUrl);
    await button('Edit settings').click();
    const form = page.getByRole('form', { name: `Settings of ${names.app}` });
    assert.equal(await form.getByLabel('Git repository URL').inputValue(), 'https://github.com/acme/storefront.git');
    assert.equal(await form.getByLabel('Dockerfile path').inputValue(), 'Dockerfile');
    await form.getByLabel('Description').fill('The shop front');
    await form.getByLabel('Minimum instances').fill('3');
    await form.getByLabel('Maximum instances').fill('2');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.locator('.field.invalid').first().waitFor();
    assert.match(await form.locator('.field.invalid label').first().innerText(), /instances/);
    await form.getByLabel('Minimum instances').fill('1');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    await page.getByText('The shop front').waitFor();
  });

  test('destructive actions ask first', async () => {
    await page.goto(serviceUrl);
    await button('Stop').click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Stop "storefront"\?/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await page.locator('[data-status="STOPPED"]').count(), 0);
  });

  test('a DEVOPS token sees the service and deploy buttons its role allows (decision 0605), not the admin ones', async () => {
    await button('Sign out').click();
    await page.getByLabel('API token').fill(await org.tokenFor('DEVOPS'));
    await button('Sign in').click();
    await page.getByRole('heading', { name: 'Organizations' }).waitFor();
    await page.goto(`${berth.base}/ui/organizations/${org.id}`);
    await page.getByText('Your role: DevOps').waitFor();
    await page.getByRole('link', { name: names.project }).waitFor();
    assert.equal(await button('New project').count(), 0, 'projects need an admin');
    assert.equal(await page.getByText(/^Read-only/).count(), 0);
    await page.goto(serviceUrl);
    await page.getByRole('heading', { name: new RegExp(`^${names.app}`) }).waitFor();
    const actions = page.getByRole('group', { name: 'Actions' });
    await actions.getByRole('button', { name: 'Deploy', exact: true }).waitFor();
    for (const name of ['Redeploy', 'Restart', 'Stop', 'Delete', 'Edit settings']) {
      assert.equal(await actions.getByRole('button', { name, exact: true }).count(), 1, `a ${name} button for DEVOPS`);
    }
    assert.ok(await button('Delete').count() > 1, "and each variable's Delete");
    // and it works: a variable added through the console as DEVOPS
    await button('Add variable').click();
    await page.getByLabel('Key').fill('FROM_DEVOPS');
    await page.getByLabel('Value', { exact: true }).fill('yes');
    await button('Add').click();
    await page.locator('tr[data-variable="FROM_DEVOPS"]').waitFor();
    await page.getByRole('link', { name: names.environment }).click();
    await button('Deploy all').waitFor();
    assert.equal(await button('New service').count(), 1);
    assert.equal(await button('Delete environment').count(), 0, 'environments need an admin');
  });

  test('a viewer sees no mutate button, and the server refuses the mutation anyway', async () => {
    await button('Sign out').click();
    await page.getByLabel('API token').fill(viewerToken);
    await button('Sign in').click();
    await page.getByRole('heading', { name: 'Organizations' }).waitFor();
    await page.goto(`${berth.base}/ui/organizations/${org.id}`);
    await page.getByText('Your role: Viewer').waitFor();
    await page.getByText(/^Read-only/).waitFor();
    await page.goto(serviceUrl);
    await page.getByRole('heading', { name: new RegExp(`^${names.app}`) }).waitFor();
    await page.locator('tr[data-variable="GREETING"]').waitFor();
    await page.locator('[data-status="RUNNING"]').first().waitFor();
    for (const name of ['Deploy', 'Redeploy', 'Restart', 'Stop', 'Delete', 'Edit settings', 'Add variable']) {
      assert.equal(await button(name).count(), 0, `no ${name} button for a viewer`);
    }
    const envLink = page.getByRole('link', { name: names.environment });
    await envLink.click();
    await page.locator(`tr[data-service="${names.app}"]`).waitFor();
    assert.equal(await button('New service').count(), 0);
    assert.equal(await button('Deploy all').count(), 0);
    // the same request the Deploy button would send, with the viewer's credential
    const refused = await page.evaluate(async ({ url, token }) => {
      const id = url.split('/').pop();
      const r = await fetch(`/application/${id}/deploy`, { method: 'POST', headers: { authorization: `Token ${token}`, 'content-type': 'application/json' }, body: '{}' });
      return { status: r.status, body: await r.json() as { status: number } };
    }, { url: serviceUrl, token: viewerToken });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.status, 403);
  });

  test('sign out forgets the token', async () => {
    await screenshot(page, 'environment-viewer');
    await button('Sign out').click();
    await page.getByLabel('API token').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    await page.goto(serviceUrl);
    await page.getByLabel('API token').waitFor();
    assert.equal(await page.getByRole('heading', { name: names.app }).count(), 0, 'nothing shown without signing in again');
    await screenshot(page, 'sign-in', false);
  });
});
