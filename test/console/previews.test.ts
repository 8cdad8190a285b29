// Preview environments in the console, in Chromium: an environment's page lists its previews (the
// pull request, branch, commit, state and why, a link to the copy); the copy's page says it is a
// preview of that pull request of that environment, links back, and lists no previews itself. A
// pull request from a fork waits for approval: its row says so and why, and an Approve button
// (DevOps and above; not for a VIEWER) opens it, or says why not (the cap).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { seedOrganization, type SeededOrganization } from '../support/harness.ts';
import { browserSkipReason, ensureConsoleBuilt, launchChromium, screenshot, startListeningBerth, type Chrome, type LiveBerth, signedInPage } from './browser.ts';

const skip = browserSkipReason();
const REPO = 'https://github.com/acme/storefront';

describe('the console\'s preview environments', { skip: skip ?? false }, () => {
  let berth: LiveBerth;
  let chrome: Chrome;
  let page: Page;
  let org: SeededOrganization;
  let sourceId: string;
  let copyId: string;
  let forkId: string;
  let openEvent: Parameters<LiveBerth['t']['ctx']['services']['previews']['onPullRequest']>[0];

  before(async () => {
    ensureConsoleBuilt();
    berth = await startListeningBerth({ PREVIEW_MAX_PER_ENVIRONMENT: '1' });
    org = await seedOrganization(berth.t);
    const call = async (method: string, url: string, body?: unknown) => {
      const r = await berth.t.request(method, url, { token: org.token, body });
      assert.ok(r.status < 300, r.raw);
      return r.body;
    };
    const project = await call('POST', `/organization/${org.id}/project`, { name: 'storefront' });
    sourceId = (await call('POST', `/project/${project.id}/environment`, { name: 'staging', mode: 'STAGING', auto_preview: true })).id;
    await call('POST', `/environment/${sourceId}/application`, { name: 'web', git_repository: { url: `${REPO}.git`, branch: 'main' }, ports: [{ internal_port: 8080, publicly_accessible: true }] });
    const event = { provider: 'GITHUB' as const, action: 'opened' as const, title: 'New checkout', repositoryUrls: [REPO], baseBranch: 'main', author: 'octocat', organizationId: org.id };
    const [opened] = await berth.t.ctx.services.previews.onPullRequest({ ...event, number: 5, headBranch: 'checkout', headCommit: 'c0ffee'.padEnd(40, '0') });
    copyId = opened!.preview_environment_id!;
    const [refused] = await berth.t.ctx.services.previews.onPullRequest({ ...event, number: 6, title: 'Dark mode', headBranch: 'dark', headCommit: 'd'.repeat(40) });
    assert.equal(refused!.outcome, 'refused');
    openEvent = { ...event, number: 5, headBranch: 'checkout', headCommit: 'c0ffee'.padEnd(40, '0') };
    const [fork] = await berth.t.ctx.services.previews.onPullRequest({ ...event, number: 7, title: 'Fix typo', headBranch: 'typo', headCommit: 'f0'.repeat(20), author: 'stranger', fork: true });
    assert.equal(fork!.outcome, 'awaiting_approval');
    forkId = fork!.preview_id!;
    chrome = await launchChromium();
    page = await signedInPage(chrome, org.token);
  });
  after(async () => {
    await chrome?.close();
    await berth?.close();
  });

  test('the environment lists its previews with a link to each copy, and the refused one with why', async () => {
    await page.goto(`${berth.base}/ui/environments/${sourceId}`);
    const section = page.getByRole('region', { name: 'Previews' });
    await section.getByRole('heading', { name: 'Previews' }).waitFor();
    const open = section.locator('tr[data-preview="5"]');
    await open.getByRole('link', { name: 'staging-pr-5' }).waitFor();
    assert.match(await open.innerText(), /#5 New checkout\s+by octocat\s+checkout → main\s+c0ffee0\s+open/);
    const refused = section.locator('tr[data-preview="6"]');
    assert.match(await refused.innerText(), /refused[\s\S]*already has 1 open preview, the most allowed \(PREVIEW_MAX_PER_ENVIRONMENT=1\)/);
    assert.match(await refused.innerText(), /none/);
    await screenshot(page, 'environment-previews');

    await open.getByRole('link', { name: 'staging-pr-5' }).click();
    await page.waitForURL(`**/ui/environments/${copyId}`);
    const note = page.getByRole('note', { name: 'Preview of a pull request' });
    await note.getByRole('link', { name: 'staging' }).waitFor();
    assert.match(await note.innerText(), /^Preview of pull request #5 .?New checkout.? \(checkout at c0ffee0\) of staging\. It is deleted when the pull request closes, or if no event of it comes before /);
    await page.getByRole('heading', { name: /staging-pr-5\s+preview/ }).waitFor();
    assert.equal(await page.getByRole('region', { name: 'Previews' }).count(), 0, 'a preview has no previews of its own');
    await page.getByRole('region', { name: 'Services' }).getByRole('link', { name: 'web', exact: true }).waitFor();
    await screenshot(page, 'preview-environment');

    await note.getByRole('link', { name: 'staging' }).click();
    await page.waitForURL(`**/ui/environments/${sourceId}`);
    assert.equal(await page.getByRole('note', { name: 'Preview of a pull request' }).count(), 0);
  });

  test('a pull request from a fork waits for approval: a VIEWER sees why, a DevOps approves it (or is told why not)', async () => {
    const viewerPage = await signedInPage(chrome, await org.tokenFor('VIEWER'));
    const role = viewerPage.waitForResponse((r) => r.url().endsWith(`/organization/${org.id}/currentRole`) && r.status() === 200);
    await viewerPage.goto(`${berth.base}/ui/environments/${sourceId}`);
    const seen = viewerPage.getByRole('region', { name: 'Previews' }).locator('tr[data-preview="7"]');
    await seen.getByText('awaiting approval').waitFor();
    assert.match(await seen.innerText(), /#7 Fix typo\s+by stranger[\s\S]*awaiting approval\s*fork[\s\S]*comes from a fork: berth makes no preview of it/);
    assert.match(await seen.locator('[data-preview-message]').innerText(), new RegExp(`POST /environment/${sourceId}/preview/${forkId}/approve, .berth preview approve ${forkId} --environment ${sourceId}.`));
    // once the API has said the caller's role (and the page has rendered with it), no button
    await role;
    await viewerPage.getByRole('region', { name: 'Services' }).getByRole('link', { name: 'web', exact: true }).waitFor();
    await viewerPage.waitForTimeout(200);
    assert.equal(await seen.getByRole('button', { name: 'Approve' }).count(), 0, 'a VIEWER may not approve');
    await viewerPage.close();

    const devops = await signedInPage(chrome, await org.tokenFor('DEVOPS'));
    await devops.goto(`${berth.base}/ui/environments/${sourceId}`);
    const row = devops.getByRole('region', { name: 'Previews' }).locator('tr[data-preview="7"]');
    await row.getByRole('button', { name: 'Approve' }).click();
    const dialog = devops.getByRole('dialog', { name: 'Approve' });
    assert.match(await dialog.innerText(), /Pull request #7 comes from a fork\. Approving runs its head commit f0f0f0f in a copy of this environment, with its variables and secrets/);
    // the cap (one open preview) refuses it: the dialog says why, the row keeps waiting
    await dialog.getByRole('button', { name: 'Approve f0f0f0f' }).click();
    await dialog.getByText(/already has 1 open preview, the most allowed \(PREVIEW_MAX_PER_ENVIRONMENT=1\); close a pull request or raise the limit, then approve it again/).waitFor();
    await screenshot(devops, 'preview-approval-refused');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await berth.t.ctx.services.previews.onPullRequest({ ...openEvent, action: 'closed' });
    await row.getByRole('button', { name: 'Approve' }).click();
    await dialog.getByRole('button', { name: 'Approve f0f0f0f' }).click();
    await row.getByRole('link', { name: 'staging-pr-7' }).waitFor();
    assert.match(await row.innerText(), /open\s*fork[\s\S]*last approved by token devops-/);
    assert.equal(await row.getByRole('button', { name: 'Approve' }).count(), 0);
    await screenshot(devops, 'preview-approved');
    await devops.close();
  });
});
