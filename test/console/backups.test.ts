// A database's backups and an organization's backup storage and notification channels in the
// console (issue 39), in Chromium against berth on the simulated engine (its dumps are labelled
// simulated documents): the database page shows the Backups section with "last verified
// restorable"; a backup taken there is listed SUCCEEDED with a human size and a short checksum; the
// restore dialog's in-place option keeps its button disabled until the database's name is typed,
// and a restore into a new database is listed with its status; a drill sets "last verified"; a
// FAILED backup raises the banner with its error as text; the policy form saves (and a bad cron
// shows the API's words); the organization's "Backups & alerts" tab shows S3 validation errors as
// text, checks the storage, and creates, tests and lists a notification channel.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { subscribeTasks } from '../../src/workers/handlers.ts';
import { eventually, seedOrganization, type SeededOrganization } from '../support/harness.ts';
import { seedEnvironment } from '../support/factories.ts';
import { browserSkipReason, ensureConsoleBuilt, launchChromium, startListeningBerth, type Chrome, type LiveBerth, signedInPage } from './browser.ts';

const skip = browserSkipReason();

describe("the console's database backups", { skip: skip ?? false }, () => {
  let berth: LiveBerth;
  let chrome: Chrome;
  let page: Page;
  let org: SeededOrganization;
  let dbUrl = '';
  let dbId = '';
  let receiver: Server;
  let received = 0;
  const section = () => page.getByRole('region', { name: 'Backups' });
  const api = async (method: string, url: string, body?: unknown) => {
    const r = await berth.t.request(method, url, { token: org.token, ...(body !== undefined ? { body } : {}) });
    assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${r.raw}`);
    return r.body;
  };

  before(async () => {
    ensureConsoleBuilt();
    // private targets allowed: the S3 endpoint and the webhook receiver are on loopback
    berth = await startListeningBerth({}, { webhooks: true });
    await subscribeTasks(berth.t.ctx, ['backups.take', 'backups.restore', 'backups.drill']);
    org = await seedOrganization(berth.t, `backups-${Math.random().toString(36).slice(2, 8)}`);
    const env = await seedEnvironment(berth.t, org);
    dbId = (await api('POST', `/environment/${env.id}/database`, { name: 'orders', type: 'POSTGRESQL', version: '15', mode: 'CONTAINER' })).id;
    await api('POST', `/database/${dbId}/deploy`);
    await eventually(async () => (await api('GET', `/database/${dbId}/status`)).state === 'RUNNING', 20_000);
    dbUrl = `${berth.base}/ui/services/database/${dbId}`;
    receiver = createServer((req, res) => { received++; req.resume(); req.on('end', () => res.end('ok')); });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    chrome = await launchChromium();
    page = await signedInPage(chrome, org.token);
  });
  after(async () => {
    await chrome?.close();
    await berth?.close();
    receiver?.close();
  });

  test('the database page shows the Backups section: never verified, no backup yet, no banner', async () => {
    await page.goto(dbUrl);
    await section().getByText('No backup yet.', { exact: false }).waitFor();
    assert.match(await section().getByTestId('last-verified').innerText(), /Last verified restorable:\s*never/);
    assert.equal(await page.getByTestId('backup-banner').count(), 0);
  });

  test('take a backup now: it is listed SUCCEEDED with a human size and a short checksum', async () => {
    await section().getByRole('button', { name: 'Take a backup now' }).click();
    const form = page.getByRole('form', { name: 'New backup' });
    await form.getByLabel('Name').fill('before-migration');
    await form.getByLabel('Message').fill('v2 <i>schema</i>');
    await form.getByRole('button', { name: 'Take backup' }).click();
    await form.waitFor({ state: 'detached' });
    const row = section().locator('tr[data-backup="before-migration"]');
    await row.locator('[data-status="SUCCEEDED"]').waitFor({ timeout: 20_000 });
    const text = await row.innerText();
    assert.match(text, /\b\d+(\.\d)? (B|KiB)\b/);
    assert.match(text, /manual/);
    assert.match(text, /LOCAL/);
    assert.match(text, /v2 <i>schema<\/i>/, 'the message as text');
    assert.equal(await row.locator('i').count(), 0);
    const checksum = (await api('GET', `/database/${dbId}/backup`)).results[0].checksum as string;
    assert.equal(await row.locator('code').innerText(), checksum.slice(0, 12));
  });

  test('restore: in place keeps its button disabled until the name is typed; into a new database is listed with its status', async () => {
    const row = section().locator('tr[data-backup="before-migration"]');
    await row.getByRole('button', { name: 'Restore', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore before-migration' });
    await dialog.waitFor();
    assert.equal(await dialog.getByLabel(/Into a new database/).isChecked(), true, 'a new database is the default');
    await dialog.getByLabel(/In place/).check();
    const button = dialog.getByRole('button', { name: 'Restore in place' });
    assert.equal(await button.isDisabled(), true);
    await dialog.getByLabel(/Type orders to confirm/).fill('order');
    assert.equal(await button.isDisabled(), true);
    await dialog.getByLabel(/Type orders to confirm/).fill('orders');
    assert.equal(await button.isDisabled(), false);
    await dialog.getByLabel(/Into a new database/).check();
    await dialog.getByLabel('Name of the new database').fill('orders-copy');
    await dialog.getByRole('button', { name: 'Restore into a new database' }).click();
    await dialog.waitFor({ state: 'detached' });
    const restores = section().getByRole('list', { name: 'Restores' });
    await restores.locator('[data-status="SUCCEEDED"]').waitFor({ timeout: 30_000 });
    assert.match(await restores.innerText(), /into a new database/);
    const href = await restores.getByRole('link', { name: 'the restored database' }).getAttribute('href');
    const copy = await api('GET', href!.replace('/ui/services', ''));
    assert.equal(copy.name, 'orders-copy');
  });

  test('drill now: the backup is verified and "last verified restorable" shows when', async () => {
    const row = section().locator('tr[data-backup="before-migration"]');
    await row.getByRole('button', { name: 'Drill now' }).click();
    const verified = await eventually(async () => {
      const b = (await api('GET', `/database/${dbId}/backup`)).results.find((x: { name: string }) => x.name === 'before-migration');
      return b.verified_at as string | null;
    }, 20_000);
    await page.reload();
    await section().getByTestId('last-verified').locator(`time[datetime="${verified}"]`).waitFor();
  });

  test('a FAILED latest backup raises the banner, its error as text', async () => {
    await berth.t.ctx.db.query(
      `insert into database_backups (organization_id, database_id, name, trigger, status, storage, location, object_key, error, finished_at)
       values ($1, $2, 'nightly', 'SCHEDULED', 'FAILED', 'LOCAL', 'LOCAL', 'x', 'pg_dump: <b>connection refused</b>', now())`, [org.id, dbId]);
    await page.reload();
    const banner = page.getByTestId('backup-banner');
    await banner.waitFor();
    assert.match(await banner.innerText(), /The latest backup \(nightly\) failed: pg_dump: <b>connection refused<\/b>/);
    assert.equal(await banner.locator('b').count(), 0);
    await berth.t.ctx.db.query(`delete from database_backups where database_id = $1 and name = 'nightly'`, [dbId]);
  });

  test('the policy form: a bad cron gets the API\'s words, a good one saves and shows the next backup', async () => {
    await page.reload();
    const policy = page.getByRole('region', { name: 'Backup policy' });
    await policy.getByText('No policy').waitFor();
    await policy.getByRole('button', { name: 'Set a policy' }).click();
    const form = page.getByRole('form', { name: 'Backup policy' });
    await form.getByLabel('Schedule (cron, UTC)', { exact: true }).fill('not a cron');
    await form.getByRole('button', { name: 'Save policy' }).click();
    await form.getByRole('alert').first().waitFor();
    await form.getByLabel('Schedule (cron, UTC)', { exact: true }).fill('0 3 * * *');
    await form.getByLabel('Keep daily').fill('3');
    await form.getByRole('button', { name: 'Save policy' }).click();
    await form.waitFor({ state: 'detached' });
    const facts = policy.getByTestId('policy-facts');
    await facts.waitFor();
    assert.match(await facts.innerText(), /Schedule\s+0 3 \* \* \*/);
    assert.match(await facts.innerText(), /3 daily, 4 weekly, 6 monthly/);
    assert.equal((await api('GET', `/database/${dbId}/backupPolicy`)).keep_daily, 3);
    assert.ok(await facts.locator('time').count() >= 2, 'next backup and drill');
  });

  test('the organization tab: S3 validation errors as text, check, and a notification channel created, tested and listed', async () => {
    await page.goto(`${berth.base}/ui/organizations/${org.id}/backups`);
    const storage = page.getByRole('region', { name: 'Backup storage' });
    await storage.getByTestId('storage-facts').getByText('LOCAL').waitFor();
    await storage.getByRole('button', { name: 'Check' }).click();
    await storage.getByTestId('storage-check').getByText(/^ok/).waitFor();

    await storage.getByRole('button', { name: 'Change storage' }).click();
    const form = page.getByRole('form', { name: 'Backup storage' });
    await form.getByLabel('Kind').selectOption('S3');
    await form.getByLabel('S3 endpoint').fill('http://127.0.0.1:9');
    await form.getByLabel('Bucket').fill('b');
    await form.getByLabel('Access key id').fill('AKIA<b>x</b>');
    await form.getByLabel('Secret access key').fill('s3cret');
    await form.getByRole('button', { name: 'Save storage' }).click();
    const bucketError = form.locator('.field-error, [role="alert"]').first();
    await bucketError.waitFor();
    assert.match(await bucketError.innerText(), /bucket|Bucket/);
    // a well-formed bucket nobody answers for: the check before saving fails, in words
    await form.getByLabel('Bucket').fill('berth-backups');
    await form.getByRole('button', { name: 'Save storage' }).click();
    await form.getByText(/127\.0\.0\.1|ECONNREFUSED|connect|reach/i).first().waitFor({ timeout: 20_000 });
    assert.equal((await api('GET', `/organization/${org.id}/backupStorage`)).kind, 'LOCAL', 'nothing saved');
    await form.getByRole('button', { name: 'Cancel' }).click();

    const channels = page.getByRole('region', { name: 'Notification channels' });
    await channels.getByRole('button', { name: 'New channel' }).click();
    const add = page.getByRole('form', { name: 'New notification channel' });
    await add.getByLabel('Name').fill('ops <b>room</b>');
    await add.getByLabel('Kind').selectOption('SLACK');
    await add.getByLabel(/Incoming-webhook URL/).fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    await add.getByRole('button', { name: 'Create channel' }).click();
    await add.waitFor({ state: 'detached' });
    const card = channels.locator('li[data-channel="ops <b>room</b>"]');
    await card.waitFor();
    assert.match(await card.innerText(), /ops <b>room<\/b>\s+slack · 127\.0\.0\.1/);
    await card.getByRole('button', { name: 'Send a test' }).click();
    await card.getByTestId('channel-test').getByText(/^Delivered in \d+ ms\.$/).waitFor({ timeout: 20_000 });
    assert.equal(received, 1);
  });
});
