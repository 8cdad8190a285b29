// A service's custom domains in the console (issue 38), in Chromium against berth on the
// simulated engine: add a domain and see it wait for DNS with the record to create; a bad domain
// shows the API's 400 under the form and nothing is added; "Check now" shows DNS's verdict; an
// ACTIVE domain shows its certificate's expiry and a FAILED one the CA's words and when berth tries
// again; delete asks first and removes it; a VIEWER sees the domains but no way to change them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { seedOrganization, type SeededOrganization } from '../support/harness.ts';
import { seedEnvironment } from '../support/factories.ts';
import { browserSkipReason, ensureConsoleBuilt, launchChromium, startListeningBerth, type Chrome, type LiveBerth, signedInPage } from './browser.ts';

const skip = browserSkipReason();

describe("the console's custom domains", { skip: skip ?? false }, () => {
  let berth: LiveBerth;
  let chrome: Chrome;
  let page: Page;
  let org: SeededOrganization;
  let appUrl = '';
  let serviceId = '';
  const section = () => page.getByRole('region', { name: 'Domains' });

  before(async () => {
    ensureConsoleBuilt();
    // DNS asked at a loopback port where nothing answers: the check's verdict is known without any network
    berth = await startListeningBerth({ DNS_RESOLVERS: '127.0.0.1:9' });
    org = await seedOrganization(berth.t, `domains-${Math.random().toString(36).slice(2, 8)}`);
    const env = await seedEnvironment(berth.t, org);
    const registry = await berth.t.ctx.db.query<{ id: string }>(
      `insert into container_registries (organization_id, name, kind, url) values ($1, 'hub', 'DOCKER_HUB', 'https://docker.io') returning id`, [org.id]);
    const made = await berth.t.request('POST', `/environment/${env.id}/container`, {
      token: org.token, body: { name: 'storefront', registry_id: registry[0]!.id, image_name: 'acme/web', tag: '1', ports: [{ internal_port: 8080, publicly_accessible: true }] },
    });
    assert.equal(made.status, 201, made.raw);
    serviceId = made.body.id;
    appUrl = `${berth.base}/ui/services/container/${serviceId}`;
    chrome = await launchChromium();
    page = await signedInPage(chrome, org.token);
  });
  after(async () => {
    await chrome?.close();
    await berth?.close();
  });

  test('add a domain: it waits for DNS and shows the record to create', async () => {
    await page.goto(appUrl);
    await section().getByText('No custom domain.').waitFor();
    await section().getByRole('button', { name: 'Add domain' }).click();
    const form = page.getByRole('form', { name: 'New domain' });
    await form.getByLabel('Domain').fill('Www.Console-Shop.Example.org');
    await form.getByRole('button', { name: 'Add' }).click();
    await form.waitFor({ state: 'detached' });
    const row = section().locator('tr[data-domain="www.console-shop.example.org"]');
    await row.waitFor();
    const badge = row.locator('[data-status]');
    assert.equal(await badge.getAttribute('data-status'), 'VALIDATION_PENDING');
    assert.equal(await badge.innerText(), 'waiting for DNS');
    const record = await row.getByTestId('dns-record').innerText();
    assert.match(record, /Type\s+CNAME\s+Name\s+www\.console-shop\.example\.org\s+Copy\s+Value\s+storefront-[0-9a-f]{8}\.localhost/);
    await row.getByRole('button', { name: 'Copy the record value for www.console-shop.example.org' }).click();
    await row.getByText(/^(Copied\.|This browser refused the clipboard.*)$/).waitFor();
  });

  test('a bad domain: the API\'s words under the form, nothing added', async () => {
    await section().getByRole('button', { name: 'Add domain' }).click();
    const form = page.getByRole('form', { name: 'New domain' });
    await form.getByLabel('Domain').fill('10.0.0.8');
    await form.getByRole('button', { name: 'Add' }).click();
    await form.getByText(/is an IP address/).waitFor();
    await form.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await section().locator('tr[data-domain]').count(), 1);
  });

  test('Check now shows what DNS answered for each domain', async () => {
    await section().getByRole('button', { name: 'Check now' }).click();
    const verdict = section().getByTestId('dns-verdict');
    await verdict.waitFor();
    assert.match(await verdict.innerText(), /DNS now: generic failure .*could not be resolved/i);
  });

  test('an ACTIVE domain shows its certificate\'s expiry; a FAILED one the CA\'s words and when berth tries again', async () => {
    // states the lifecycle reaches with a CA (test/domains drives those); here only how they read. The
    // lifecycle leaves both alone: the certificate is far from renewal, the retry is in the future.
    const db = berth.t.ctx.db;
    const expires = new Date(Date.now() + 60 * 86_400_000);
    const retry = new Date(Date.now() + 3_600_000);
    await db.query(`insert into certificates (host, chain_pem, key_sealed, not_before, not_after, issuer) values ('active.console-shop.example.org', 'x', 'x', now(), $1, 'test')`, [expires]);
    await db.query(
      `insert into custom_domains (organization_id, service_id, domain, status, message, retry_at) values
       ($1, $2, 'active.console-shop.example.org', 'ACTIVE', 'certificate valid', null),
       ($1, $2, 'failed.console-shop.example.org', 'FAILED', 'the CA refused: <b>rateLimited</b>: too many certificates', $3)`,
      [org.id, serviceId, retry]);
    await page.reload();
    const active = section().locator('tr[data-domain="active.console-shop.example.org"]');
    await active.waitFor();
    assert.equal(await active.locator('[data-status]').innerText(), 'active');
    assert.match(await active.getByTestId('cert-expiry').innerText(), /^Certificate valid until /);
    assert.equal(await active.getByTestId('cert-expiry').locator('time').getAttribute('datetime'), expires.toISOString());
    assert.equal(await active.getByTestId('dns-record').count(), 0);
    const failed = section().locator('tr[data-domain="failed.console-shop.example.org"]');
    assert.equal(await failed.locator('[data-status]').innerText(), 'failed');
    // the CA's words as text, never as markup
    await failed.getByText('the CA refused: <b>rateLimited</b>: too many certificates').waitFor();
    assert.equal(await failed.locator('b').count(), 0);
    assert.equal(await failed.getByTestId('retry-at').locator('time').getAttribute('datetime'), retry.toISOString());
    await db.query(`delete from custom_domains where domain in ('active.console-shop.example.org', 'failed.console-shop.example.org')`);
    await db.query(`delete from certificates where host = 'active.console-shop.example.org'`);
    await page.reload();
    await section().locator('tr[data-domain="www.console-shop.example.org"]').waitFor();
  });

  test('a VIEWER sees the domains and cannot change them', async () => {
    const viewer = await signedInPage(chrome, await org.tokenFor('VIEWER'));
    await viewer.goto(appUrl);
    const own = viewer.getByRole('region', { name: 'Domains' });
    await own.locator('tr[data-domain="www.console-shop.example.org"]').waitFor();
    assert.equal(await own.getByRole('button', { name: 'Add domain' }).count(), 0);
    assert.equal(await own.getByRole('button', { name: 'Delete' }).count(), 0);
    assert.equal(await viewer.getByRole('form', { name: 'New domain' }).count(), 0);
    await viewer.close();
  });

  test('delete asks first, then the domain is gone', async () => {
    await section().getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Remove www\.console-shop\.example\.org\?/);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await section().getByText('No custom domain.').waitFor();
  });
});
