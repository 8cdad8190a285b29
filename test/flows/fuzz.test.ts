// Property-based fuzzing of every create and edit route found in the OpenAPI document: bodies
// generated from each route's own schema, most of them mutated. The properties: never a 5xx,
// and every 4xx carries the error body. FUZZ_BODIES (default 10,000) sets how many are sent.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { seedEnvironment, seedService, type SeededEnvironment } from '../support/factories.ts';
import { generate, mutate, prng, useDefinitions, type Schema } from '../support/fuzz.ts';
import { seedOrganization, startTestApp, type SeededOrganization, type TestApp } from '../support/harness.ts';

const TOTAL = Number(process.env.FUZZ_BODIES ?? 10_000);
const SERVICE_PARAMS: Record<string, string> = {
  applicationId: 'APPLICATION', containerId: 'CONTAINER', databaseId: 'DATABASE', jobId: 'JOB', agenticWorkflowId: 'AGENTIC_WORKFLOW',
};

describe('fuzzing create and edit routes', () => {
  let t: TestApp;
  let org: SeededOrganization;
  let env: SeededEnvironment;
  const ids: Record<string, string> = {};
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    env = await seedEnvironment(t, org);
    Object.assign(ids, { organizationId: org.id, environmentId: env.id, projectId: env.projectId, clusterId: env.clusterId });
    for (const [param, type] of Object.entries(SERVICE_PARAMS)) ids[param] = await seedService(t, env, type);
  });
  after(() => t.close());

  // every create and edit route, one request each at a time: minutes on a busy machine, not a timing test
  test(`${TOTAL} generated bodies: no 5xx, the error body on every 4xx`, { timeout: 900_000 }, async () => {
    const doc = (await t.request('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { requestBody?: { content: { 'application/json': { schema: Schema } } } }>>;
      components: { schemas: Record<string, Schema> };
    };
    useDefinitions(doc.components.schemas);
    const targets: Array<{ method: string; path: string; schema: Schema }> = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const schema = op.requestBody?.content['application/json'].schema;
        if ((method === 'post' || method === 'put') && schema) targets.push({ method: method.toUpperCase(), path, schema });
      }
    }
    assert.ok(targets.length >= 5, `found ${targets.length} routes with bodies`);
    const rnd = prng(20261122);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    for (let i = 0; i < TOTAL; i++) {
      const target = targets[i % targets.length]!;
      const url = target.path.replace(/\{(\w+)\}/g, (_m, name: string) => (rnd() < 0.9 ? ids[name] : undefined) ?? randomUUID());
      let body = generate(target.schema, rnd);
      if (rnd() < 0.7) body = mutate(body, rnd);
      const r = await t.request(target.method, url, { token: org.token, body: body ?? {} });
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      const ok4xx = r.status < 400 || (r.status < 500 && r.body && typeof r.body === 'object' && r.body.status === r.status && typeof r.body.message === 'string' && typeof r.body.error === 'string');
      if (r.status >= 500 || !ok4xx) {
        failures.push(`${target.method} ${target.path} → ${r.status} ${r.raw.slice(0, 200)} body=${JSON.stringify(body).slice(0, 300)}`);
        if (failures.length > 20) break;
      }
    }
    assert.deepEqual(failures, [], `statuses seen: ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.ok(statuses.size > 1, 'the fuzzer reaches more than one outcome');
  });
});
