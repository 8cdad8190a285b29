// SQL for notification channels and notification incidents (migration 0031). An incident opens
// with an insert that the partial unique index (one open incident per key) turns into nothing when
// one is open already; the caller then only moves last_seen_at.
import type { Queryable } from '../../db/db.ts';
import { iso, isoRequired } from '../../lib/text.ts';

export interface ChannelRow {
  id: string; organization_id: string; name: string; kind: string; webhook_url_sealed: string | null; webhook_host: string | null;
  recipients: string[]; events: string[]; enabled: boolean; last_sent_at: Date | null; last_error: string | null;
  created_at: Date; updated_at: Date | null;
}

const COLUMNS = `id, organization_id, name, kind, webhook_url_sealed, webhook_host, recipients, events, enabled, last_sent_at,
  last_error, created_at, updated_at`;

export function toChannel(r: ChannelRow) {
  return {
    id: r.id, created_at: isoRequired(r.created_at), updated_at: iso(r.updated_at), organization_id: r.organization_id,
    name: r.name, kind: r.kind, webhook_host: r.webhook_host, recipients: r.recipients, events: r.events, enabled: r.enabled,
    last_sent_at: iso(r.last_sent_at), last_error: r.last_error,
  };
}

export interface ChannelValues {
  name: string; kind: string; webhook_url_sealed: string | null; webhook_host: string | null;
  recipients: string[]; events: string[]; enabled: boolean;
}

export async function insertChannel(db: Queryable, organizationId: string, v: ChannelValues): Promise<ChannelRow> {
  const rows = await db.query<ChannelRow>(
    `insert into notification_channels (organization_id, name, kind, webhook_url_sealed, webhook_host, recipients, events, enabled)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8) returning ${COLUMNS}`,
    [organizationId, v.name, v.kind, v.webhook_url_sealed, v.webhook_host, JSON.stringify(v.recipients), JSON.stringify(v.events), v.enabled]);
  return rows[0]!;
}

export async function updateChannel(db: Queryable, organizationId: string, id: string, v: ChannelValues): Promise<ChannelRow | null> {
  const rows = await db.query<ChannelRow>(
    `update notification_channels set name = $3, kind = $4, webhook_url_sealed = $5, webhook_host = $6, recipients = $7::jsonb,
       events = $8::jsonb, enabled = $9, updated_at = now()
     where id = $1 and organization_id = $2 returning ${COLUMNS}`,
    [id, organizationId, v.name, v.kind, v.webhook_url_sealed, v.webhook_host, JSON.stringify(v.recipients), JSON.stringify(v.events), v.enabled]);
  return rows[0] ?? null;
}

export async function findChannel(db: Queryable, organizationId: string, id: string): Promise<ChannelRow | null> {
  const rows = await db.query<ChannelRow>(`select ${COLUMNS} from notification_channels where id = $1 and organization_id = $2`, [id, organizationId]);
  return rows[0] ?? null;
}

export async function listChannels(db: Queryable, organizationId: string, limit: number | null, offset: number) {
  const rows = await db.query<ChannelRow>(
    `select ${COLUMNS} from notification_channels where organization_id = $1 order by created_at, id limit $2 offset $3`, [organizationId, limit, offset]);
  const total = await db.query<{ n: number }>('select count(*)::int as n from notification_channels where organization_id = $1', [organizationId]);
  return { rows, total: total[0]!.n };
}

export async function deleteChannel(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const rows = await db.query('delete from notification_channels where id = $1 and organization_id = $2 returning id', [id, organizationId]);
  return rows.length > 0;
}

/** the enabled channels that carry an incident kind */
export async function channelsFor(db: Queryable, organizationId: string, kind: string): Promise<Array<{ id: string }>> {
  return db.query<{ id: string }>(
    'select id from notification_channels where organization_id = $1 and enabled and events @> jsonb_build_array($2::text) order by created_at, id', [organizationId, kind]);
}

export async function recordDelivery(db: Queryable, channelId: string, error: string | null): Promise<void> {
  await db.query(
    `update notification_channels set last_error = $2, last_sent_at = case when $2::text is null then now() else last_sent_at end
     where id = $1`, [channelId, error]);
}

export interface IncidentRow {
  id: string; organization_id: string; incident_key: string; kind: string; title: string; body: string; link: string | null;
  occurrences: number; opened_at: Date; last_seen_at: Date; resolved_at: Date | null; messages_sent: number;
}

const INCIDENT_COLUMNS = 'id, organization_id, incident_key, kind, title, body, link, occurrences, opened_at, last_seen_at, resolved_at, messages_sent';

export async function findOpenIncident(db: Queryable, organizationId: string, key: string): Promise<{ id: string } | null> {
  const rows = await db.query<{ id: string }>(
    'select id from notification_incidents where organization_id = $1 and incident_key = $2 and resolved_at is null', [organizationId, key]);
  return rows[0] ?? null;
}

/** a new open incident; null when one of the key is open already (a concurrent raise won) */
export async function openIncident(db: Queryable, organizationId: string, i: { key: string; kind: string; title: string; text: string; link: string | null }): Promise<string | null> {
  const rows = await db.query<{ id: string }>(
    `insert into notification_incidents (organization_id, incident_key, kind, title, body, link) values ($1, $2, $3, $4, $5, $6)
     on conflict (organization_id, incident_key) where resolved_at is null do nothing returning id`,
    [organizationId, i.key, i.kind, i.title, i.text, i.link]);
  return rows[0]?.id ?? null;
}

/** the open incident of the key seen again: no message, only last_seen_at and the count move */
export async function touchIncident(db: Queryable, organizationId: string, key: string): Promise<string | null> {
  const rows = await db.query<{ id: string }>(
    `update notification_incidents set last_seen_at = now(), occurrences = occurrences + 1
     where organization_id = $1 and incident_key = $2 and resolved_at is null returning id`, [organizationId, key]);
  return rows[0]?.id ?? null;
}

export async function resolveIncident(db: Queryable, organizationId: string, key: string): Promise<boolean> {
  const rows = await db.query(
    `update notification_incidents set resolved_at = now() where organization_id = $1 and incident_key = $2 and resolved_at is null returning id`,
    [organizationId, key]);
  return rows.length > 0;
}

export async function findIncident(db: Queryable, id: string): Promise<IncidentRow | null> {
  const rows = await db.query<IncidentRow>(`select ${INCIDENT_COLUMNS} from notification_incidents where id = $1`, [id]);
  return rows[0] ?? null;
}

export async function countMessageSent(db: Queryable, incidentId: string): Promise<void> {
  await db.query('update notification_incidents set messages_sent = messages_sent + 1 where id = $1', [incidentId]);
}

export async function findChannelById(db: Queryable, id: string): Promise<ChannelRow | null> {
  const rows = await db.query<ChannelRow>(`select ${COLUMNS} from notification_channels where id = $1`, [id]);
  return rows[0] ?? null;
}
