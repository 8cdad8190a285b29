// emitEvent: fans an event out to the organization's subscribed webhooks inside the caller's
// transaction (one webhook_events row and one delivery task per matching webhook), so an event
// exists exactly when the state change that caused it committed. The webhooks module's, as it owns
// the webhooks and their events; the catalogue of kinds stays in src/events. Filters: the webhook's events,
// project_names_filter (wildcards, case-insensitive) and environment_types_filter, combined (AND).
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/db.ts';
import { matchesFilters } from './webhooks.rules.ts';
import * as webhooksRepo from './webhooks.repo.ts';
import type { TaskQueue } from '../../queue/queue.ts';
import { EVENT_KINDS, type EventKind } from '../../events/catalogue.ts';

export interface EmitInput {
  organizationId: string;
  kind: EventKind;
  payload: Record<string, unknown>;
  /** for project_names_filter; webhooks with that filter never match an event without it */
  projectName?: string;
  /** for environment_types_filter (DEVELOPMENT, STAGING, PRODUCTION, PREVIEW) */
  environmentMode?: string;
}

/** the JSON body every delivery of an event carries */
function eventBody(kind: EventKind, payload: Record<string, unknown>, createdAt: Date, eventId: string): string {
  return JSON.stringify({ event_id: eventId, event_type: kind, created_at: createdAt.toISOString(), payload });
}

/** Slack incoming webhooks take `{text}` */
function slackBody(kind: EventKind, payload: Record<string, unknown>): string {
  const what = [payload.service_name, payload.status].filter((x) => typeof x === 'string' && x !== '').join(': ');
  return JSON.stringify({ text: `berth ${kind}${what ? ` (${what})` : ''}` });
}

/** returns the ids of the webhook events created (one per matching webhook) */
export async function emitEvent(tx: Queryable, deps: { queue: TaskQueue }, input: EmitInput): Promise<string[]> {
  if (!Object.hasOwn(EVENT_KINDS, input.kind)) throw new Error(`unknown event kind ${input.kind}`);
  const hooks = await webhooksRepo.enabledWebhooksOf(tx, input.organizationId);
  const created: string[] = [];
  const now = new Date();
  const eventId = randomUUID();
  for (const hook of hooks) {
    if (!matchesFilters(hook, input.kind, input.projectName, input.environmentMode)) continue;
    const id = await webhooksRepo.insertEvent(tx, {
      webhookId: hook.id, organizationId: input.organizationId, kind: input.kind,
      messageId: `msg_${randomUUID().replaceAll('-', '')}`,
      body: hook.kind === 'SLACK' ? slackBody(input.kind, input.payload) : eventBody(input.kind, input.payload, now, eventId),
    });
    await deps.queue.enqueue(tx, 'webhooks.deliver', { eventId: id });
    created.push(id);
  }
  return created;
}
