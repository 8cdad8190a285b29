// Output deliveries of agentic workflow runs. When a run ends (SUCCEEDED, FAILED or CANCELED),
// enqueueOutputDeliveries — called in the transaction that settles it — records one delivery per
// output with a url (body built then, url and headers snapshotted, header values sealed) and
// enqueues its first attempt; src/workers/workflow-outputs.ts makes the attempts. The routes'
// service lists a run's deliveries with their attempts (read) and redelivers one (write), and
// hands out the workflow's output signing secret (read). Decision 0192.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../db/db.ts';
import { page, type PageInfo, type PageRequest } from '../../http/pagination.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import type { Principal } from '../access/principal.ts';
import type { ScopeService } from '../scope/scope.service.ts';
import * as repo from './outputs.repo.ts';
import { deliverableOutputs, FINAL_RUN_STATUSES, outputMessage, outputSigningSecret } from './outputs.rules.ts';
import type { OutputDelivery, OutputMessage } from './outputs.schemas.ts';
import * as workflowsRepo from './workflows.repo.ts';
import type { OutputSpec } from './workflows.rules.ts';
import { WORKFLOW_LABEL, WORKFLOW_TYPE, type WorkflowsService } from './workflows.service.ts';

/** the task kind of one delivery attempt */
const OUTPUT_DELIVERY_TASK = 'workflows.output-deliver';

type Header = { name: string; value: string };

function sealHeaders(sealer: Sealer, headers: readonly Header[]): string | null {
  return headers.length === 0 ? null : sealer.seal(JSON.stringify(headers.map((h) => ({ name: h.name, value: h.value }))));
}

/** the headers of a delivery, opened (the worker sends them; nothing returns them) */
export function openHeaders(sealer: Sealer, sealed: string | null): Header[] {
  return sealed === null ? [] : (JSON.parse(sealer.open(sealed)) as Header[]);
}

/**
 * For a run in a final state: one delivery per output that has a url (none twice for the same
 * run and output, so calling it again is harmless) and a task for its first attempt, in `tx`.
 * Call it in the transaction that settles the run, after its status and result are written: the
 * body is built from the run row as it is then. Returns how many deliveries it made.
 */
export async function enqueueOutputDeliveries(tx: Queryable, deps: { queue: TaskQueue; sealer: Sealer }, runId: string): Promise<number> {
  const run = await repo.runForDelivery(tx, runId);
  if (!run || !FINAL_RUN_STATUSES.includes(run.status)) return 0;
  const now = new Date();
  let made = 0;
  for (const output of deliverableOutputs(run.spec.outputs ?? [])) {
    const headers = output.headers ?? [];
    const id = await repo.insertDelivery(tx, {
      runId, outputName: output.name, targetUrl: output.url!.trim(), headerNames: headers.map((h) => h.name),
      headersSealed: sealHeaders(deps.sealer, headers), messageId: `msg_${randomUUID().replaceAll('-', '')}`,
      body: JSON.stringify(outputMessage(run, output.name, now)),
    });
    if (!id) continue;
    await deps.queue.enqueue(tx, OUTPUT_DELIVERY_TASK, { deliveryId: id });
    made += 1;
  }
  return made;
}

/** the workflow's output signing secret (whsec_…), or null when it has no webhook secret */
export async function workflowOutputSigningSecret(db: Queryable, workflows: Pick<WorkflowsService, 'webhookSecret'>, workflowId: string): Promise<string | null> {
  const row = await workflowsRepo.findWorkflow(db, workflowId);
  const secret = row ? workflows.webhookSecret(row) : null;
  return secret ? outputSigningSecret(secret, workflowId) : null;
}

function toDelivery(d: repo.DeliveryRow, attempts: repo.AttemptRow[]): OutputDelivery {
  const last = attempts.at(-1);
  return {
    id: d.id, created_at: isoRequired(d.created_at), updated_at: iso(d.updated_at), run_id: d.run_id, agentic_workflow_id: d.workflow_id,
    output_name: d.output_name, status: d.status, target_url: d.target_url, header_names: d.header_names,
    webhook_message_id: d.message_id, request: JSON.parse(d.body) as OutputMessage, attempts: d.attempts,
    last_status_code: d.last_status_code, last_error: last?.error ?? null, next_attempt_at: iso(d.next_attempt_at),
    attempt_history: attempts.map((a) => ({
      attempt: a.attempt, created_at: isoRequired(a.created_at), target_url: a.target_url, response_status_code: a.response_status,
      response_body: a.response_body, error: a.error, duration_ms: a.duration_ms,
    })),
  };
}

export interface WorkflowOutputsService {
  /** a run's deliveries with their attempts (header names only) */
  list(p: Principal, workflowId: string, runId: string, req: PageRequest): Promise<{ results: OutputDelivery[]; pagination: PageInfo }>;
  /** PENDING again with the output's current url and headers, and a new attempt queued */
  redeliver(p: Principal, workflowId: string, runId: string, deliveryId: string): Promise<OutputDelivery>;
  signingSecret(p: Principal, workflowId: string): Promise<{ signing_secret: string }>;

  // For the delivery worker (src/workers/workflow-outputs.ts), outside a principal's request.
  /** the delivery to attempt now, or null when it is gone or no longer PENDING */
  pendingDelivery(deliveryId: string): Promise<PendingDelivery | null>;
  /** one attempt and what follows, in one transaction: the attempt's row, then DELIVERED, PENDING
   * with the next attempt queued at `nextAttemptAt`, or FAILED (no next attempt) */
  recordAttempt(a: DeliveryAttempt): Promise<void>;
}

/** what the delivery worker reads of a delivery (its header values still sealed) */
type PendingDelivery = Pick<repo.DeliveryRow, 'id' | 'workflow_id' | 'target_url' | 'headers_sealed' | 'message_id' | 'body' | 'attempts' | 'created_at'>;

interface DeliveryAttempt {
  deliveryId: string; attempt: number; targetUrl: string;
  /** the target's answer (status null: no answer, `error` says why) */
  result: { status: number | null; body: string | null; error: string | null; durationMs: number };
  ok: boolean;
  nextAttemptAt: Date | null;
}

export function createWorkflowOutputsService(deps: {
  db: Db; scope: ScopeService; sealer: Sealer; queue: TaskQueue; workflows: Pick<WorkflowsService, 'webhookSecret'>;
}): WorkflowOutputsService {
  const { db, scope, sealer, queue, workflows } = deps;

  async function one(id: string): Promise<OutputDelivery> {
    return toDelivery((await repo.findDelivery(db, id))!, await repo.attemptsOf(db, id));
  }

  return {
    async list(p, workflowId, runId, req) {
      await scope.service(p, workflowId, 'read', WORKFLOW_TYPE, WORKFLOW_LABEL);
      if (!(await repo.runBelongsTo(db, workflowId, runId))) throw notFound('Run');
      const { rows, attempts, total } = await repo.listDeliveries(db, runId, req.limit, req.offset);
      return page(req, rows.map((d) => toDelivery(d, attempts.filter((a) => a.delivery_id === d.id))), total);
    },
    async redeliver(p, workflowId, runId, deliveryId) {
      await scope.service(p, workflowId, 'write', WORKFLOW_TYPE, WORKFLOW_LABEL);
      if (!(await repo.runBelongsTo(db, workflowId, runId))) throw notFound('Run');
      const delivery = await repo.findDeliveryOfRun(db, workflowId, runId, deliveryId);
      if (!delivery) throw notFound('Output delivery');
      // the output as it is now: a url or a header fixed since the run is what a redeliver is for
      const row = await workflowsRepo.findWorkflow(db, workflowId);
      const outputs: OutputSpec[] = row?.spec.outputs ?? [];
      const current = deliverableOutputs(outputs).find((o) => o.name.toLowerCase() === delivery.output_name.toLowerCase());
      if (!current) throw conflict(`The workflow has no output '${delivery.output_name}' with a url any more; nothing to redeliver to`);
      const headers = current.headers ?? [];
      await db.transaction(async (tx) => {
        await repo.resetForRedelivery(tx, deliveryId, { targetUrl: current.url!.trim(), headerNames: headers.map((h) => h.name), headersSealed: sealHeaders(sealer, headers) });
        await queue.enqueue(tx, OUTPUT_DELIVERY_TASK, { deliveryId });
      });
      return one(deliveryId);
    },
    async signingSecret(p, workflowId) {
      await scope.service(p, workflowId, 'read', WORKFLOW_TYPE, WORKFLOW_LABEL);
      const secret = await workflowOutputSigningSecret(db, workflows, workflowId);
      if (!secret) throw conflict('The agentic workflow has no webhook secret to derive its output signing secret from');
      return { signing_secret: secret };
    },
    async pendingDelivery(deliveryId) {
      const d = await repo.findDelivery(db, deliveryId);
      return d && d.status === 'PENDING' ? d : null;
    },
    async recordAttempt(a) {
      const { result, nextAttemptAt } = a;
      await db.transaction(async (tx) => {
        await repo.recordAttempt(tx, {
          deliveryId: a.deliveryId, attempt: a.attempt, targetUrl: a.targetUrl, status: result.status, body: result.body, error: result.error, durationMs: result.durationMs,
        });
        await repo.updateOutcome(tx, a.deliveryId, {
          status: a.ok ? 'DELIVERED' : nextAttemptAt ? 'PENDING' : 'FAILED', attempts: a.attempt, lastStatusCode: result.status, nextAttemptAt,
        });
        if (nextAttemptAt) await queue.enqueue(tx, OUTPUT_DELIVERY_TASK, { deliveryId: a.deliveryId }, { startAfter: nextAttemptAt });
      });
    },
  };
}
