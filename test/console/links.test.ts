// A service's public URLs in the console (issue 31, item 8), in Chromium against berth on the
// simulated engine: the service page lists each URL as its own anchor with the port it serves (the
// default one first), never run together; the environment's services table links to the default
// URL; a service without public ports shows none; links are read once, not on every status poll.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { seedOrganization, type SeededOrganization } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { browserSkipReason, ensureConsoleBuilt, launchChromium, startListeningBerth, type Chrome, type LiveBerth, signedInPage } from './browser.ts';

const skip = browserSkipReason();

interface ApiLink { url: string; internal_port: number; is_default: boolean }

/** every anchor of the page, as text, href, target and rel */
async function anchors(page: Page, scope: string): Promise<Array<{ text: string; href: string; target: string; rel: string }>> {
  return page.locator(`${scope} a`).evaluateAll((as) => as.map((a) => ({
    text: a.textContent ?? '', href: a.getAttribute('href') ?? '', target: a.getAttribute('target') ?? '', rel: a.getAttribute('rel') ?? '',
  })));
}

describe('the console\'s public links', { skip: skip ?? false }, () => {
  let berth: LiveBerth;
  let chrome: Chrome;
  let page: Page;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let webId = '';
  let workerId = '';
  let apiLinks: ApiLink[] = [];

  before(async () => {
    ensureConsoleBuilt();
    berth = await startListeningBerth();
    org = await seedOrganization(berth.t, `links-${Math.random().toString(36).slice(2, 8)}`);
    env = await seedEnvironment(berth.t, org);
    const registry = await berth.t.ctx.db.query<{ id: string }>(
      `insert into container_registries (organization_id, name, kind, url) values ($1, 'hub', 'DOCKER_HUB', 'https://docker.io') returning id`, [org.id]);
    const create = async (body: Record<string, unknown>) => {
      const r = await berth.t.request('POST', `/environment/${env.id}/container`, { token: org.token, body: { registry_id: registry[0]!.id, image_name: 'acme/web', tag: '1', ...body } });
      assert.equal(r.status, 201, r.raw);
      return r.body.id as string;
    };
    webId = await create({ name: 'storefront', ports: [
      { internal_port: 8080, publicly_accessible: true, is_default: true },
      { internal_port: 9090, publicly_accessible: true },
      { internal_port: 5000, publicly_accessible: false },
    ] });
    workerId = await create({ name: 'worker', ports: [{ internal_port: 7000, publicly_accessible: false }] });
    apiLinks = (await berth.t.request('GET', `/container/${webId}/link`, { token: org.token })).body.results;
    assert.equal(apiLinks.length, 3, 'the default port has two hosts, the other port one');
    chrome = await launchChromium();
    page = await signedInPage(chrome, org.token);
  });
  after(async () => {
    await chrome?.close();
    await berth?.close();
  });

  test('the service page: one anchor per URL, with its port, the default first and marked', async () => {
    await page.goto(`${berth.base}/ui/services/container/${webId}`);
    const list = page.getByRole('region', { name: 'Public URLs' });
    await list.locator('a').first().waitFor();
    const shown = await anchors(page, 'section[aria-label="Public URLs"]');
    assert.deepEqual(shown.map((a) => a.href), apiLinks.filter((l) => l.is_default).concat(apiLinks.filter((l) => !l.is_default)).map((l) => l.url));
    for (const a of shown) {
      assert.equal(a.text, a.href, 'the anchor reads as its own URL, nothing run together');
      assert.equal(a.target, '_blank');
      assert.deepEqual(a.rel.split(' ').sort(), ['noopener', 'noreferrer']);
    }
    const items = await list.locator('li').allInnerTexts();
    for (const [i, l] of apiLinks.filter((x) => x.is_default).concat(apiLinks.filter((x) => !x.is_default)).entries()) {
      assert.ok(items[i]!.includes(`${l.url} → port ${l.internal_port}`), items[i]);
      assert.equal(items[i]!.includes('default'), l.is_default, items[i]);
    }
    assert.ok(!apiLinks.some((l) => l.internal_port === 5000), 'a private port has no URL');
  });

  test('the environment table links to each service\'s default URL, and to nothing without public ports', async () => {
    const requests: string[] = [];
    page.on('request', (r) => { if (r.url().endsWith('/link')) requests.push(r.url()); });
    await page.goto(`${berth.base}/ui/environments/${env.id}`);
    const web = page.locator('tr[data-service="storefront"]');
    await web.locator('a[target="_blank"]').waitFor();
    const def = apiLinks.find((l) => l.is_default)!;
    const inRow = await anchors(page, 'tr[data-service="storefront"]');
    assert.deepEqual(inRow.filter((a) => a.target === '_blank').map((a) => [a.text, a.href]), [[def.url, def.url]]);
    const worker = page.locator('tr[data-service="worker"]');
    await worker.waitFor();
    assert.equal(await worker.locator('a[target="_blank"]').count(), 0, 'no public port, no link');
    assert.equal((await worker.locator('td').nth(2).innerText()).trim(), '—');
    // the table's status refreshes (a poll every 5 s without streams) do not re-read the links
    await page.waitForTimeout(6000);
    assert.ok(requests.length <= 2, `one link request per service: ${requests.join(', ')}`);
  });

  test('the old failure cannot recur: no anchor on either page reads as two URLs', async () => {
    for (const path of [`/ui/services/container/${webId}`, `/ui/environments/${env.id}`, `/ui/services/container/${workerId}`]) {
      const linksRead = page.waitForResponse((r) => r.url().endsWith('/link'));
      await page.goto(`${berth.base}${path}`);
      await linksRead;
      await page.locator('h1', { hasNotText: '…' }).waitFor();
      if (path.includes(webId)) await page.locator('main a[target="_blank"]').first().waitFor();
      // what was seen: two URLs printed with nothing between them ("…:8000http://…")
      assert.doesNotMatch(await page.locator('main').innerText(), /\S(?=https?:\/\/)/, `${path}: a URL runs into the text before it`);
      for (const a of await anchors(page, 'main')) {
        assert.ok((a.text.match(/http/g) ?? []).length <= 1, `anchor "${a.text}" holds more than one URL`);
      }
    }
    assert.equal(await page.getByRole('region', { name: 'Public URLs' }).count(), 0, 'the worker shows no public URL');
  });
});
