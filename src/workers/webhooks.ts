// The webhook delivery worker: one attempt per task. Signs the event per Standard Webhooks
// (webhook-id stable across retries), records the attempt, and on failure schedules the next
// attempt itself (back-off with jitter, Retry-After honoured, three days at most); a 410 disables
// the webhook; a refused (non-public) target is not retried.
import type { AppContext } from '../context.ts';
import { postJson } from '../modules/webhooks/webhooks.http.ts';
import { attemptOutcome, signatureHeaders } from '../modules/webhooks/webhooks.rules.ts';

type Ctx = Pick<AppContext, 'config' | 'sealer' | 'services'>;

export async function deliverWebhookEvent(ctx: Ctx, eventId: string): Promise<void> {
  const webhooks = ctx.services.webhooks;
  const pending = await webhooks.pendingDelivery(eventId);
  if (!pending) return;
  const { event: ev, webhook: hook } = pending;
  const attempt = ev.attempts + 1;
  const secret = ctx.sealer.open(hook.secret_sealed);
  const result = await postJson(hook.target_url, ev.body, signatureHeaders(secret, ev.message_id, ev.body),
    { allowPrivate: ctx.config.webhookAllowPrivateTargets, timeoutMs: webhooks.retries.timeoutMs });
  const { ok, gone, retryInMs: delay } = attemptOutcome(webhooks.retries, result, attempt, Date.now() - new Date(ev.created_at).getTime());
  await webhooks.recordAttempt({
    eventId: ev.id, webhookId: hook.id, attempt, targetUrl: hook.target_url, result, ok, gone,
    nextAttemptAt: delay === null ? null : new Date(Date.now() + delay),
  });
}
