// A service's advanced settings in the console, in Chromium, against a real berth on loopback with
// the simulated engine (issue 30): reached from the service's page, every key listed in its group
// with its value, its meaning and the simulated engine's reason for not applying it; a change to
// one ingress key and one deployment key saved (only those two sent, as the API then says); an
// invalid value shown next to its key with the API's 400 message and nothing saved; a viewer reads
// the same page with no save button.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { seedOrganization, type SeededOrganization } from '../support/harness.ts';
import { seedEnvironment } from '../support/factories.ts';
import { browserSkipReason, ensureConsoleBuilt, launchChromium, screenshot, startListeningBerth, type Chrome, type LiveBerth, signedInPage } from './browser.ts';

const skip = browserSkipReason();
const BODY_SIZE = 'network.ingress.proxy_body_size_mb';
const STRATEGY = 'deployment.update_strategy.type';
const ALLOW = 'network.ingress.whitelist_source_range';
const TIMEOUT = 'build.timeout_max_sec';

describe('the console\'s advanced settings of a service', { skip: skip ?? false }, () => {
  let berth: LiveBerth;
  let chrome: Chrome;
  let page: Page;
  let org: SeededOrganization;
  let appId = '';
  const url = () => `${berth.base}/ui/services/application/${appId}/settings/advanced`;

  before(async () => {
    ensureConsoleBuilt();
    berth = await startListeningBerth();
    org = await seedOrganization(berth.t);
    const env = await seedEnvironment(berth.t, org);
    appId = (await api('POST', `/environment/${env.id}/application`, {
      name: 'storefront', git_repository: { url: 'https://github.com/acme/storefront.git', branch: 'main' },
      ports: [{ internal_port: 8080, publicly_accessible: true }],
    })).id;
    chrome = await launchChromium();
    page = await signedInPage(chrome, org.token);
  });
  after(async () => {
    await chrome?.close();
    await berth?.close();
  });

  async function api(method: string, path: string, body?: unknown) {
    const r = await berth.t.request(method, path, { token: org.token, body });
    assert.ok(r.status < 300, r.raw);
    return r.body;
  }
  const settings = async () => await api('GET', `/application/${appId}/advancedSettings`) as Record<string, unknown>;
  const row = (key: string) => page.locator(`tr[data-setting="${key}"]`);
  const input = (key: string) => page.getByLabel(key, { exact: true });
  const button = (name: string) => page.getByRole('button', { name, exact: true });
  /** the bodies of the PUTs the page sends */
  const puts: unknown[] = [];

  test('every key with its value, its meaning and why the simulated engine does not apply it', async () => {
    page.on('request', (r) => { if (r.method() === 'PUT' && r.url().includes('/advancedSettings')) puts.push(r.postDataJSON()); });
    await page.goto(`${berth.base}/ui/services/application/${appId}`);
    await page.getByRole('link', { name: 'Advanced settings', exact: true }).click();
    await page.waitForURL(`**/ui/services/application/${appId}/settings/advanced`);
    await row(BODY_SIZE).waitFor();

    const values = await settings();
    const support = await api('GET', `/application/${appId}/advancedSettings/engineSupport`) as { engine: string; results: Array<{ key: string; applied: boolean; reason: string }> };
    assert.equal(support.engine, 'simulated');
    const keys = Object.keys(values);
    assert.equal(support.results.length, keys.length);
    const note = page.getByRole('note', { name: 'Engine' });
    assert.match(await note.innerText(), new RegExp(`simulated engine, which does not apply ${keys.length} of the ${keys.length} settings below[\\s\\S]*next deployment, except the network\\.ingress\\.\\* settings, which take effect at once`));

    const rows = await page.locator('tr[data-setting]').evaluateAll((trs: any[]) => trs.map((tr) => {
      const field = tr.querySelector('input, select, textarea');
      return { key: tr.dataset.setting, text: tr.innerText, value: field.type === 'checkbox' ? field.checked : field.value, tag: field.tagName };
    }));
    assert.deepEqual(rows.map((r) => r.key), keys, 'every key, in the API\'s order');
    for (const r of rows) {
      const v = values[r.key];
      const expected = typeof v === 'boolean' ? v : v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
      assert.equal(r.value, expected, `${r.key}'s input holds its value`);
      const reason = support.results.find((s) => s.key === r.key)!.reason;
      assert.ok(r.text.includes(`not applied by the simulated engine: ${reason}`), `${r.key} is marked not applied, with why: ${r.text}`);
    }
    // inputs by type: an enum is a select, a boolean a checkbox, an array JSON text
    assert.equal(rows.find((r) => r.key === STRATEGY)!.tag, 'SELECT');
    assert.equal(await input('security.read_only_root_filesystem').getAttribute('type'), 'checkbox');
    assert.equal(await input(BODY_SIZE).getAttribute('type'), 'number');
    assert.equal(rows.find((r) => r.key === 'deployment.lifecycle.pre_stop_exec_command')!.tag, 'TEXTAREA');
    // the meanings are the OpenAPI document's descriptions
    assert.match(await row(BODY_SIZE).innerText(), /Maximum size of a client request body accepted by the ingress proxy, in MB\./);
    for (const group of ['Deployment', 'Build', 'Ingress', 'Gateway API', 'Autoscaling', 'Security']) {
      await page.getByRole('region', { name: group, exact: true }).waitFor();
    }
    assert.equal(await row(BODY_SIZE).getByText('default:').count(), 0, 'no default shown while the value is the default');
  });

  test('a change to an ingress key and a deployment key sends only those two, and the API has them', async () => {
    const before = await settings();
    await input(BODY_SIZE).fill('5');
    await input(STRATEGY).selectOption('Recreate');
    await page.getByText(`2 changed: ${STRATEGY}, ${BODY_SIZE}`).waitFor();
    await button('Save').click();
    const status = page.getByRole('status');
    await status.waitFor();
    assert.match(await status.innerText(), new RegExp(`Saved ${STRATEGY}, ${BODY_SIZE}\\. Ingress settings take effect at once\\. The others take effect at the next deployment\\.`));
    assert.deepEqual(puts, [{ [BODY_SIZE]: 5, [STRATEGY]: 'Recreate' }], 'only the changed keys are sent');
    const after = await settings();
    assert.deepEqual(after, { ...before, [BODY_SIZE]: 5, [STRATEGY]: 'Recreate' });
    assert.match(await row(BODY_SIZE).innerText(), /default: 100/);
    assert.match(await row(STRATEGY).innerText(), /default: RollingUpdate/);

    await page.reload();
    await row(BODY_SIZE).waitFor();
    assert.equal(await input(BODY_SIZE).inputValue(), '5');
    assert.equal(await input(STRATEGY).inputValue(), 'Recreate');
    // the engine note, the deployment group with its change and the save bar, in one screen
    await page.setViewportSize({ width: 1280, height: 1500 });
    await screenshot(page, 'advanced-settings', false);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test('an invalid value: the API\'s 400 next to its key, and nothing saved', async () => {
    puts.length = 0;
    const before = await settings();
    // JSON that is not an array of strings is refused in the page, before any request
    await input('deployment.lifecycle.pre_stop_exec_command').fill('sleep 15');
    await button('Save').click();
    await row('deployment.lifecycle.pre_stop_exec_command').getByRole('alert').getByText(/must be a JSON array of strings/).waitFor();
    assert.equal(puts.length, 0, 'nothing sent');
    await button('Discard changes').click();
    assert.equal(await input('deployment.lifecycle.pre_stop_exec_command').inputValue(), '["/bin/sh","-c","sleep 15"]');

    await input(ALLOW).fill('everyone');
    await input(TIMEOUT).fill('900');
    await button('Save').click();
    const alert = row(ALLOW).getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /^network\.ingress\.whitelist_source_range: "everyone" is not a valid CIDR range/);
    assert.equal(await row(ALLOW).getAttribute('class'), 'invalid');
    assert.equal(await row(TIMEOUT).getByRole('alert').count(), 0, 'the valid key has no error');
    assert.deepEqual(puts, [{ [ALLOW]: 'everyone', [TIMEOUT]: 900 }]);
    assert.deepEqual(await settings(), before, 'nothing saved, not even the valid key sent with it');
    assert.equal(await page.getByRole('status').count(), 0);
  });

  test('a viewer reads the settings and has no save button', async () => {
    const viewer = await signedInPage(chrome, await org.tokenFor('VIEWER'));
    await viewer.goto(url());
    await viewer.getByText('Read-only: your role can look at these settings but not change them.').waitFor();
    await viewer.locator(`tr[data-setting="${BODY_SIZE}"]`).waitFor();
    assert.equal(await viewer.getByLabel(BODY_SIZE, { exact: true }).inputValue(), '5');
    assert.ok(await viewer.getByLabel(BODY_SIZE, { exact: true }).isDisabled(), 'inputs are read-only');
    for (const name of ['Save', 'Discard changes']) assert.equal(await viewer.getByRole('button', { name, exact: true }).count(), 0, name);
    await viewer.close();
  });
});
