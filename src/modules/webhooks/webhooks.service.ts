// Organization webhooks: CRUD (ADMIN+), the signing secret (generated whsec_ secret unless
// target_secret is given; sealed at rest; shown once at creation), the delivery history,
// redelivery of an event and a test ping. Deliveries themselves run in src/workers/webhooks.ts.
import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/db.ts';
import { ACCEPTED_EVENT_NAMES, canonicalEventKind } from '../../events/catalogue.ts';
import { page, type PageRequest } from '../../http/pagination.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { iso, isoRequired } from '../../lib/text.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import type { Principal } from '../access/principal.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import * as repo from './webhooks.repo.ts';
import { generateSigningSecret, targetUrlProblem, type RetrySettings } from './webhooks.rules.ts';
import type { Webhook, WebhookCreateRequest, WebhookCreated, WebhookEditRequest, WebhookEvent } from './webhooks.schemas.ts';

type WebhookOut = Static<typeof Webhook>;
type EventOut = Static<typeof WebhookEvent>;
type Paged<T> = { results: T[]; pagination: ReturnType<typeof page>['pagination'] };

export interface WebhooksService {
  list(p: Principal, organizationId: string, req: PageRequest): Promise<Paged<WebhookOut>>;
  create(p: Principal, organizationId: string, body: Static<typeof WebhookCreateRequest>): Promise<Static<typeof WebhookCreated>>;
  get(p: Principal, organizationId: string, id: string): Promise<WebhookOut>;
  update(p: Principal, organizationId: string, id: string, body: Static<typeof WebhookEditRequest>): Promise<WebhookOut>;
  remove(p: Principal, organizationId: string, id: string): Promise<void>;
  events(p: Principal, organizationId: string, id: string, req: PageRequest): Promise<Paged<EventOut>>;
  redeliver(p: Principal, organizationId: string, id: string, eventId: string): Promise<EventOut>;
  test(p: Principal, organizationId: string, id: string): Promise<EventOut>;
  /** every organization's webhook events by current delivery status (GET /metrics; no caller) */
  eventCountsByStatus(): Promise<Array<{ status: string; n: number }>>;

  // For the delivery workers (src/workers/webhooks.ts, and workflow outputs for the schedule).
  /** this instance's retry schedule of outgoing deliveries (back-off, give-up age, per-attempt timeout) */
  readonly retries: RetrySettings;
  /** the event to attempt now with its webhook; null when there is nothing to send: the event is
   * gone or no longer PENDING, its webhook is gone, or the webhook is disabled (the event is then
   * recorded FAILED, no attempt made) */
  pendingDelivery(eventId: string): Promise<{ event: PendingEvent; webhook: DeliveryTarget } | null>;
  /** one attempt and what follows, in one transaction: the attempt's row, the event DELIVERED,
   * PENDING with the next attempt queued at `nextAttemptAt`, or FAILED; a `gone` target (410)
   * disables the webhook */
  recordAttempt(a: EventAttempt): Promise<void>;
}

/** what the delivery worker reads of an event */
type PendingEvent = Pick<repo.EventRow, 'id' | 'message_id' | 'body' | 'attempts' | 'created_at'>;
/** what the delivery worker reads of a webhook (its secret still sealed) */
type DeliveryTarget = Pick<repo.WebhookRow, 'id' | 'target_url' | 'secret_sealed'>;

interface EventAttempt {
  eventId: string; webhookId: string; attempt: number; targetUrl: string;
  /** the target's answer (status null: no answer, `error` says why) */
  result: { status: number | null; body: string | null; error: string | null; durationMs: number };
  ok: boolean; gone: boolean;
  nextAttemptAt: Date | null;
}

function canonicalEvents(names: string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    const kind = canonicalEventKind(name);
    if (!kind) throw badRequest(`Unknown event kind "${name}"; valid kinds: ${ACCEPTED_EVENT_NAMES.join(', ')}`);
    if (!out.includes(kind)) out.push(kind);
  }
  return out;
}

function toEvent(e: repo.EventRow, attempts: repo.AttemptRow[]): EventOut {
  const last = attempts.at(-1);
  let request: unknown = e.body;
  try { request = JSON.parse(e.body); } catch { /* stored as sent */ }
  return {
    id: e.id, created_at: isoRequired(e.created_at), webhook_id: e.webhook_id, kind: e.event_kind, matched_event: e.event_kind,
    webhook_message_id: e.message_id, status: e.status, target_url_used: e.target_url_used, request,
    target_response_status_code: e.last_status_code, target_response_body: last?.response_body ?? last?.error ?? null,
    duration_ms: last?.duration_ms ?? null, attempts: e.attempts, next_attempt_at: iso(e.next_attempt_at),
    attempt_history: attempts.map((a) => ({
      attempt: a.attempt, created_at: isoRequired(a.created_at), target_url: a.target_url, response_status_code: a.response_status,
      response_body: a.response_body, error: a.error, duration_ms: a.duration_ms,
    })),
  };
}

export function createWebhooksService(deps: {
  db: Db; sealer: Sealer; queue: TaskQueue; config: Config; organizations: OrganizationsService;
  /** the retry schedule (DEFAULT_RETRY_SETTINGS, shortened by tests) */
  retries: RetrySettings;
}): WebhooksService {
  const { db, sealer, queue, config, organizations } = deps;

  function checkUrl(url: string, kind: string): void {
    const problem = targetUrlProblem(url, config.webhookAllowPrivateTargets);
    if (problem) throw badRequest(problem);
    if (kind === 'SLACK' && !config.webhookAllowPrivateTargets && !/^https:\/\/hooks\.slack\.com\//.test(url)) {
      throw badRequest('a SLACK webhook needs a Slack incoming-webhook URL (https://hooks.slack.com/…)');
    }
  }

  async function load(p: Principal, organizationId: string, id: string): Promise<repo.WebhookRow> {
    await organizations.authorize(p, organizationId, 'manage');
    const hook = await repo.findWebhook(db, organizationId, id);
    if (!hook) throw notFound('Webhook');
    return hook;
  }

  async function oneEvent(eventId: string): Promise<EventOut> {
    const e = (await repo.findEvent(db, eventId))!;
    return toEvent(e, await repo.attemptsOf(db, eventId));
  }

  return {
    async list(p, organizationId, req) {
      await organizations.authorize(p, organizationId, 'manage');
      const { rows, total } = await repo.listWebhooks(db, organizationId, req.limit, req.offset);
      return page(req, rows.map(repo.toWebhook), total);
    },
    async create(p, organizationId, body) {
      await organizations.authorize(p, organizationId, 'manage');
      const kind = body.kind ?? 'STANDARD';
      checkUrl(body.target_url, kind);
      const given = body.target_secret ?? null;
      const secret = given ?? generateSigningSecret();
      const row = await repo.insertWebhook(db, organizationId, {
        kind, target_url: body.target_url, description: body.description ?? null, enabled: body.enabled ?? true,
        events: canonicalEvents(body.events), project_names_filter: body.project_names_filter ?? [],
        environment_types_filter: body.environment_types_filter ?? [], secret_sealed: sealer.seal(secret), target_secret_set: given !== null,
      });
      return { ...repo.toWebhook(row), ...(given === null ? { signing_secret: secret } : {}) };
    },
    async get(p, organizationId, id) {
      return repo.toWebhook(await load(p, organizationId, id));
    },
    async update(p, organizationId, id, body) {
      const hook = await load(p, organizationId, id);
      const kind = body.kind ?? hook.kind;
      const targetUrl = body.target_url ?? hook.target_url;
      if (body.target_url !== undefined || body.kind !== undefined) checkUrl(targetUrl, kind);
      const secretGiven = body.target_secret !== undefined && body.target_secret !== null;
      const row = await repo.updateWebhook(db, id, {
        kind, target_url: targetUrl,
        description: body.description !== undefined ? body.description : hook.description,
        enabled: body.enabled ?? hook.enabled,
        events: body.events !== undefined ? canonicalEvents(body.events) : hook.events,
        project_names_filter: body.project_names_filter !== undefined ? body.project_names_filter ?? [] : hook.project_names_filter,
        environment_types_filter: body.environment_types_filter !== undefined ? body.environment_types_filter ?? [] : hook.environment_types_filter,
        secret_sealed: secretGiven ? sealer.seal(body.target_secret!) : hook.secret_sealed,
        target_secret_set: secretGiven ? true : hook.target_secret_set,
      });
      if (!row) throw notFound('Webhook');
      return repo.toWebhook(row);
    },
    async remove(p, organizationId, id) {
      await load(p, organizationId, id);
      await repo.deleteWebhook(db, organizationId, id);
    },
    async events(p, organizationId, id, req) {
      await load(p, organizationId, id);
      const { rows, attempts, total } = await repo.listEvents(db, id, req.limit, req.offset);
      return page(req, rows.map((e) => toEvent(e, attempts.filter((a) => a.event_id === e.id))), total);
    },
    async redeliver(p, organizationId, id, eventId) {
      const hook = await load(p, organizationId, id);
      const e = await repo.findEvent(db, eventId);
      if (!e || e.webhook_id !== id) throw notFound('Webhook event');
      if (!hook.enabled) throw conflict('The webhook is disabled; enable it before redelivering');
      await db.transaction(async (tx) => {
        await repo.resetEventForRedelivery(tx, eventId);
        await queue.enqueue(tx, 'webhooks.deliver', { eventId });
      });
      return oneEvent(eventId);
    },
    async test(p, organizationId, id) {
      const hook = await load(p, organizationId, id);
      if (!hook.enabled) throw conflict('The webhook is disabled; enable it before testing');
      const eventId = await db.transaction(async (tx) => {
        const body = JSON.stringify({
          event_id: randomUUID(), event_type: 'PING', created_at: new Date().toISOString(),
          payload: { webhook_id: hook.id, organization_id: organizationId, message: 'Test delivery from berth' },
        });
        const created = await repo.insertEvent(tx, { webhookId: hook.id, organizationId, kind: 'PING', messageId: `msg_${randomUUID().replaceAll('-', '')}`, body });
        await queue.enqueue(tx, 'webhooks.deliver', { eventId: created });
        return created;
      });
      return oneEvent(eventId);
    },
    eventCountsByStatus: () => repo.countEventsByStatus(db),
    retries: deps.retries,
    async pendingDelivery(eventId) {
      const event = await repo.findEvent(db, eventId);
      if (!event || event.status !== 'PENDING') return null;
      const webhook = await repo.findWebhookById(db, event.webhook_id);
      if (!webhook) return null;
      if (!webhook.enabled) {
        await repo.updateEventOutcome(db, event.id, {
          status: 'FAILED', attempts: event.attempts, lastStatusCode: event.last_status_code, targetUrl: webhook.target_url, nextAttemptAt: null,
        });
        return null;
      }
      return { event, webhook };
    },
    async recordAttempt(a) {
      const { result, nextAttemptAt } = a;
      await db.transaction(async (tx) => {
        await repo.recordAttempt(tx, {
          eventId: a.eventId, attempt: a.attempt, targetUrl: a.targetUrl, status: result.status, body: result.body, error: result.error, durationMs: result.durationMs,
        });
        await repo.updateEventOutcome(tx, a.eventId, {
          status: a.ok ? 'DELIVERED' : nextAttemptAt ? 'PENDING' : 'FAILED', attempts: a.attempt, lastStatusCode: result.status, targetUrl: a.targetUrl, nextAttemptAt,
        });
        if (a.gone) await repo.disableWebhook(tx, a.webhookId, 'The target answered 410 Gone');
        if (nextAttemptAt) await queue.enqueue(tx, 'webhooks.deliver', { eventId: a.eventId }, { startAfter: nextAttemptAt });
      });
    },
  };
}
