// The webhook delivery worker: one attempt per task. Signs the event per Standard Webhooks
// (webhook-id stable across retries), records the attempt, and on failure schedules the next
// attempt itself (back-off with jitter, Retry-After honoured, three days at most); a 410 disables
// the webhook; a refused (non-public) target is not retried.
import type { AppContext } from '../context.ts';
import * as webhooks from '../modules/webhooks/webhooks.service.ts';
import { postJson } from '../modules/webhooks/webhooks.http.ts';
import { attemptOutcome, retrySettings, signatureHeaders } from '../modules/webhooks/webhooks.rules.ts';

type Ctx = Pick<AppContext, 'db' | 'queue' | 'config' | 'logger' | 'sealer'>;

export async function deliverWebhookEvent(ctx: Ctx, eventId: string): Promise<void> {
  const { db } = ctx;
  const ev = await webhooks.findEvent(db, eventId);
  if (!ev || ev.status !== 'PENDING') return;
  const hook = await webhooks.findWebhookById(db, ev.webhook_id);
  if (!hook) return;
  const attempt = ev.attempts + 1;
  if (!hook.enabled) {
    await webhooks.updateEventOutcome(db, ev.id, { status: 'FAILED', attempts: ev.attempts, lastStatusCode: ev.last_status_code, targetUrl: hook.target_url, nextAttemptAt: null });
    return;
  }
  const secret = ctx.sealer.open(hook.secret_sealed);
  const result = await postJson(hook.target_url, ev.body, signatureHeaders(secret, ev.message_id, ev.body),
    { allowPrivate: ctx.config.webhookAllowPrivateTargets, timeoutMs: retrySettings.timeoutMs });
  const { ok, gone, retryInMs: delay } = attemptOutcome(result, attempt, Date.now() - new Date(ev.created_at).getTime());
  await db.transaction(async (tx) => {
    await webhooks.recordAttempt(tx, {
      eventId: ev.id, attempt, targetUrl: hook.target_url, status: result.status, body: result.body, error: result.error, durationMs: result.durationMs,
    });
    const nextAt = delay === null ? null : new Date(Date.now() + delay);
    await webhooks.updateEventOutcome(tx, ev.id, {
      status: ok ? 'DELIVERED' : nextAt ? 'PENDING' : 'FAILED', attempts: attempt, lastStatusCode: result.status, targetUrl: hook.target_url, nextAttemptAt: nextAt,
    });
    if (gone) await webhooks.disableWebhook(tx, hook.id, 'The target answered 410 Gone');
    if (nextAt) await ctx.queue.enqueue(tx, 'webhooks.deliver', { eventId: ev.id }, { startAfter: nextAt });
  });
}
