// A creation's audit event written by the creating statement itself (issue 15): one statement and
// one commit per POST instead of the insert plus a share of a batched event insert, and the event
// is atomic with what it records (same transaction, same `now()`). The audit hook prepares the
// request's facts before the handler runs (`request.auditCreation`); the route hands them to its
// service, whose repo runs an `AuditedInsert`. When nothing took the facts (a creation whose repo
// does not fold them in), the hook writes the event as for any other mutation.
import type { Queryable } from '../../db/db.ts';
import { BATCH_COLUMNS, BY_TYPE, EVENT_COLUMNS, NO_PLACE, type CreatedEvent } from './audit.repo.ts';
import type { TargetType } from './audit.rules.ts';

/** what the request says of its event: all but the created row's id, name and place */
export type CreationFacts = Omit<CreatedEvent, 'target_id' | 'target_name' | 'parent_type' | 'parent_id'>;

export interface CreationEvent {
  /** the type of the parent the created row belongs to (its place is read from it) */
  readonly parentType: TargetType;
  readonly facts: CreationFacts;
  /** set once a creating statement has written the event */
  written: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** the audit event of the creation this request makes, for its insert to write */
    auditCreation: CreationEvent | undefined;
  }
}

/** the request's facts, in the order they follow the creating statement's own parameters */
const FACT_COLUMNS = BATCH_COLUMNS.filter(([name]) =>
  !['organization_id', 'target_id', 'target_name', 'project_id', 'project_name', 'environment_id', 'environment_name'].includes(name)) as
  ReadonlyArray<readonly [keyof CreationFacts, string]>;

/** the column of a created row that names its parent of each type */
const PARENT_COLUMN: Partial<Record<TargetType, string>> = { ORGANIZATION: 'organization_id', PROJECT: 'project_id', ENVIRONMENT: 'environment_id' };

/**
 * The statement of an insert that also writes an event. `statement(logged)` gives the insert's SQL,
 * with `logged(source)` placed as a CTE member when given: `source` is the relation of the created
 * row (its `id`, `name` and parent column). The event's facts are parameters after the insert's own.
 */
export type AuditedStatement = (logged?: (source: string) => string) => string;

/** a plain `insert … returning …` made into an audited statement */
export const returningInsert = (sql: string): AuditedStatement => (logged) =>
  logged ? `with created as (${sql}), logged as (${logged('created')}) select * from created` : sql;

export class AuditedInsert {
  private readonly paramCount: number;
  private readonly statement: AuditedStatement;
  private readonly plain: string;
  private readonly variants = new Map<string, string>();

  /** paramCount: the parameters of the insert itself (the event's follow them) */
  constructor(paramCount: number, statement: AuditedStatement) {
    this.paramCount = paramCount;
    this.statement = statement;
    this.plain = statement();
  }

  /** runs the insert; with a creation event of a known parent, the same statement writes it */
  async query<R>(db: Queryable, params: readonly unknown[], creation?: CreationEvent): Promise<R[]> {
    const sql = creation && this.audited(creation);
    if (!creation || !sql) return db.query<R>(this.plain, params);
    const rows = await db.query<R>(sql, [...params, ...FACT_COLUMNS.map(([name]) => creation.facts[name] ?? null)]);
    creation.written = true;
    return rows;
  }

  private audited(creation: CreationEvent): string | undefined {
    const parentColumn = PARENT_COLUMN[creation.parentType];
    if (!parentColumn) return undefined;
    const own = creation.facts.target_type === 'PROJECT' || creation.facts.target_type === 'ENVIRONMENT' ? creation.facts.target_type : 'OTHER';
    const key = `${creation.parentType}/${own}`;
    let sql = this.variants.get(key);
    if (sql === undefined) {
      sql = this.statement((source) => eventInsert(source, this.paramCount, creation.parentType, parentColumn, own));
      this.variants.set(key, sql);
    }
    return sql;
  }
}

/** the insert of the event of the row in `source`: its organization and place read from its
 * parent, unless the created row is its own place (a project, an environment) */
function eventInsert(source: string, offset: number, parentType: TargetType, parentColumn: string, own: 'PROJECT' | 'ENVIRONMENT' | 'OTHER'): string {
  const fact = new Map(FACT_COLUMNS.map(([name, type], i) => [name as string, `$${offset + i + 1}::${type}`]));
  const placed: Record<string, string> = {
    organization_id: 'f.organization_id', target_id: 'c.id', target_name: 'c.name',
    project_id: own === 'PROJECT' ? 'c.id' : 'f.project_id', project_name: own === 'PROJECT' ? 'c.name' : 'f.project_name',
    environment_id: own === 'ENVIRONMENT' ? 'c.id' : 'f.environment_id', environment_name: own === 'ENVIRONMENT' ? 'c.name' : 'f.environment_name',
  };
  const values = BATCH_COLUMNS.map(([name]) => fact.get(name) ?? placed[name]);
  // under an organization the created row holds all there is to know: nothing to read
  const parent = parentType === 'ORGANIZATION' ? `(select c.organization_id, ${NO_PLACE})` : `(${BY_TYPE[parentType].replace('$1', `c.${parentColumn}`)})`;
  return `insert into audit_events (${EVENT_COLUMNS}) select ${values.join(', ')} from ${source} c cross join lateral ${parent} f`;
}
