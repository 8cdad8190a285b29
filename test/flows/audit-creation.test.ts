// A creation's audit event is written by the creating statement itself (src/modules/audit/
// audit.creation.ts): the event and the created row are one transaction (same xmin), the event is
// written once, with the request's facts and its place; a failed creation writes none; a creation
// whose repo does not take the facts still gets its event from the writer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { seedEnvironment, type SeededEnvironment } from '../support/factories.ts';
import { seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

describe('audit event of a creation, in the creating statement', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
  });
  after(() => t.close());

  interface StoredEvent {
    same_transaction: boolean; event_type: string; target_type: string; target_name: string; change: string; origin: string;
    user_agent: string | null; organization_id: string; project_id: string | null; project_name: string;
    environment_id: string | null; environment_name: string;
  }

  /** the events of a created row, each with whether it was written by the row's own transaction */
  const eventsOf = (table: string, id: string) => t.ctx.db.query<StoredEvent>(
    `select e.xmin::text = r.xmin::text as same_transaction, e.event_type, e.target_type, e.target_name, e.change, e.origin, e.user_agent,
            e.organization_id, e.project_id, e.project_name, e.environment_id, e.environment_name
       from audit_events e join ${table} r on r.id = e.target_id where e.target_id = $1`, [id]);

  const post = (path: string, body: Record<string, unknown>) => t.request('POST', path, {
    token: org.token, body, headers: { 'x-berth-origin': 'terraform_provider', 'user-agent': 'terraform-provider-berth/1.0' },
  });

  test('a project and an environment: one event each, same transaction, their own place', async () => {
    const project = await post(`/organization/${org.id}/project`, { name: `p-${randomUUID().slice(0, 6)}`, description: 'd' });
    assert.equal(project.status, 201, project.raw);
    assert.deepEqual(await eventsOf('projects', project.body.id), [{
      same_transaction: true, event_type: 'CREATE', target_type: 'PROJECT', target_name: project.body.name,
      change: JSON.stringify({ fields: ['name', 'description'] }), origin: 'TERRAFORM_PROVIDER', user_agent: 'terraform-provider-berth/1.0',
      organization_id: org.id, project_id: project.body.id, project_name: project.body.name, environment_id: null, environment_name: '',
    }]);

    const environment = await post(`/project/${project.body.id}/environment`, { name: 'staging', cluster_id: env.clusterId });
    assert.equal(environment.status, 201, environment.raw);
    const [event, ...more] = await eventsOf('environments', environment.body.id);
    assert.equal(more.length, 0);
    assert.equal(event!.same_transaction, true);
    assert.deepEqual([event!.target_type, event!.project_id, event!.project_name, event!.environment_id, event!.environment_name],
      ['ENVIRONMENT', project.body.id, project.body.name, environment.body.id, 'staging']);
  });

  test('services and workflows: placed in their environment and project, same transaction', async () => {
    const [projectName] = (await t.ctx.db.query<{ name: string }>('select name from projects where id = $1', [env.projectId])).map((r) => r.name);
    const created = [
      ['DATABASE', await post(`/environment/${env.id}/database`, { name: 'db', type: 'REDIS', version: '7', mode: 'CONTAINER' })],
      ['AGENTIC_WORKFLOW', await post(`/environment/${env.id}/agenticWorkflow`, { name: 'nightly' })],
    ] as const;
    for (const [type, reply] of created) {
      assert.equal(reply.status, 201, reply.raw);
      const events = await eventsOf('services', reply.body.id);
      assert.equal(events.length, 1, `${type}: one event`);
      const e = events[0]!;
      assert.deepEqual([e.same_transaction, e.target_type, e.target_name, e.organization_id, e.project_id, e.project_name, e.environment_id, e.environment_name],
        [true, type, reply.body.name, org.id, env.projectId, projectName, env.id, env.name], type);
    }
  });

  test('a creation that fails writes no event', async () => {
    const name = `dup-${randomUUID().slice(0, 6)}`;
    assert.equal((await post(`/organization/${org.id}/project`, { name })).status, 201);
    const before = await t.ctx.db.query<{ n: string }>('select count(*) as n from audit_events where organization_id = $1', [org.id]);
    const again = await post(`/organization/${org.id}/project`, { name });
    assert.ok(again.status >= 400 && again.status < 500, again.raw);
    const afterwards = await t.ctx.db.query<{ n: string }>('select count(*) as n from audit_events where organization_id = $1', [org.id]);
    assert.equal(afterwards[0]!.n, before[0]!.n);
  });

  test('a creation whose repo does not take the facts is recorded by the writer, once', async () => {
    const cluster = await post(`/organization/${org.id}/cluster`, { name: `c-${randomUUID().slice(0, 6)}`, region: 'local', cloud_provider: 'ON_PREMISE' });
    assert.equal(cluster.status, 201, cluster.raw);
    const events = await eventsOf('clusters', cluster.body.id);
    assert.equal(events.length, 1);
    assert.deepEqual([events[0]!.same_transaction, events[0]!.target_type, events[0]!.origin], [false, 'CLUSTER', 'TERRAFORM_PROVIDER']);
  });
});
