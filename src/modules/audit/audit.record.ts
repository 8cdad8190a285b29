// An audit event for a mutation that did not come through a REST route (berth's MCP server's
// acting tools): the same facts the route hook records, the target read now. Never throws: a
// failure to write is the caller's to log.
import type { Queryable } from '../../db/db.ts';
import { displayName, type Principal } from '../access/principal.ts';
import type { TargetType } from './audit.rules.ts';
import { insertEvents, resolveTarget } from './audit.repo.ts';

export interface RecordedMutation {
  eventType: string; targetType: TargetType; targetId: string; change: string; userAgent: string | null; requestId: string;
}

export async function recordMutation(db: Queryable, p: Principal, m: RecordedMutation): Promise<void> {
  const facts = await resolveTarget(db, m.targetType, m.targetId);
  if (!facts) return;
  await insertEvents(db, [{
    ...facts, event_type: m.eventType, target_type: m.targetType, sub_target_type: null, change: m.change, origin: 'API',
    triggered_by: displayName(p), principal_kind: p.kind, principal_id: p.id, user_agent: m.userAgent, request_id: m.requestId,
  }]);
}
