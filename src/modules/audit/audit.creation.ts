// A creation's audit event written by the creating statement itself (issue 15): one statement and
// one commit per POST instead of the insert plus a share of a batched event insert, and the event
// is atomic with what it records (same transaction, same `now()`). The audit hook prepares the
// request's facts before the handler runs (`request.auditCreation`); the route hands them to its
// service, whose repo runs an `AuditedInsert`. When nothing took the facts (a creation whose repo
// does not fold them in), the hook writes the event as for any other mutation.
import type { Queryable } from '../../db/db.ts';
import { BATCH_COLUMNS, insertCreatedSql, ownPlace, type CreatedEvent } from './audit.repo.ts';
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
    const { parentType } = creation;
    const parentColumn = PARENT_COLUMN[parentType];
    if (!parentColumn) return undefined;
    const own = ownPlace(creation.facts.target_type);
    const key = `${parentType}/${own?.[0] ?? ''}`;
    let sql = this.variants.get(key);
    if (sql === undefined) {
      const fact = new Map(FACT_COLUMNS.map(([name, type], i) => [name as string, `$${this.paramCount + i + 1}::${type}`]));
      // the created row is `c`: its id and name, and its own place for a project or environment
      const logged = (source: string) => insertCreatedSql(parentType, `${source} c`, `c.${parentColumn}`, (name) =>
        fact.get(name) ?? (name === 'target_id' || name === own?.[0] ? 'c.id' : name === 'target_name' || name === own?.[1] ? 'c.name' : `f.${name}`));
      sql = this.statement(logged);
      this.variants.set(key, sql);
    }
    return sql;
  }
}
