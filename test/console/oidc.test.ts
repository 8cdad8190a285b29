// Signing in to the console through an OIDC provider (authorization code + PKCE), in Chromium:
// the console offers it only when berth is configured for it, the provider sees a verifier that
// matches the challenge, and the access token obtained is what the console then sends to berth.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { consoleCsp } from '../../src/http/console.ts';
import { browserSkipReason, ensureConsoleBuilt, launchChromium, startListeningBerth, type Chrome, type LiveBerth } from './browser.ts';
import { startTestProvider, type TestProvider } from './idp.ts';

const skip = browserSkipReason();

describe('console sign-in through OIDC', { skip: skip ?? false }, () => {
  let provider: TestProvider;
  let berth: LiveBerth;
  let chrome: Chrome;
  let page: Page;

  before(async () => {
    ensureConsoleBuilt();
    provider = await startTestProvider({ sub: `user-${Date.now()}`, email: 'ada@example.com', name: 'Ada' });
    berth = await startListeningBerth({ OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: provider.audience, OIDC_CLIENT_ID: provider.clientId });
    chrome = await launchChromium();
    page = await chrome.context.newPage();
  });
  after(async () => {
    await chrome?.close();
    await berth?.close();
    await provider?.close();
  });

  test('the configuration names the provider, and the CSP lets the page reach it', async () => {
    const config = await berth.t.request('GET', '/console/config');
    assert.deepEqual(config.body.oidc, { issuer: provider.issuer, client_id: provider.clientId, audience: provider.audience });
    const home = await berth.t.request('GET', '/');
    assert.equal(home.headers['content-security-policy'], consoleCsp([provider.issuer]));
    assert.match(String(home.headers['content-security-policy']), new RegExp(`connect-src 'self' ${provider.issuer.replace(/\./g, '\\.')};`));
  });

  test('a callback this tab did not start is refused in plain words', async () => {
    await page.goto(`${berth.base}/ui/oidc/callback?code=forged&state=forged`);
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /not started from this tab/);
    assert.equal(provider.exchanges, 0);
  });

  test('sign in with OIDC: code + PKCE, then the API answers the Bearer token', async () => {
    await page.goto(`${berth.base}/`);
    await page.getByRole('button', { name: 'Sign in with OIDC' }).click();
    await page.getByRole('heading', { name: 'Organizations' }).waitFor();
    assert.equal(provider.exchanges, 1);
    assert.deepEqual(provider.refusals, []);
    assert.equal(new URL(page.url()).pathname, '/ui', 'the code is no longer in the address bar');
    const credential = await page.evaluate(() => sessionStorage.getItem('berth.credential'));
    assert.match(credential ?? '', /^Bearer eyJ/);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('berth.oidc.pending')), null, 'the verifier is gone');
    // the user belongs to no organization yet: the console says what to do, not an error
    await page.getByText('No organization is visible').waitFor();
    const me = await berth.t.request('GET', '/organization', { headers: { authorization: credential! } });
    assert.equal(me.status, 200, 'berth accepts the token the console obtained');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with OIDC' }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  });
});
