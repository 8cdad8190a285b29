// Agentic workflow runs in the console, in Chromium against a listening berth on the simulated
// engine: "Run now" with a JSON payload opens the run, whose view shows its transcript, result,
// payload and figures and the delivery of its result to an output (redelivered); the payload
// editor refuses what is not JSON; a transcript's lines are styled by kind; a result, message,
// payload or log line holding markup is shown as text; a queued and a running run are canceled
// after a confirmation; a viewer sees runs but no Run now, Cancel or Redeliver; a DEVOPS token
// sees Run now and starts a run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { startWorkflowOutputWorkers } from '../../src/workers/handlers.ts';
import { eventually, seedOrganization, type SeededOrganization } from '../support/harness.ts';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { browserSkipReason, ensureConsoleBuilt, launchChromium, screenshot, startListeningBerth, type Chrome, type LiveBerth, signedInPage } from './browser.ts';
import { TRIAGE_RUN, recordRun } from './recorded-run.ts';

// browser globals, used only inside page.evaluate (this file is type-checked without the DOM lib)
declare const document: any;

const skip = browserSkipReason();
const UUID = '[0-9a-f-]{36}';
const MARKUP = '<img src=x onerror=alert(1)>';

describe('agentic workflow runs in the console', { skip: skip ?? false }, () => {
  let berth: LiveBerth;
  let chrome: Chrome;
  let page: Page;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  let viewerToken: string;
  let receiver: Server;
  let received = 0;
  let workflowId = '';
  let manualRunId = '';

  const api = async (method: string, path: string, body?: unknown, token = org.token) => berth.t.request(method, path, { token, ...(body !== undefined ? { body } : {}) });
  const createWorkflow = async (environment: SeededEnvironment, name: string, extra: Record<string, unknown> = {}) => {
    const r = await api('POST', `/environment/${environment.id}/agenticWorkflow`, { name, agent_prompt: 'Triage the alert in the payload.', ...extra });
    assert.equal(r.status, 201, r.raw);
    return r.body.id as string;
  };
  const runStatus = async (wf: string, run: string) => (await api('GET', `/agenticWorkflow/${wf}/run/${run}`)).body.status as string;
  const button = (name: string, on: Page = page) => on.getByRole('button', { name, exact: true });
  const runPage = (wf: string, run: string) => `${berth.base}/ui/workflows/${wf}/runs/${run}`;
  const statusBadge = (on: Page = page) => on.locator('h1 + .row [data-status]');

  before(async () => {
    ensureConsoleBuilt();
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => { received += 1; res.end('ok'); });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    berth = await startListeningBerth({}, { webhooks: true, simulated: { stepMs: 150 } });
    // the queue must know the delivery task before a run enqueues one inside a transaction (PGlite)
    await startWorkflowOutputWorkers(berth.t.ctx);
    org = await seedOrganization(berth.t, `initech-${Math.random().toString(36).slice(2, 8)}`);
    viewerToken = await org.tokenFor('VIEWER');
    env = await seedEnvironment(berth.t, org);
    workflowId = await createWorkflow(env, 'triage-agent', {
      outputs: [{ name: 'pager', url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/pager`, headers: [{ name: 'Authorization', value: 'Bearer out-7f3a' }] }],
    });
    chrome = await launchChromium();
    page = await signedInPage(chrome, org.token);
  });
  after(async () => {
    await chrome?.close();
    await berth?.close();
    await new Promise((r) => receiver?.close(r));
  });

  test('Run now with a payload opens the run: its transcript, result, payload, figures and output delivery (redelivered)', async () => {
    await page.goto(`${berth.base}/ui/workflows/${workflowId}`);
    await page.getByText('No run yet. Press Run now').waitFor();
    await button('Run now').click();
    await page.getByLabel('Payload (JSON)').fill('{"alert": "disk full on db-1", "severity": 2}');
    await button('Start run').click();
    await page.waitForURL(new RegExp(`/ui/workflows/${workflowId}/runs/${UUID}$`));
    const runId = page.url().split('/').pop()!;
    manualRunId = runId;
    await statusBadge().and(page.locator('[data-status="SUCCEEDED"]')).waitFor({ timeout: 20_000 });
    const transcript = page.locator('pre[aria-label="Transcript"]');
    await transcript.locator('.line', { hasText: 'Agent started' }).waitFor();
    assert.match(await transcript.locator('.line.outcome').last().innerText(), /result: No agent ran/);
    await page.locator('pre.result', { hasText: '[simulated] No agent ran: the simulated engine calls no model' }).waitFor();
    assert.equal(await page.locator('pre.payload').innerText(), JSON.stringify({ alert: 'disk full on db-1', severity: 2 }, null, 2));
    assert.match(await page.locator('dt:text("Trigger") + dd').innerText(), /^manual by ./);
    assert.equal(await page.locator('dt:text("Cost") + dd').innerText(), '$0.0000');
    assert.equal(await button('Cancel run').count(), 0, 'no cancel once it has ended');
    const run = (await api('GET', `/agenticWorkflow/${workflowId}/run/${runId}`)).body;
    assert.deepEqual([run.trigger, run.payload], ['MANUAL', { alert: 'disk full on db-1', severity: 2 }]);

    // its result went to the output; sent again on demand
    const delivery = page.locator('details.delivery[data-output="pager"]');
    await delivery.locator('[data-status="DELIVERED"]').waitFor({ timeout: 15_000 });
    await delivery.locator('summary').click();
    await delivery.getByRole('cell', { name: '200' }).waitFor();
    assert.match(await delivery.innerText(), /Authorization \(values never shown\)/);
    assert.ok(!(await page.content()).includes('out-7f3a'), 'header values never shown');
    const before = received;
    await delivery.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Redeliver' }).click();
    await eventually(async () => received > before, 10_000);
    await delivery.locator('summary', { hasText: '2 attempts' }).waitFor({ timeout: 10_000 });

    // and the workflow page lists it
    await page.getByRole('link', { name: 'triage-agent' }).first().click();
    // a list cached while the run was queued is shown at once and refreshed (the run page marked it stale)
    const row = page.locator(`tr[data-run="${runId}"]`, { hasText: 'succeeded' });
    await row.waitFor({ timeout: 10_000 });
    assert.match(await row.innerText(), /succeeded[\s\S]*manual by [\s\S]*\$0\.0000[\s\S]*\[simulated\] No agent ran/);
  });

  test('the payload editor refuses what is not JSON, next to the field, and sends nothing', async () => {
    const count = async () => (await api('GET', `/agenticWorkflow/${workflowId}/run`)).body.pagination.total_count as number;
    const runs = await count();
    await page.goto(`${berth.base}/ui/workflows/${workflowId}`);
    await button('Run now').click();
    const field = page.getByLabel('Payload (JSON)');
    await field.fill('{"alert": }');
    await button('Start run').click();
    const error = page.locator('.field.invalid .field-error');
    await error.waitFor();
    assert.match(await error.innerText(), /^Payload is not valid JSON: /);
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    assert.match(page.url(), new RegExp(`/ui/workflows/${workflowId}$`), 'still on the workflow page');
    assert.equal(await count(), runs, 'no run started');
    await field.fill('{"alert": "ok"}');
    assert.equal(await page.locator('.field.invalid').count(), 0, 'the error goes once the text changes');
    await button('Cancel').click();
    assert.equal(await page.getByLabel('Payload (JSON)').count(), 0);
  });

  test('a transcript is styled by kind: assistant text, tool calls and results, refused egress, errors', async () => {
    const failedId = await recordRun(berth.t, env, workflowId, {
      status: 'FAILED', result: null, message: 'The model endpoint refused the request: 401 invalid x-api-key',
      figures: { numTurns: null, inputTokens: null, outputTokens: null, costUsd: null, durationMs: 2140 },
      lines: [['RUNTIME', 'Model API error 401 invalid x-api-key: retry 1 of 10 in 1 s']],
    });
    const runId = await recordRun(berth.t, env, workflowId, TRIAGE_RUN);
    await page.goto(runPage(workflowId, runId));
    const transcript = page.locator('pre[aria-label="Transcript"]');
    await transcript.locator('.line.outcome', { hasText: 'Agent finished' }).waitFor();
    // each line is its time, a space, then the message
    const shown = await transcript.locator('.line').evaluateAll((els: any[]) => els.map((e) => e.textContent.slice(e.querySelector('.ts').textContent.length + 1)));
    assert.deepEqual(shown, TRIAGE_RUN.lines.map(([, m]) => m), 'every line, in order');
    const kindOf = async (text: string) => (await transcript.locator('.line', { hasText: text }).getAttribute('class'))!;
    assert.match(await kindOf("assistant: I'll read the runbook"), /\bassistant\b/);
    assert.match(await kindOf('tool call: Read'), /\btool-call\b/);
    assert.match(await kindOf('tool result (Read)'), /\btool-result\b/);
    assert.match(await kindOf('egress refused: metrics.internal'), /\begress-refused\b/);
    assert.match(await kindOf('tool error (WebFetch)'), /\bagent-error\b/);
    assert.equal(await page.locator('dt:text("Cost") + dd').innerText(), '$0.0724');
    assert.equal(await page.locator('dt:text("Tokens") + dd').innerText(), '18,432 in · 1,206 out');
    assert.equal(await page.locator('dt:text("Duration") + dd').innerText(), '48 s');
    assert.equal(await page.locator('pre.result').innerText(), TRIAGE_RUN.result);
    const delivery = page.locator('details.delivery[data-output="pager"]');
    await delivery.locator('[data-status="DELIVERED"]').waitFor({ timeout: 15_000 });
    await delivery.locator('summary').click();
    await delivery.getByRole('cell', { name: '200' }).waitFor();
    await screenshot(page, 'agentic-workflow-run');
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 1, `no sideways scrolling on a phone (overflow ${overflow}px)`);

    await page.goto(`${berth.base}/ui/workflows/${workflowId}`);
    const row = (id: string) => page.locator(`tr[data-run="${id}"]`);
    await row(runId).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth) <= 1, true, 'the runs list fits a phone');
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.match(await row(runId).innerText(), /succeeded[\s\S]*48 s[\s\S]*6[\s\S]*18,432 \/ 1,206[\s\S]*\$0\.0724[\s\S]*db-1: \/var\/lib\/postgresql is 97% full/);
    assert.match(await row(failedId).innerText(), /failed[\s\S]*The model endpoint refused the request: 401/);
    await screenshot(page, 'workflow');
  });

  test('a result, message, payload or log line holding markup is shown as text', async () => {
    const dialogs: string[] = [];
    page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
    const runId = await recordRun(berth.t, env, workflowId, {
      status: 'FAILED', result: MARKUP, message: `failed: ${MARKUP}`, payload: { note: '<script>alert(2)</script>' },
      lines: [['RUNTIME', `assistant: ${MARKUP}`], ['RUNTIME', `result: ${MARKUP}`]],
    });
    await page.goto(runPage(workflowId, runId));
    await page.locator('pre.result').waitFor();
    assert.equal(await page.locator('pre.result').innerText(), MARKUP);
    assert.equal(await page.locator('.run-message').innerText(), `failed: ${MARKUP}`);
    assert.match(await page.locator('pre.payload').innerText(), /"note": "<script>alert\(2\)<\/script>"/);
    await page.locator('pre[aria-label="Transcript"] .line', { hasText: `assistant: ${MARKUP}` }).waitFor();
    await page.goto(`${berth.base}/ui/workflows/${workflowId}`);
    await page.locator(`tr[data-run="${runId}"] td.outcome`, { hasText: MARKUP }).waitFor();
    await page.goto(runPage(workflowId, runId));
    await page.locator('pre.result').waitFor();
    assert.equal(await page.evaluate(() => document.querySelectorAll('main img, main script').length), 0, 'no element made from the data');
    assert.deepEqual(dialogs, [], 'nothing ran');
  });

  test('cancel: a queued run and a running one, each after a confirmation; a viewer sees no Cancel', async () => {
    // slow steps: the first run holds the environment while it runs, so the second waits QUEUED
    berth.t.engine.configure({ stepMs: 15_000 });
    const own = await seedEnvironment(berth.t, org);
    const wf = await createWorkflow(own, 'slow-agent');
    try {
      const first = (await api('POST', `/agenticWorkflow/${wf}/run`)).body.id as string;
      const second = (await api('POST', `/agenticWorkflow/${wf}/run`, { n: 2 })).body.id as string;
      await eventually(async () => (await runStatus(wf, first)) === 'RUNNING', 10_000);
      assert.equal(await runStatus(wf, second), 'QUEUED');

      const viewer = await signedInPage(chrome, viewerToken);
      await viewer.goto(runPage(wf, first));
      await statusBadge(viewer).and(viewer.locator('[data-status="RUNNING"]')).waitFor();
      await viewer.locator('dt:text("Cost") + dd').waitFor();
      assert.equal(await button('Cancel run', viewer).count(), 0, 'no Cancel for a viewer');
      await viewer.close();

      await page.goto(runPage(wf, second));
      await statusBadge().and(page.locator('[data-status="QUEUED"]')).waitFor();
      await button('Cancel run').click();
      const dialog = page.getByRole('dialog');
      assert.match(await dialog.innerText(), /has not started/);
      await dialog.getByRole('button', { name: 'Keep it' }).click();
      await dialog.waitFor({ state: 'hidden' });
      assert.equal(await runStatus(wf, second), 'QUEUED', 'kept');
      await button('Cancel run').click();
      await dialog.getByRole('button', { name: 'Cancel run' }).click();
      await statusBadge().and(page.locator('[data-status="CANCELED"]')).waitFor();
      await page.locator('.run-message', { hasText: /^Canceled/ }).waitFor();
      assert.equal(await button('Cancel run').count(), 0);

      await page.goto(runPage(wf, first));
      await statusBadge().and(page.locator('[data-status="RUNNING"]')).waitFor();
      await page.locator('pre[aria-label="Transcript"] .line', { hasText: 'Starting an agent run' }).waitFor();
      await button('Cancel run').click();
      assert.match(await dialog.innerText(), /container killed/);
      await dialog.getByRole('button', { name: 'Cancel run' }).click();
      await statusBadge().and(page.locator('[data-status="CANCELED"]')).waitFor();
      const dep = await eventually(async () => {
        const d = (await api('GET', `/deployment/${(await api('GET', `/agenticWorkflow/${wf}/run/${first}`)).body.deployment_id}`)).body;
        return d.finished ? d : null;
      }, 20_000);
      assert.equal(dep.status, 'CANCELED', 'its deployment was canceled too');
    } finally {
      berth.t.engine.configure({ stepMs: 150 });
    }
  });

  test('a viewer sees the runs but no Run now or Redeliver, and the server refuses a run anyway', async () => {
    const viewer = await signedInPage(chrome, viewerToken);
    await viewer.goto(`${berth.base}/ui/workflows/${workflowId}`);
    const first = viewer.locator(`tr[data-run="${manualRunId}"]`);
    await first.waitFor();
    await viewer.getByText('Incoming webhook').waitFor();
    assert.equal(await button('Run now', viewer).count(), 0, 'no Run now for a viewer');
    assert.equal(await button('Edit settings', viewer).count(), 0);
    await first.getByRole('link').click();
    const delivery = viewer.locator('details.delivery[data-output="pager"]');
    await delivery.locator('summary').click();
    await delivery.getByRole('cell', { name: '200' }).first().waitFor();
    assert.equal(await button('Redeliver', viewer).count(), 0, 'no Redeliver for a viewer');
    const refused = await viewer.evaluate(async ({ id, token }) => {
      const r = await fetch(`/agenticWorkflow/${id}/run`, { method: 'POST', headers: { authorization: `Token ${token}`, 'content-type': 'application/json' }, body: '{}' });
      return r.status;
    }, { id: workflowId, token: viewerToken });
    assert.equal(refused, 403);
    await viewer.close();
  });

  test('a DEVOPS token sees Run now and Edit settings (its role allows runs, decision 0605) and starts a run', async () => {
    const devops = await signedInPage(chrome, await org.tokenFor('DEVOPS'));
    await devops.goto(`${berth.base}/ui/workflows/${workflowId}`);
    await devops.getByText('Incoming webhook').waitFor();
    await button('Run now', devops).waitFor();
    assert.equal(await button('Edit settings', devops).count(), 1);
    await button('Run now', devops).click();
    await devops.getByLabel('Payload (JSON)').fill('{"from": "devops"}');
    await button('Start run', devops).click();
    await devops.waitForURL(new RegExp(`/ui/workflows/${workflowId}/runs/${UUID}$`));
    await statusBadge(devops).and(devops.locator('[data-status="SUCCEEDED"]')).waitFor({ timeout: 20_000 });
    const run = (await api('GET', `/agenticWorkflow/${workflowId}/run/${devops.url().split('/').pop()}`)).body;
    assert.deepEqual([run.trigger, run.payload], ['MANUAL', { from: 'devops' }]);
    await devops.close();
  });
});
