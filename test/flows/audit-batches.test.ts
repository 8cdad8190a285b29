// Audit events are written in batches (src/modules/audit/audit.writer.ts): concurrent mutations
// share one statement, every event is still written once, in order, with its place, before the
// answer; one bad event loses only itself.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../src/db/db.ts';
import type { BatchedEvent } from '../../src/modules/audit/audit.repo.ts';
import { createAuditWriter } from '../../src/modules/audit/audit.writer.ts';
import { seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

describe('audit events written in batches', () => {
  let t: TestApp;
  let org: SeededOrganization;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
  });
  after(() => t.close());

  /** the app's database, counting the statements sent through it */
  function counting(): { db: Queryable; statements: () => number } {
    let n = 0;
    const db = { query: (text: string, params?: unknown[]) => { n += 1; return t.ctx.db.query(text, params); } } as Queryable;
    return { db, statements: () => n };
  }

  const event = (name: string, extra: Partial<BatchedEvent> = {}): BatchedEvent => ({
    organization_id: org.id, event_type: 'UPDATE', target_type: 'PROJECT', target_id: randomUUID(), target_name: name,
    sub_target_type: null, change: '', origin: 'API', triggered_by: 'test', principal_kind: 'token', principal_id: randomUUID(),
    project_id: null, project_name: '', environment_id: null, environment_name: '', user_agent: null, request_id: name, ...extra,
  } as BatchedEvent);

  const stored = async (prefix: string) => t.ctx.db.query<{ request_id: string; project_name: string; organization_id: string }>(
    'select request_id, project_name, organization_id from audit_events where request_id like $1 order by seq', [`${prefix}%`]);

  test('concurrent events share statements; each is written once, in the order given', async () => {
    const { db, statements } = counting();
    const writer = createAuditWriter(db);
    const prefix = `batch-${randomUUID().slice(0, 8)}-`;
    const names = Array.from({ length: 30 }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`);
    await Promise.all(names.map((name) => writer.write(event(name))));
    assert.deepEqual((await stored(prefix)).map((r) => r.request_id), names);
    // the first goes alone (nothing was in flight), the 29 that came meanwhile together
    assert.equal(statements(), 2);
  });

  test('a creation takes its place from its parent; a creation whose parent is gone is not written', async () => {
    const project = await t.request('POST', `/organization/${org.id}/project`, { token: org.token, body: { name: `p-${randomUUID().slice(0, 6)}` } });
    assert.equal(project.status, 201, project.raw);
    const writer = createAuditWriter(t.ctx.db);
    const prefix = `created-${randomUUID().slice(0, 8)}-`;
    const created = (name: string, parentId: string) => {
      const { organization_id: _o, project_id: _p, project_name: _pn, environment_id: _e, environment_name: _en, ...rest } = event(name) as unknown as Record<string, unknown>;
      return { ...rest, event_type: 'CREATE', target_type: 'ENVIRONMENT', parent_type: 'PROJECT', parent_id: parentId } as BatchedEvent;
    };
    await Promise.all([writer.write(created(`${prefix}a`, project.body.id)), writer.write(created(`${prefix}gone`, randomUUID())), writer.write(created(`${prefix}b`, project.body.id))]);
    assert.deepEqual(await stored(prefix), [
      { request_id: `${prefix}a`, project_name: project.body.name, organization_id: org.id },
      { request_id: `${prefix}b`, project_name: project.body.name, organization_id: org.id },
    ]);
  });

  test('one bad event in a batch fails alone; the others are written', async () => {
    const writer = createAuditWriter(t.ctx.db);
    const prefix = `poison-${randomUUID().slice(0, 8)}-`;
    const results = await Promise.allSettled([
      writer.write(event(`${prefix}0`)),
      writer.write(event(`${prefix}1`)),
      writer.write(event(`${prefix}bad`, { organization_id: randomUUID() })), // no such organization: a foreign-key violation
      writer.write(event(`${prefix}2`)),
    ]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    assert.deepEqual((await stored(prefix)).map((r) => r.request_id), [`${prefix}0`, `${prefix}1`, `${prefix}2`]);
  });

  test('a batch of two kinds whose second statement fails writes no event twice', async () => {
    const writer = createAuditWriter(t.ctx.db);
    const prefix = `mixed-${randomUUID().slice(0, 8)}-`;
    const { organization_id: _o, project_id: _p, project_name: _pn, environment_id: _e, environment_name: _en, ...created } = event(`${prefix}created`) as unknown as Record<string, unknown>;
    const creation = (extra: Record<string, unknown>) => ({ ...created, event_type: 'CREATE', target_type: 'CLUSTER', parent_type: 'ORGANIZATION', parent_id: org.id, ...extra } as BatchedEvent);
    const results = await Promise.allSettled([
      writer.write(event(`${prefix}0`)),
      writer.write(event(`${prefix}1`)),
      writer.write(creation({})),
      writer.write(creation({ request_id: `${prefix}bad`, principal_id: 'not-a-uuid' })),
      writer.write(event(`${prefix}2`)),
    ]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    assert.deepEqual((await stored(prefix)).map((r) => r.request_id).sort(), [`${prefix}0`, `${prefix}1`, `${prefix}2`, `${prefix}created`]);
  });

  test('concurrent creations through the API: one event each, before each answer', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `audited-${randomUUID().slice(0, 6)}-${i}`);
    const answers = await Promise.all(names.map((name) => t.request('POST', `/organization/${org.id}/project`, { token: org.token, body: { name } })));
    for (const a of answers) assert.equal(a.status, 201, a.raw);
    const rows = await t.ctx.db.query<{ target_id: string; project_name: string }>(
      `select target_id, project_name from audit_events where event_type = 'CREATE' and target_id = any($1::uuid[])`, [answers.map((a) => a.body.id)]);
    assert.deepEqual(rows.map((r) => r.project_name).sort(), [...names].sort());
  });
});
