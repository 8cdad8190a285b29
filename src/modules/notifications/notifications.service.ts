// Notification channels of an organization (Slack- and Discord-compatible incoming webhooks,
// e-mail over SMTP) and the incidents they carry. CRUD is for ADMIN+ ('manage'); every member may
// list and read them ('read': nothing secret is returned). `raise` opens an incident and enqueues
// one `notifications.send` task per channel carrying its kind, in the caller's transaction when
// given; a raise while the incident is open sends nothing; `resolve` closes it (the next success).
// `deliver` is the task's body: one message to one channel, thrown for a retry when one can help.
import type { Static } from 'typebox';
import type { Logger } from 'pino';
import type { Config } from '../../config/config.ts';
import type { Db, Queryable } from '../../db/db.ts';
import { page, type PageRequest } from '../../http/pagination.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import type { Principal } from '../access/principal.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import * as repo from './notifications.repo.ts';
import {
  NOTIFICATION_KINDS, incidentDecision, incidentMessage, incidentProblem, recipientsProblem, testMessage, webhookHost, webhookUrlProblem,
  type IncidentInput,
} from './notifications.rules.ts';
import type {
  NotificationChannel, NotificationChannelCreateRequest, NotificationChannelEditRequest, NotificationChannelTestResult,
} from './notifications.schemas.ts';
import { sendToChannel, type SendSettings } from './notifications.send.ts';

type ChannelOut = Static<typeof NotificationChannel>;
type TestOut = Static<typeof NotificationChannelTestResult>;
type Paged<T> = { results: T[]; pagination: ReturnType<typeof page>['pagination'] };

export interface NotificationsService {
  list(p: Principal, organizationId: string, req: PageRequest): Promise<Paged<ChannelOut>>;
  create(p: Principal, organizationId: string, body: Static<typeof NotificationChannelCreateRequest>): Promise<ChannelOut>;
  get(p: Principal, organizationId: string, id: string): Promise<ChannelOut>;
  update(p: Principal, organizationId: string, id: string, body: Static<typeof NotificationChannelEditRequest>): Promise<ChannelOut>;
  remove(p: Principal, organizationId: string, id: string): Promise<void>;
  /** sends a test message now, in the request, and says what came of it (200 either way) */
  test(p: Principal, organizationId: string, id: string): Promise<TestOut>;
  /** something failed: a new incident sends one message per channel carrying the kind (in a task);
   * a repeat while it is open sends nothing. Inside `tx` when given (the caller's transaction). */
  raise(organizationId: string, incident: IncidentInput, tx?: Queryable): Promise<{ incidentId: string; opened: boolean }>;
  /** the thing recovered: its open incident (if any) is resolved; the next failure opens a new one */
  resolve(organizationId: string, key: string, tx?: Queryable): Promise<boolean>;
  /** the `notifications.send` task: one incident's message to one channel; rejects when a retry can help */
  deliver(payload: { incidentId: string; channelId: string }): Promise<void>;
}

export function createNotificationsService(deps: {
  db: Db; sealer: Sealer; queue: TaskQueue; logger: Logger;
  config: Pick<Config, 'webhookAllowPrivateTargets' | 'smtpUrl' | 'smtpFrom'>;
  organizations: OrganizationsService;
}): NotificationsService {
  const { db, sealer, queue, config, organizations, logger } = deps;
  const settings: SendSettings = { allowPrivate: config.webhookAllowPrivateTargets, smtpUrl: config.smtpUrl, smtpFrom: config.smtpFrom, timeoutMs: 15_000 };

  async function load(organizationId: string, id: string): Promise<repo.ChannelRow> {
    const row = await repo.findChannel(db, organizationId, id);
    if (!row) throw notFound('Notification channel');
    return row;
  }

  /** the stored values of a channel as created or edited; 400 naming what is missing or wrong */
  function values(kind: string, name: string, url: string | undefined, previous: repo.ChannelRow | null, recipients: string[] | undefined, events: string[] | undefined, enabled: boolean): repo.ChannelValues {
    const out: repo.ChannelValues = {
      name, kind, webhook_url_sealed: null, webhook_host: null, recipients: [],
      events: events ? NOTIFICATION_KINDS.filter((k) => events.includes(k)) : previous?.events ?? [...NOTIFICATION_KINDS], enabled,
    };
    if (kind === 'EMAIL') {
      if (url !== undefined) throw badRequest('webhook_url is for SLACK and DISCORD channels; an EMAIL channel takes recipients');
      out.recipients = recipients ?? (previous?.kind === 'EMAIL' ? previous.recipients : []);
      const problem = recipientsProblem(out.recipients);
      if (problem) throw badRequest(problem);
      return out;
    }
    if (recipients !== undefined && recipients.length > 0) throw badRequest(`recipients are for EMAIL channels; a ${kind} channel takes webhook_url`);
    if (url === undefined) {
      if (!previous || previous.kind === 'EMAIL' || !previous.webhook_url_sealed) throw badRequest(`webhook_url is required for a ${kind} channel`);
      return { ...out, webhook_url_sealed: previous.webhook_url_sealed, webhook_host: previous.webhook_host };
    }
    const problem = webhookUrlProblem(url, config.webhookAllowPrivateTargets);
    if (problem) throw badRequest(problem);
    return { ...out, webhook_url_sealed: sealer.seal(url), webhook_host: webhookHost(url) };
  }

  function target(row: repo.ChannelRow) {
    return { kind: row.kind, webhookUrl: row.webhook_url_sealed ? sealer.open(row.webhook_url_sealed) : null, recipients: row.recipients };
  }

  async function raiseIn(tx: Queryable, organizationId: string, incident: IncidentInput): Promise<{ incidentId: string; opened: boolean }> {
    const decision = incidentDecision(await repo.findOpenIncident(tx, organizationId, incident.key));
    if (decision.action === 'OPEN') {
      const id = await repo.openIncident(tx, organizationId, { ...incident, link: incident.link ?? null });
      if (id) {
        for (const channel of await repo.channelsFor(tx, organizationId, incident.kind)) {
          await queue.enqueue(tx, 'notifications.send', { incidentId: id, channelId: channel.id });
        }
        return { incidentId: id, opened: true };
      }
    }
    // open already (or opened by a concurrent raise a moment ago): seen again, nothing sent
    const id = await repo.touchIncident(tx, organizationId, incident.key);
    return { incidentId: id ?? (decision.action === 'REPEAT' ? decision.id : ''), opened: false };
  }

  return {
    async list(p, organizationId, req) {
      await organizations.authorize(p, organizationId, 'read');
      const { rows, total } = await repo.listChannels(db, organizationId, req.limit, req.offset);
      return page(req, rows.map(repo.toChannel), total);
    },
    async create(p, organizationId, body) {
      await organizations.authorize(p, organizationId, 'manage');
      const v = values(body.kind, body.name, body.webhook_url, null, body.recipients, body.events, body.enabled ?? true);
      return repo.toChannel(await repo.insertChannel(db, organizationId, v));
    },
    async get(p, organizationId, id) {
      await organizations.authorize(p, organizationId, 'read');
      return repo.toChannel(await load(organizationId, id));
    },
    async update(p, organizationId, id, body) {
      await organizations.authorize(p, organizationId, 'manage');
      const row = await load(organizationId, id);
      const v = values(body.kind ?? row.kind, body.name ?? row.name, body.webhook_url, row, body.recipients, body.events, body.enabled ?? row.enabled);
      const updated = await repo.updateChannel(db, organizationId, id, v);
      if (!updated) throw notFound('Notification channel');
      return repo.toChannel(updated);
    },
    async remove(p, organizationId, id) {
      await organizations.authorize(p, organizationId, 'manage');
      if (!await repo.deleteChannel(db, organizationId, id)) throw notFound('Notification channel');
    },
    async test(p, organizationId, id) {
      await organizations.authorize(p, organizationId, 'manage');
      const row = await load(organizationId, id);
      const org = await organizations.get(p, organizationId);
      const outcome = await sendToChannel(target(row), testMessage(org.name, row.name), settings);
      return { channel_id: row.id, kind: row.kind, delivered: outcome.delivered, status_code: outcome.statusCode, reason: outcome.reason, duration_ms: outcome.durationMs };
    },
    async raise(organizationId, incident, tx) {
      const problem = incidentProblem(incident);
      if (problem) throw new Error(problem);
      return tx ? raiseIn(tx, organizationId, incident) : db.transaction((t) => raiseIn(t, organizationId, incident));
    },
    resolve: (organizationId, key, tx) => repo.resolveIncident(tx ?? db, organizationId, key),
    async deliver({ incidentId, channelId }) {
      const [incident, channel] = [await repo.findIncident(db, incidentId), await repo.findChannelById(db, channelId)];
      if (!incident || !channel || !channel.enabled) return; // gone or switched off since: nothing to send
      const name = await organizations.nameOf(incident.organization_id) ?? incident.organization_id;
      const outcome = await sendToChannel(target(channel), incidentMessage(incident, name, incident.opened_at), settings);
      if (outcome.delivered) {
        await db.transaction(async (tx) => {
          await repo.countMessageSent(tx, incidentId);
          await repo.recordDelivery(tx, channelId, null);
        });
        return;
      }
      logger.warn({ channelId, incidentId, reason: outcome.reason, retry: outcome.retry }, 'notification not delivered');
      await repo.recordDelivery(db, channelId, outcome.reason);
      if (outcome.retry) throw new Error(`notification to channel ${channel.name} not delivered: ${outcome.reason}`);
    },
  };
}
