// SQL for organization webhooks, their events (one per webhook per emitted event) and the
// delivery attempts of each event.
import { bumpCounter } from '../../db/counters.ts';
import type { Queryable } from '../../db/db.ts';
import { STORED_COUNT } from '../../db/page.ts';
import { iso, isoRequired } from '../../lib/text.ts';

export interface WebhookRow {
  id: string; organization_id: string; kind: string; target_url: string; description: string | null; enabled: boolean;
  events: string[]; project_names_filter: string[]; environment_types_filter: string[]; secret_sealed: string;
  target_secret_set: boolean; disabled_reason: string | null; created_at: Date; updated_at: Date | null;
}

const COLUMNS = `id, organization_id, kind, target_url, description, enabled, events, project_names_filter,
  environment_types_filter, secret_sealed, target_secret_set, disabled_reason, created_at, updated_at`;

export function toWebhook(r: WebhookRow) {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), organization_id: r.organization_id,
    kind: r.kind, target_url: r.target_url, description: r.description, enabled: r.enabled, events: r.events,
    project_names_filter: r.project_names_filter, environment_types_filter: r.environment_types_filter,
    target_secret_set: r.target_secret_set, disabled_reason: r.disabled_reason,
  };
}

export interface WebhookValues {
  kind: string; target_url: string; description: string | null; enabled: boolean; events: string[];
  project_names_filter: string[]; environment_types_filter: string[]; secret_sealed: string; target_secret_set: boolean;
}

export async function insertWebhook(db: Queryable, organizationId: string, v: WebhookValues): Promise<WebhookRow> {
  const rows = await db.query<WebhookRow>(
    `insert into webhooks (organization_id, kind, target_url, description, enabled, events, project_names_filter,
       environment_types_filter, secret_sealed, target_secret_set)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8::jsonb, $9, $10) returning ${COLUMNS}`,
    [organizationId, v.kind, v.target_url, v.description, v.enabled, JSON.stringify(v.events),
      JSON.stringify(v.project_names_filter), JSON.stringify(v.environment_types_filter), v.secret_sealed, v.target_secret_set]);
  return rows[0]!;
}

export async function updateWebhook(db: Queryable, id: string, v: WebhookValues): Promise<WebhookRow | null> {
  const rows = await db.query<WebhookRow>(
    `update webhooks set kind = $2, target_url = $3, description = $4, enabled = $5, events = $6::jsonb,
       project_names_filter = $7::jsonb, environment_types_filter = $8::jsonb, secret_sealed = $9, target_secret_set = $10,
       disabled_reason = case when $5::boolean then null else disabled_reason end, updated_at = now()
     where id = $1 returning ${COLUMNS}`,
    [id, v.kind, v.target_url, v.description, v.enabled, JSON.stringify(v.events), JSON.stringify(v.project_names_filter),
      JSON.stringify(v.environment_types_filter), v.secret_sealed, v.target_secret_set]);
  return rows[0] ?? null;
}

export async function findWebhook(db: Queryable, organizationId: string, id: string): Promise<WebhookRow | null> {
  const rows = await db.query<WebhookRow>(`select ${COLUMNS} from webhooks where id = $1 and organization_id = $2`, [id, organizationId]);
  return rows[0] ?? null;
}

export async function findWebhookById(db: Queryable, id: string): Promise<WebhookRow | null> {
  const rows = await db.query<WebhookRow>(`select ${COLUMNS} from webhooks where id = $1`, [id]);
  return rows[0] ?? null;
}

export async function listWebhooks(db: Queryable, organizationId: string, limit: number | null, offset: number) {
  const rows = await db.query<WebhookRow>(
    `select ${COLUMNS} from webhooks where organization_id = $1 order by created_at, id limit $2 offset $3`, [organizationId, limit, offset]);
  const total = await db.query<{ n: number }>('select count(*)::int as n from webhooks where organization_id = $1', [organizationId]);
  return { rows, total: total[0]!.n };
}

export async function deleteWebhook(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const rows = await db.query('delete from webhooks where id = $1 and organization_id = $2 returning id', [id, organizationId]);
  return rows.length > 0;
}

export async function disableWebhook(db: Queryable, id: string, reason: string): Promise<void> {
  await db.query('update webhooks set enabled = false, disabled_reason = $2, updated_at = now() where id = $1', [id, reason]);
}

export async function enabledWebhooksOf(db: Queryable, organizationId: string): Promise<WebhookRow[]> {
  return db.query<WebhookRow>(`select ${COLUMNS} from webhooks where organization_id = $1 and enabled`, [organizationId]);
}

export interface EventRow {
  id: string; webhook_id: string; organization_id: string; event_kind: string; message_id: string; body: string;
  status: string; attempts: number; last_status_code: number | null; target_url_used: string | null;
  next_attempt_at: Date | null; created_at: Date; updated_at: Date | null;
}

const EVENT_COLUMNS = `id, webhook_id, organization_id, event_kind, message_id, body, status, attempts, last_status_code,
  target_url_used, next_attempt_at, created_at, updated_at`;

export async function insertEvent(db: Queryable, e: { webhookId: string; organizationId: string; kind: string; messageId: string; body: string }): Promise<string> {
  const rows = await db.query<{ id: string }>(
    `insert into webhook_events (webhook_id, organization_id, event_kind, message_id, body) values ($1, $2, $3, $4, $5) returning id`,
    [e.webhookId, e.organizationId, e.kind, e.messageId, e.body]);
  return rows[0]!.id;
}

export async function findEvent(db: Queryable, id: string): Promise<EventRow | null> {
  const rows = await db.query<EventRow>(`select ${EVENT_COLUMNS} from webhook_events where id = $1`, [id]);
  return rows[0] ?? null;
}

export async function recordAttempt(db: Queryable, a: {
  eventId: string; attempt: number; targetUrl: string; status: number | null; body: string | null; error: string | null; durationMs: number;
}): Promise<void> {
  await db.query(
    `insert into webhook_attempts (event_id, attempt, target_url, response_status, response_body, error, duration_ms)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [a.eventId, a.attempt, a.targetUrl, a.status, a.body, a.error, a.durationMs]);
  const outcome = a.status === null ? 'error' : a.status >= 200 && a.status < 300 ? 'success' : `${Math.floor(a.status / 100)}xx`;
  await bumpCounter(db, 'berth_webhook_attempts_total', { outcome });
}

export async function updateEventOutcome(db: Queryable, id: string, o: {
  status: 'PENDING' | 'DELIVERED' | 'FAILED'; attempts: number; lastStatusCode: number | null; targetUrl: string; nextAttemptAt: Date | null;
}): Promise<void> {
  await db.query(
    `update webhook_events set status = $2, attempts = $3, last_status_code = $4, target_url_used = $5, next_attempt_at = $6,
       updated_at = now() where id = $1`,
    [id, o.status, o.attempts, o.lastStatusCode, o.targetUrl, o.nextAttemptAt]);
  if (o.status !== 'PENDING') await bumpCounter(db, 'berth_webhook_deliveries_total', { outcome: o.status.toLowerCase() });
}

export async function resetEventForRedelivery(db: Queryable, id: string): Promise<void> {
  await db.query(`update webhook_events set status = 'PENDING', next_attempt_at = now(), updated_at = now() where id = $1`, [id]);
}

export interface AttemptRow {
  id: number; event_id: string; attempt: number; target_url: string; response_status: number | null;
  response_body: string | null; error: string | null; duration_ms: number; created_at: Date;
}

export async function listEvents(db: Queryable, webhookId: string, limit: number | null, offset: number) {
  const rows = await db.query<EventRow>(
    `select ${EVENT_COLUMNS} from webhook_events where webhook_id = $1 order by created_at desc, id limit $2 offset $3`,
    [webhookId, limit, offset]);
  const total = await db.query<{ n: number }>(STORED_COUNT, [webhookId, 'webhook_events']);
  const ids = rows.map((r) => r.id);
  const attempts = ids.length === 0 ? [] : await db.query<AttemptRow>(
    `select id, event_id, attempt, target_url, response_status, response_body, error, duration_ms, created_at
     from webhook_attempts where event_id = any($1::uuid[]) order by event_id, id`, [ids]);
  return { rows, attempts, total: total[0]!.n };
}

export async function attemptsOf(db: Queryable, eventId: string): Promise<AttemptRow[]> {
  return db.query<AttemptRow>(
    `select id, event_id, attempt, target_url, response_status, response_body, error, duration_ms, created_at
     from webhook_attempts where event_id = $1 order by id`, [eventId]);
}

/** the webhook events by current delivery status (the metrics' gauge) */
export async function countEventsByStatus(db: Queryable): Promise<Array<{ status: string; n: number }>> {
  return db.query<{ status: string; n: number }>('select status, count(*)::int as n from webhook_events group by status order by status');
}
