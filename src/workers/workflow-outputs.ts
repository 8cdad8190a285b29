// The agentic workflow output delivery worker: one attempt per `workflows.output-deliver` task.
// It sends the body stored when the run finished, with the output's headers and the Standard
// Webhooks signature (the workflow's output signing secret; webhook-id stable across retries),
// through the organization webhooks' guarded POST, records the attempt, and on failure schedules
// the next attempt with the webhooks' back-off (Retry-After honoured, three days at most). A target
// the guard refuses, a header that cannot be sent, or a 410 ends the delivery FAILED at once, and
// the attempt says why. Decision 0192.
import type { AppContext } from '../context.ts';
import { postJson, type PostResult } from '../modules/webhooks/webhooks.http.ts';
import { attemptOutcome, signatureHeaders } from '../modules/webhooks/webhooks.rules.ts';
import { attemptHeaders, headersProblem, outputUrlProblem } from '../modules/workflows/outputs.rules.ts';
import { openHeaders, workflowOutputSigningSecret } from '../modules/workflows/outputs.service.ts';

type Ctx = Pick<AppContext, 'db' | 'config' | 'sealer' | 'services'>;

/** an attempt not made: nothing was sent, and retrying cannot help */
const refused = (error: string): PostResult => ({ status: null, body: null, retryAfter: undefined, error, refused: true, durationMs: 0 });

export async function deliverWorkflowOutput(ctx: Ctx, deliveryId: string): Promise<void> {
  const { db } = ctx;
  const outputs = ctx.services.workflowOutputs;
  // the organization webhooks' schedule: the same back-off, give-up age and per-attempt timeout
  const retries = ctx.services.webhooks.retries;
  const d = await outputs.pendingDelivery(deliveryId);
  if (!d) return;
  const attempt = d.attempts + 1;
  const allowPrivate = ctx.config.webhookAllowPrivateTargets;
  const headers = openHeaders(ctx.sealer, d.headers_sealed);
  let problem = outputUrlProblem(d.target_url, allowPrivate) ?? headersProblem(headers);
  const secret = problem === null ? await workflowOutputSigningSecret(db, ctx.services.workflows, d.workflow_id) : null;
  if (problem === null && secret === null) problem = 'the workflow has no webhook secret to derive the signing secret from';
  const result = problem !== null
    ? refused(problem)
    : await postJson(d.target_url, d.body, attemptHeaders(headers, signatureHeaders(secret!, d.message_id, d.body)),
      { allowPrivate, timeoutMs: retries.timeoutMs });
  const { ok, retryInMs } = attemptOutcome(retries, result, attempt, Date.now() - new Date(d.created_at).getTime());
  await outputs.recordAttempt({
    deliveryId: d.id, attempt, targetUrl: d.target_url, result, ok,
    nextAttemptAt: retryInMs === null ? null : new Date(Date.now() + retryInMs),
  });
}
