// A backlog of webhook deliveries drains at the speed of the receiver, not of the queue's polling:
// every delivery slot takes the next task as soon as it finished one. (pg-boss sleeps out the rest
// of its polling interval after each fetch, so with 0.5 s polling each slot used to deliver at
// most two a second however fast the receiver answered: 60 deliveries took ≥ 7.5 s on 4 slots.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import * as webhooksRepo from '../../src/modules/webhooks/webhooks.repo.ts';
import { startWebhookWorkers } from '../../src/workers/handlers.ts';
import { eventually, seedOrganization, startTestApp, type TestApp } from '../support/harness.ts';

describe('webhook delivery backlog', () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  const seen = new Set<string>();
  let inFlight = 0;
  let maxInFlight = 0;

  before(async () => {
    server = createServer((req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      req.resume();
      req.on('end', () => setTimeout(() => {
        seen.add(String(req.headers['webhook-id']));
        inFlight--;
        res.writeHead(200).end('ok');
      }, 20));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await startTestApp({ config: { webhookAllowPrivateTargets: true } });
    await startWebhookWorkers(t.ctx);
  });
  after(async () => {
    await t.close();
    await new Promise((r) => server.close(r));
  });

  test('60 waiting deliveries to a fast receiver take far less than their polling time, 4 at once', async () => {
    const org = await seedOrganization(t);
    const hook = await t.request('POST', `/organization/${org.id}/webhook`, { token: org.token, body: { target_url: `${base}/backlog`, events: ['DEPLOYMENT_STARTED'] } });
    assert.equal(hook.status, 201, hook.raw);
    const count = 60;
    // the backlog is already there when the workers look (as after a burst of events or an
    // outage): due together in 300 ms, enqueued without the wake-up an enqueue gives local workers
    const dueAt = new Date(Date.now() + 300);
    await t.ctx.db.transaction(async (tx) => {
      for (let i = 0; i < count; i++) {
        const body = JSON.stringify({ event_id: randomUUID(), event_type: 'DEPLOYMENT_STARTED', created_at: new Date().toISOString(), payload: { i } });
        const eventId = await webhooksRepo.insertEvent(tx, { webhookId: hook.body.id, organizationId: org.id, kind: 'DEPLOYMENT_STARTED', messageId: `msg_backlog_${i}_${randomUUID().slice(0, 8)}`, body });
        await t.ctx.queue.enqueue(tx, 'webhooks.deliver', { eventId }, { startAfter: dueAt });
      }
    });
    await eventually(async () => Date.now() >= dueAt.getTime(), 5_000, 20);
    const started = performance.now();
    await eventually(async () => [...seen].filter((id) => id.startsWith('msg_backlog_')).length >= count, 30_000, 20);
    const seconds = (performance.now() - started) / 1000;
    // polling-bound: 60 / 4 slots × 0.5 s = 7.5 s at least; receiver-bound: 60 × 20 ms / 4 = 0.3 s
    assert.ok(seconds < 4, `60 deliveries took ${seconds.toFixed(1)} s: the slots wait for their next poll between tasks`);
    assert.equal(maxInFlight, 4, 'the worker delivers 4 at once (its concurrency)');
  });
});
