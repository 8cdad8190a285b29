// Pure rules of agentic workflow output deliveries (no I/O): which run states are delivered, the
// JSON body a delivery carries, the signing secret derived from the workflow's webhook secret, the
// headers sent (the output's own, minus those berth sets itself) and why a target or a header is
// refused. Signing, back-off and the SSRF guard are the organization webhooks' (webhooks.rules.ts,
// webhooks.http.ts); this file only adds what is particular to outputs. Decision 0192.
import { createHmac } from 'node:crypto';
import { targetUrlProblem } from '../webhooks/webhooks.rules.ts';
import type { OutputSpec } from './workflows.rules.ts';
import type { OutputMessage } from './outputs.schemas.ts';

/** the `type` of every output delivery's body */
export const OUTPUT_MESSAGE_TYPE = 'agentic_workflow.run.finished';

/** the run states whose result is delivered */
export const FINAL_RUN_STATUSES: readonly string[] = ['SUCCEEDED', 'FAILED', 'CANCELED'];

/** headers berth sets itself: an output header of one of these names is not sent */
const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type', 'content-length', 'user-agent', 'host', 'connection',
  'transfer-encoding',
]);

/** what the body says of the run, its workflow and where it ran */
export interface FinishedRunFacts {
  id: string; status: string; trigger: string; message: string | null; result: string | null;
  num_turns: number | null; input_tokens: number | null; output_tokens: number | null; cost_usd: number | null; duration_ms: number | null;
  created_at: string; started_at: string | null; finished_at: string | null;
  workflow_id: string; workflow_name: string; environment_id: string; organization_id: string;
}

/** the outputs that get a delivery: those with a url, in the workflow's order */
export function deliverableOutputs(outputs: readonly OutputSpec[]): OutputSpec[] {
  return outputs.filter((o) => typeof o.url === 'string' && o.url.trim() !== '');
}

/** the JSON body of a delivery (built once, when the run finished: every attempt sends the same bytes) */
export function outputMessage(run: FinishedRunFacts, outputName: string, now: Date): OutputMessage {
  return {
    type: OUTPUT_MESSAGE_TYPE,
    timestamp: now.toISOString(),
    data: {
      run: {
        id: run.id, status: run.status, trigger: run.trigger, message: run.message, result: run.result, num_turns: run.num_turns,
        input_tokens: run.input_tokens, output_tokens: run.output_tokens, cost_usd: run.cost_usd, duration_ms: run.duration_ms,
        created_at: run.created_at, started_at: run.started_at, finished_at: run.finished_at,
      },
      agentic_workflow: { id: run.workflow_id, name: run.workflow_name },
      output: { name: outputName },
      environment_id: run.environment_id,
      organization_id: run.organization_id,
    },
  };
}

/** what the HMAC of the derivation covers: a label and the workflow's id (lower case, as in its URLs) */
function signingKeyLabel(workflowId: string): string {
  return `berth-agentic-workflow-outputs:${workflowId.toLowerCase()}`;
}

/**
 * The Standard Webhooks secret output deliveries are signed with: `whsec_` + base64 of
 * HMAC-SHA256(key = the workflow's webhook secret (the last segment of webhook.url),
 * message = `berth-agentic-workflow-outputs:<workflow id>`). Whoever holds webhook.url can compute
 * it; whoever holds only this secret can verify deliveries but cannot trigger runs.
 */
export function outputSigningSecret(webhookSecret: string, workflowId: string): string {
  return 'whsec_' + createHmac('sha256', webhookSecret).update(signingKeyLabel(workflowId)).digest('base64');
}

/** null when berth may send to this url, else why not (the webhooks' rule, worded for an output) */
export function outputUrlProblem(url: string, allowPrivate: boolean): string | null {
  const problem = targetUrlProblem(url, allowPrivate);
  return problem === null ? null : problem.replace(/^target_url/, "the output's url");
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// what Node's HTTP client accepts in a header value (no CR, LF, NUL or other control character)
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** null when every header can be sent, else which one cannot and why */
export function headersProblem(headers: ReadonlyArray<{ name: string; value: string }>): string | null {
  for (const h of headers) {
    if (!TOKEN.test(h.name)) return `the output header name '${h.name}' is not a valid HTTP header name`;
    if (!FIELD_VALUE.test(h.value)) return `the value of the output header '${h.name}' contains characters an HTTP header cannot carry (line breaks, control characters or characters beyond Latin-1)`;
  }
  return null;
}

/** the headers of one attempt: the output's own (reserved names left out), then the signature's */
export function attemptHeaders(headers: ReadonlyArray<{ name: string; value: string }>, signature: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of headers) if (!RESERVED_HEADERS.has(h.name.toLowerCase())) out[h.name] = h.value;
  return { ...out, ...signature };
}
