// SQL of the audit log: resolving a target (its organization, name, project and environment,
// copied into the event), inserting events and listing them with filters, newest first, by a
// cursor on `seq`.
import type { Queryable } from '../../db/db.ts';
import { isoRequired } from '../../lib/text.ts';
import type { LookupKind, TargetType } from './audit.rules.ts';

export interface TargetFacts {
  organization_id: string; target_id: string | null; target_name: string; target_type?: TargetType;
  project_id: string | null; project_name: string; environment_id: string | null; environment_name: string;
}

const SERVICE = `select s.organization_id, s.id as target_id, s.name as target_name, p.id as project_id, p.name as project_name,
  e.id as environment_id, e.name as environment_name from services s join environments e on e.id = s.environment_id join projects p on p.id = s.project_id where s.id = $1`;
const NO_PLACE = `null::uuid as project_id, '' as project_name, null::uuid as environment_id, '' as environment_name`;

const BY_TYPE: Record<TargetType, string> = {
  ORGANIZATION: `select id as organization_id, id as target_id, name as target_name, ${NO_PLACE} from organizations where id = $1`,
  MEMBERS_AND_ROLES: `select id as organization_id, id as target_id, name as target_name, ${NO_PLACE} from organizations where id = $1`,
  PROJECT: `select organization_id, id as target_id, name as target_name, id as project_id, name as project_name,
    null::uuid as environment_id, '' as environment_name from projects where id = $1`,
  ENVIRONMENT: `select e.organization_id, e.id as target_id, e.name as target_name, p.id as project_id, p.name as project_name,
    e.id as environment_id, e.name as environment_name from environments e join projects p on p.id = e.project_id where e.id = $1`,
  APPLICATION: SERVICE, CONTAINER: SERVICE, DATABASE: SERVICE, JOB: SERVICE, AGENTIC_WORKFLOW: SERVICE,
  CLUSTER: `select organization_id, id as target_id, name as target_name, ${NO_PLACE} from clusters where id = $1`,
  CONTAINER_REGISTRY: `select organization_id, id as target_id, name as target_name, ${NO_PLACE} from container_registries where id = $1`,
  WEBHOOK: `select organization_id, id as target_id, target_url as target_name, ${NO_PLACE} from webhooks where id = $1`,
};

/** the facts of a target, or null when it does not exist (any more) */
export async function resolveTarget(db: Queryable, type: TargetType, id: string): Promise<TargetFacts | null> {
  const rows = await db.query<TargetFacts>(BY_TYPE[type], [id]);
  return rows[0] ?? null;
}

/** resources reached by their own id: the organization (and, for a deployment, its service) */
export async function resolveLookup(db: Queryable, kind: LookupKind, id: string): Promise<TargetFacts | null> {
  switch (kind) {
    case 'variable': {
      const rows = await db.query<TargetFacts>(`select organization_id, id as target_id, key as target_name, ${NO_PLACE} from variables where id = $1`, [id]);
      return rows[0] ?? null;
    }
    case 'llmProvider':
    case 'mcpServer': {
      const table = kind === 'llmProvider' ? 'llm_providers' : 'mcp_servers';
      const rows = await db.query<TargetFacts>(`select organization_id, id as target_id, name as target_name, ${NO_PLACE} from ${table} where id = $1`, [id]);
      return rows[0] ?? null;
    }
    case 'deployment': {
      const rows = await db.query<{ service_id: string; service_type: TargetType }>('select service_id, service_type from deployments where id = $1', [id]);
      if (!rows[0]) return null;
      const facts = await resolveTarget(db, BY_TYPE[rows[0].service_type] ? rows[0].service_type : 'APPLICATION', rows[0].service_id);
      return facts && { ...facts, target_type: rows[0].service_type };
    }
  }
}

export interface NewEvent extends Omit<TargetFacts, 'target_type'> {
  event_type: string; target_type: string; sub_target_type: string | null; change: string; origin: string; triggered_by: string;
  /** 'git': a deployment a push queued (principal_id: the organization; migration 0025) */
  principal_kind: 'token' | 'user' | 'git'; principal_id: string; user_agent: string | null; request_id: string;
}

const EVENT_COLUMNS = `organization_id, event_type, target_type, target_id, target_name, sub_target_type, change, origin,
  triggered_by, principal_kind, principal_id, project_id, project_name, environment_id, environment_name, user_agent, request_id`;

/** an event to write: with its facts, or (a creation) with the parent its place is read from */
export type BatchedEvent = NewEvent | CreatedEvent;

export interface CreatedEvent extends Omit<NewEvent, 'organization_id' | 'project_id' | 'project_name' | 'environment_id' | 'environment_name'> {
  parent_type: TargetType; parent_id: string;
}

/** each event column with its type: a batch is sent as one array per column */
export const BATCH_COLUMNS: ReadonlyArray<readonly [keyof NewEvent, string]> = [
  ['organization_id', 'uuid'], ['event_type', 'text'], ['target_type', 'text'], ['target_id', 'uuid'], ['target_name', 'text'],
  ['sub_target_type', 'text'], ['change', 'text'], ['origin', 'text'], ['triggered_by', 'text'], ['principal_kind', 'text'],
  ['principal_id', 'uuid'], ['project_id', 'uuid'], ['project_name', 'text'], ['environment_id', 'uuid'], ['environment_name', 'text'],
  ['user_agent', 'text'], ['request_id', 'text'],
];
const UNNEST = `unnest(${BATCH_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}, $${BATCH_COLUMNS.length + 1}::uuid[])
  with ordinality as b (${BATCH_COLUMNS.map(([name]) => name).join(', ')}, parent_id, ord)`;

/** events with their facts */
const INSERT_EVENTS = `insert into audit_events (${EVENT_COLUMNS}) select ${BATCH_COLUMNS.map(([name]) => `b.${name}`).join(', ')} from ${UNNEST} order by b.ord`;

/** the place columns (id, name) a created project or environment fills with itself */
export function ownPlace(targetType: string): readonly [keyof NewEvent, keyof NewEvent] | null {
  return targetType === 'PROJECT' ? ['project_id', 'project_name'] : targetType === 'ENVIRONMENT' ? ['environment_id', 'environment_name'] : null;
}

/**
 * The insert of events of creations read from `from`: the organization, and the place the created
 * row does not fill itself (`f.*`), come from its parent of type `parentType`, whose id is
 * `parentRef`; every other column is `valueOf(name)`. Used for batches (below) and by the creating
 * statement itself (audit.creation.ts).
 */
export function insertCreatedSql(parentType: TargetType, from: string, parentRef: string, valueOf: (name: keyof NewEvent) => string): string {
  return `insert into audit_events (${EVENT_COLUMNS})
    select ${BATCH_COLUMNS.map(([name]) => (name === 'organization_id' ? 'f.organization_id' : valueOf(name))).join(', ')}
    from ${from} cross join lateral (${BY_TYPE[parentType].replace('$1', parentRef)}) f`;
}

/** creations under parents of one type, in batches: a project's or environment's own place is sent */
const PLACED: readonly string[] = ['project_id', 'project_name', 'environment_id', 'environment_name'];
const INSERT_CREATED = Object.fromEntries((Object.keys(BY_TYPE) as TargetType[]).map((type) => [type,
  `${insertCreatedSql(type, UNNEST, 'b.parent_id', (name) => (PLACED.includes(name) ? `coalesce(b.${name}, f.${name})` : `b.${name}`))} order by b.ord`,
])) as Record<TargetType, string>;

async function insertBatch(db: Queryable, sql: string, events: ReadonlyArray<Partial<NewEvent> & { parent_id?: string }>): Promise<void> {
  await db.query(sql, [...BATCH_COLUMNS.map(([name]) => events.map((e) => e[name] ?? null)), events.map((e) => e.parent_id ?? null)]);
}

/** events of one kind are written by one statement: those with their facts, or creations by
 * their parent's type */
export function eventKind(e: BatchedEvent): 'placed' | TargetType {
  return 'parent_type' in e ? e.parent_type : 'placed';
}

/**
 * Events of one kind (eventKind) in one statement, in the order given. A creation's organization
 * and place are read from its parent by the insert itself (a created project or environment is its
 * own place); nothing is written for a creation whose parent is gone.
 */
export async function insertEvents(db: Queryable, events: readonly BatchedEvent[]): Promise<void> {
  const kind = eventKind(events[0]!);
  if (events.some((e) => eventKind(e) !== kind)) throw new Error('insertEvents takes events of one kind');
  if (kind === 'placed') return insertBatch(db, INSERT_EVENTS, events as NewEvent[]);
  await insertBatch(db, INSERT_CREATED[kind], (events as CreatedEvent[]).map((e) => {
    const own = ownPlace(e.target_type);
    return own ? { ...e, [own[0]]: e.target_id, [own[1]]: e.target_name } : e;
  }));
}

export interface EventFilter {
  organizationId: string; limit: number; olderThan: number | null; newerThan: number | null;
  from: Date | null; to: Date | null; eventType?: string; targetType?: string; targetId?: string; subTargetType?: string;
  triggeredBy?: string; origin?: string; projectId?: string; environmentId?: string;
}

interface EventRow {
  seq: string; id: string; created_at: Date; event_type: string; target_type: string; target_id: string | null; target_name: string;
  sub_target_type: string | null; change: string; origin: string; triggered_by: string; project_id: string | null; project_name: string;
  environment_id: string | null; environment_name: string; user_agent: string | null;
}

export interface EventItem {
  seq: number; id: string; timestamp: string; event_type: string; target_type: string; target_id: string | null; target_name: string;
  sub_target_type: string | null; change: string; origin: string; triggered_by: string; project_id: string | null; project_name: string;
  environment_id: string | null; environment_name: string; user_agent: string | null; original_change: string | null;
}

/** one page in the cursor's direction, returned newest first; `limit + 1` rows are read to know if more exist */
export async function listEvents(db: Queryable, f: EventFilter): Promise<EventItem[]> {
  const where = ['organization_id = $1'];
  const args: unknown[] = [f.organizationId];
  const add = (sql: string, v: unknown) => { args.push(v); where.push(sql.replace('?', `$${args.length}`)); };
  if (f.olderThan !== null) add('seq < ?', f.olderThan);
  if (f.newerThan !== null) add('seq > ?', f.newerThan);
  if (f.from) add('created_at >= ?', f.from);
  if (f.to) add('created_at <= ?', f.to);
  if (f.eventType) add('event_type = ?', f.eventType);
  if (f.targetType) add('target_type = ?', f.targetType);
  if (f.targetId) add('target_id = ?', f.targetId);
  if (f.subTargetType) add('sub_target_type = ?', f.subTargetType);
  if (f.triggeredBy) add('triggered_by = ?', f.triggeredBy);
  if (f.origin) add('origin = ?', f.origin);
  if (f.projectId) add('project_id = ?', f.projectId);
  if (f.environmentId) add('environment_id = ?', f.environmentId);
  args.push(f.limit + 1);
  // stepping back reads upwards from the cursor, then the page is turned newest first again
  const order = f.newerThan !== null ? 'asc' : 'desc';
  const rows = await db.query<EventRow>(
    `select seq, id, created_at, event_type, target_type, target_id, target_name, sub_target_type, change, origin, triggered_by,
            project_id, project_name, environment_id, environment_name, user_agent
       from audit_events where ${where.join(' and ')} order by seq ${order} limit $${args.length}`, args);
  return rows.map((r) => ({
    seq: Number(r.seq), id: r.id, timestamp: isoRequired(r.created_at), event_type: r.event_type, target_type: r.target_type,
    target_id: r.target_id, target_name: r.target_name, sub_target_type: r.sub_target_type, change: r.change, origin: r.origin,
    triggered_by: r.triggered_by, project_id: r.project_id, project_name: r.project_name, environment_id: r.environment_id,
    environment_name: r.environment_name, user_agent: r.user_agent, original_change: null,
  }));
}
