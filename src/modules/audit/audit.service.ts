// The organization audit log, read side: ADMIN and above list the events of their organization,
// newest first, filtered, in pages joined by cursor tokens (links.next / links.previous) as the
// public API's getOrganizationEvents does. Events are written by audit.hook.ts.
import type { Db, Queryable } from '../../db/db.ts';
import { badRequest } from '../../lib/errors.ts';
import type { Principal } from '../access/principal.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import * as repo from './audit.repo.ts';
import type { TargetType } from './audit.rules.ts';

interface EventsQuery {
  pageSize?: number; continueToken?: string; stepBackToken?: string; fromTimestamp?: string; toTimestamp?: string;
  eventType?: string; targetType?: string; targetId?: string; subTargetType?: string; triggeredBy?: string; origin?: string;
  serviceProjectId?: string; serviceEnvironmentId?: string;
}

type Event = Omit<repo.EventItem, 'seq'>;
interface EventsPage { events: Event[]; links: { previous?: string; next?: string }; organization_max_limit_reached: boolean }

export interface AuditService {
  list(p: Principal, organizationId: string, q: EventsQuery): Promise<EventsPage>;
}

const token = (seq: number) => Buffer.from(`seq:${seq}`).toString('base64url');
function seqOf(value: string | undefined, name: string): number | null {
  if (value === undefined) return null;
  const m = /^seq:(\d{1,18})$/.exec(Buffer.from(value, 'base64url').toString());
  if (!m) throw badRequest(`${name} is not a token this API gave`);
  return Number(m[1]);
}

/** ISO 8601, or epoch seconds / milliseconds / nanoseconds told apart by their size */
function parseTimestamp(value: string | undefined, name: string): Date | null {
  if (value === undefined || value === '') return null;
  let ms: number;
  if (/^\d+$/.test(value)) {
    const n = Number(value);
    ms = n >= 1e17 ? n / 1e6 : n >= 1e11 ? n : n * 1000;
  } else {
    ms = Date.parse(value);
  }
  if (!Number.isFinite(ms)) throw badRequest(`${name} must be an ISO 8601 date-time or an epoch number; got "${value}"`);
  return new Date(ms);
}

/** an event git caused (a push's deployment, a pull request's preview): origin GIT, principal the organization */
export interface GitEvent {
  eventType: string; targetType: TargetType; targetId: string; subTargetType: string | null; change: string;
  triggeredBy: string; organizationId: string; userAgent: string | null; requestId: string;
}

/**
 * For other modules: writes a git event in the caller's transaction, the target's facts (its
 * organization, name, project and environment) read now; nothing when the target is gone.
 */
export async function recordGitEvent(tx: Queryable, e: GitEvent): Promise<void> {
  const facts = await repo.resolveTarget(tx, e.targetType, e.targetId);
  if (!facts) return;
  await repo.insertEvents(tx, [{
    ...facts, event_type: e.eventType, target_type: e.targetType, sub_target_type: e.subTargetType, origin: 'GIT', triggered_by: e.triggeredBy,
    change: e.change, principal_kind: 'git', principal_id: e.organizationId, user_agent: e.userAgent, request_id: e.requestId,
  }]);
}

export function createAuditService(deps: { db: Db; organizations: OrganizationsService }): AuditService {
  const { db, organizations } = deps;
  return {
    async list(p, organizationId, q) {
      await organizations.authorize(p, organizationId, 'manage');
      if (q.continueToken && q.stepBackToken) throw badRequest('Send continueToken or stepBackToken, not both');
      const limit = q.pageSize ?? 20;
      const olderThan = seqOf(q.continueToken, 'continueToken');
      const newerThan = seqOf(q.stepBackToken, 'stepBackToken');
      const rows = await repo.listEvents(db, {
        organizationId, limit, olderThan, newerThan,
        from: parseTimestamp(q.fromTimestamp, 'fromTimestamp'), to: parseTimestamp(q.toTimestamp, 'toTimestamp'),
        eventType: q.eventType, targetType: q.targetType, targetId: q.targetId, subTargetType: q.subTargetType,
        triggeredBy: q.triggeredBy, origin: q.origin, projectId: q.serviceProjectId, environmentId: q.serviceEnvironmentId,
      });
      const more = rows.length > limit;
      const page = newerThan !== null ? rows.slice(0, limit).reverse() : rows.slice(0, limit);
      const filters = Object.entries(q).filter(([k, v]) => v !== undefined && k !== 'continueToken' && k !== 'stepBackToken' && k !== 'pageSize');
      const link = (name: string, seq: number) => {
        const params = new URLSearchParams([['pageSize', String(limit)], ...filters.map(([k, v]) => [k, String(v)] as [string, string]), [name, token(seq)]]);
        return `/organization/${organizationId}/events?${params}`;
      };
      const links: EventsPage['links'] = {};
      if (page.length > 0) {
        const olderExist = newerThan !== null ? true : more;
        const newerExist = newerThan !== null ? more : olderThan !== null;
        if (olderExist) links.next = link('continueToken', page.at(-1)!.seq);
        if (newerExist) links.previous = link('stepBackToken', page[0]!.seq);
      }
      return { events: page.map(({ seq: _seq, ...e }) => e), links, organization_max_limit_reached: false };
    },
  };
}
