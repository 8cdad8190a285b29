// The one place the audit log is written: after every successful mutation (POST, PUT, DELETE
// answered 2xx by an authenticated caller) the route's meaning (audit.rules.ts) and its target's
// facts become one event. Facts are read before the handler runs (a deleted target keeps its name
// and place); a creation's come from the answer (id, name) and from its parent, read by the
// event's insert itself. A creation whose repo can write its event in the creating statement is
// handed the request's facts (`request.auditCreation`, audit.creation.ts); other events are
// written in batches (audit.writer.ts): the answer waits for its event's commit, shared with the
// events of concurrent requests. A failure to write is logged and never fails the request. The
// hooks sit only on the routes that audit.rules.ts classifies, each with its class worked out once,
// when the route is registered.
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Db } from '../../db/db.ts';
import { methodsOf, type RouteHooks } from '../../http/route-hooks.ts';
import { displayName } from '../access/principal.ts';
import type { CreationFacts } from './audit.creation.ts';
import { classify, type AuditClass } from './audit.rules.ts';
import * as repo from './audit.repo.ts';
import { createAuditWriter } from './audit.writer.ts';

const ORIGINS = new Set(['API', 'CLI', 'CONSOLE', 'GIT', 'QOVERY_INTERNAL', 'SKILL', 'TERRAFORM_PROVIDER']);

interface Answer { id?: unknown; name?: unknown; key?: unknown }
interface Pending { cls: AuditClass; before: repo.TargetFacts | null; answer?: Answer }

/** whether the event needs the answer (the id of what was created or reached) */
function needsAnswer(cls: AuditClass): boolean {
  return 'created' in cls.target || ('lookup' in cls.target && !cls.target.param);
}

function param(request: FastifyRequest, name: string | null): string | null {
  if (!name) return null;
  const v = (request.params as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : null;
}

/** the created resource's id and name, from the answer (a variable's name is its key) */
function createdIdentity(body: Answer): { id: string | null; name: string } {
  return { id: typeof body.id === 'string' ? body.id : null, name: typeof body.name === 'string' ? body.name : typeof body.key === 'string' ? body.key : '' };
}

/** a created organization is its own place (no parent to read it from) */
function createdOrganization(body: Answer): repo.TargetFacts | null {
  const { id, name } = createdIdentity(body);
  return id ? { organization_id: id, target_id: id, target_name: name, project_id: null, project_name: '', environment_id: null, environment_name: '' } : null;
}

type Done = (err?: Error | null, payload?: unknown) => void;

export function installAuditLog(hooks: RouteHooks, db: Db): void {
  const pending = new WeakMap<FastifyRequest, Pending>();
  const writer = createAuditWriter(db);
  /** the route's audit class (a route registered for several methods is classified by its first) */
  const classOf = (route: RouteOptions) => classify(methodsOf(route)[0]!, route.url);
  // callback hooks with a path that makes no promise: a creation whose statement writes its event
  // (the common POST) reads nothing before and writes nothing after
  hooks.add('preHandler', (route) => {
    const cls = classOf(route);
    if (!cls) return undefined;
    const t = cls.target;
    const reads = 'lookup' in t ? t.param !== null : 'param' in t;
    return (request: FastifyRequest, _reply: FastifyReply, done: Done) => {
      if (!request.principal) return done();
      if (!reads) {
        keepPending(request, cls, null);
        return done();
      }
      readBefore(request, cls).then(() => done(), done);
    };
  });
  // the answer's id and name taken from the object before it is serialized (parsing the
  // serialized answer back was 2.4 % of a loaded server creating jobs)
  hooks.add('preSerialization', (route) => {
    const cls = classOf(route);
    return cls && needsAnswer(cls) ? keepAnswer : undefined;
  });
  hooks.add('onSend', (route) => (classOf(route) ? recordHook : undefined));

  function keepAnswer(request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: Done): void {
    const p = pending.get(request);
    if (p && !request.auditCreation?.written && payload !== null && typeof payload === 'object') {
      const { id, name, key } = payload as Answer;
      p.answer = { id, name, key };
    }
    done(null, payload);
  }

  /** the target's facts before the handler changes them */
  async function readBefore(request: FastifyRequest, cls: AuditClass): Promise<void> {
    const t = cls.target;
    let before: repo.TargetFacts | null = null;
    if ('param' in t && !('lookup' in t)) {
      const id = param(request, t.param);
      before = id ? await repo.resolveTarget(db, cls.targetType, id) : null;
    } else if ('lookup' in t) {
      const id = param(request, t.param);
      before = id ? await repo.resolveLookup(db, t.lookup, id) : null;
    }
    keepPending(request, cls, before);
  }

  /** a creation's place is read from its parent by the event's insert itself: the creating
   * statement's, when the handler hands it the facts, else the writer's (onSend) */
  function keepPending(request: FastifyRequest, cls: AuditClass, before: repo.TargetFacts | null): void {
    const t = cls.target;
    if ('created' in t && t.parentType) request.auditCreation = { parentType: t.parentType, facts: requestFacts(request, cls), written: false };
    pending.set(request, { cls, before });
  }

  /** what the request itself says of its event */
  function requestFacts(request: FastifyRequest, cls: AuditClass): CreationFacts {
    const principal = request.principal;
    const origin = String(request.headers['x-berth-origin'] ?? 'API').toUpperCase();
    const sent = request.body && typeof request.body === 'object' && !Array.isArray(request.body) ? Object.keys(request.body) : [];
    return {
      event_type: cls.eventType, target_type: cls.targetType as string, sub_target_type: cls.subTargetType,
      change: sent.length > 0 ? JSON.stringify({ fields: sent }) : '', origin: ORIGINS.has(origin) ? origin : 'API',
      triggered_by: displayName(principal), principal_kind: principal.kind, principal_id: principal.id,
      user_agent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'].slice(0, 500) : null,
      request_id: String(request.id),
    };
  }

  function recordHook(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done): void {
    const p = pending.get(request);
    if (!p || request.auditCreation?.written || reply.statusCode < 200 || reply.statusCode >= 300) return done(null, payload);
    record(request, p, payload).then(() => done(null, payload), () => done(null, payload));
  }

  /** writes the event of a successful mutation (never fails the request) */
  async function record(request: FastifyRequest, p: Pending, payload: unknown): Promise<void> {
    try {
      const { cls, before } = p;
      const t = cls.target;
      let body: Answer = p.answer ?? {};
      // an answer sent already serialized
      if (!p.answer && needsAnswer(cls) && typeof payload === 'string' && payload.startsWith('{')) body = JSON.parse(payload);
      const creation = request.auditCreation;
      if (creation && 'created' in t) {
        const parentId = param(request, t.parentParam);
        const { id, name } = createdIdentity(body);
        if (parentId) await writer.write({ ...creation.facts, target_id: id, target_name: name, parent_type: creation.parentType, parent_id: parentId });
        return;
      }
      const event = requestFacts(request, cls);
      let facts: repo.TargetFacts | null = before;
      if ('created' in t) facts = cls.targetType === 'ORGANIZATION' ? createdOrganization(body) : null;
      else if ('lookup' in t && !t.param && typeof body.id === 'string') facts = await repo.resolveLookup(db, t.lookup, body.id);
      if ('lookup' in t && t.lookup === 'deployment' && facts?.target_type) event.target_type = facts.target_type;
      if (!facts) return;
      await writer.write({ ...facts, ...event });
    } catch (err) {
      request.log.error({ err }, 'could not write the audit event');
    }
  }
}
