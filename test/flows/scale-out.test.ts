// Several processes on one PostgreSQL and one Redis: two API processes and two workers.
// Skipped (with the reason) when DATABASE_URL is unset: the embedded store is single-process.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { freshPostgresUrl } from '../support/db.ts';
import { eventually } from '../support/harness.ts';
import { startBerth, type BerthProcess } from '../support/processes.ts';

const skip = !process.env.DATABASE_URL ? 'DATABASE_URL is not set: scale-out needs PostgreSQL'
  : !process.env.REDIS_URL ? 'REDIS_URL is not set: scale-out needs Redis' : false;

describe('scale-out: two API processes and two workers', { skip }, () => {
  const token = `scale-${randomBytes(16).toString('hex')}`;
  const processes: BerthProcess[] = [];
  let apis: BerthProcess[] = [];
  const LIMIT = 12;
  let databaseUrl = '';
  let receiver: Server;
  let receiverUrl = '';
  const deliveries: Array<{ id: string; body: { event_type: string; payload: Record<string, string> } }> = [];

  before(async () => {
    databaseUrl = (await freshPostgresUrl())!;
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        deliveries.push({ id: String(req.headers['webhook-id']), body: JSON.parse(body) });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const env = {
      DATABASE_URL: databaseUrl, REDIS_URL: process.env.REDIS_URL!, ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      BOOTSTRAP_TOKEN: token, BOOTSTRAP_ORGANIZATION: 'scale-out', RATE_LIMIT_PER_HOUR: String(LIMIT), DATA_DIR: `/tmp/berth-scale-${process.pid}`,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    };
    // the first process migrates an empty database; the others start on it concurrently
    processes.push(await startBerth('api', env));
    processes.push(...await Promise.all([startBerth('api', env), startBerth('worker', env), startBerth('worker', env)]));
    apis = processes.filter((p) => p.role === 'api');
  });
  after(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await new Promise((r) => receiver.close(r));
  });

  /** a token with its own budget: an extra OWNER token inserted for the deployment checks */
  async function freshToken(): Promise<{ token: string; orgId: string }> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const secret = `berth_${randomBytes(32).toString('base64url')}`;
      const { createHash } = await import('node:crypto');
      const org = await client.query<{ id: string }>(`select id from organizations where name = 'scale-out'`);
      await client.query(
        `insert into api_tokens (organization_id, name, role, token_hash) values ($1, $2, 'OWNER', $3)`,
        [org.rows[0]!.id, `extra-${secret.slice(-6)}`, createHash('sha256').update(secret).digest('hex')]);
      return { token: secret, orgId: org.rows[0]!.id };
    } finally {
      await client.end();
    }
  }

  test('the rate limit is one budget across API processes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT * 2; i++) {
      const api = apis[i % apis.length]!;
      const r = await fetch(`${api.url}/organization`, { headers: { authorization: `Token ${token}` } });
      statuses.push(r.status);
      await r.arrayBuffer();
    }
    assert.equal(statuses.filter((s) => s === 200).length, LIMIT, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, LIMIT);
  });

  test('each deployment is executed once and each event delivered once per webhook', async () => {
    const { token: t2, orgId } = await freshToken();
    const api = (i: number) => apis[i % apis.length]!.url;
    const call = async (i: number, method: string, path: string, body?: unknown) => {
      const r = await fetch(`${api(i)}${path}`, {
        method, headers: { authorization: `Token ${t2}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await r.text();
      if (r.status >= 400) throw new Error(`${method} ${path} → ${r.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    };
    await call(0, 'POST', `/organization/${orgId}/webhook`, { target_url: receiverUrl, events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED', 'DEPLOYMENT_FAILED'], enabled: true });
    const project = await call(1, 'POST', `/organization/${orgId}/project`, { name: 'scale' });
    const env = await call(0, 'POST', `/project/${project.id}/environment`, { name: 'prod', mode: 'PRODUCTION' });
    const deploymentIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const app = await call(i, 'POST', `/environment/${env.id}/application`, {
        name: `app-${i}`, git_repository: { url: 'https://github.com/example/app.git', branch: 'main' }, build_mode: 'DOCKER',
        dockerfile_path: 'Dockerfile', cpu: 250, memory: 256, min_running_instances: 1, max_running_instances: 1,
        ports: [{ internal_port: 8080, external_port: 443, protocol: 'HTTP', publicly_accessible: true }],
      });
      deploymentIds.push((await call(i + 1, 'POST', `/application/${app.id}/deploy`, {})).id);
    }
    // polled in the database: the API budget of this test is deliberately tiny
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await eventually(async () => {
        const { rows } = await client.query<{ status: string }>('select status from deployments where id = any($1::uuid[])', [deploymentIds]);
        return rows.length === 3 && rows.every((r) => r.status === 'DEPLOYED');
      }, 120_000, 500);
    } finally {
      await client.end();
    }
    await eventually(async () => deliveries.filter((d) => d.body.event_type === 'DEPLOYMENT_SUCCEEDED').length >= 3, 60_000, 200);
    await new Promise((r) => setTimeout(r, 3000));
    for (const id of deploymentIds) {
      const mine = deliveries.filter((d) => d.body.payload.deployment_id === id);
      assert.deepEqual(mine.map((d) => d.body.event_type).sort(), ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED'], `deployment ${id}`);
    }
    assert.equal(new Set(deliveries.map((d) => d.id)).size, deliveries.length, 'no webhook-id was delivered twice');
  });

  test('a scheduled workflow occurrence produces exactly one run across both workers', async () => {
    const { token: t3, orgId } = await freshToken();
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${apis[0]!.url}${path}`, {
        method, headers: { authorization: `Token ${t3}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await r.text();
      if (r.status >= 400) throw new Error(`${method} ${path} → ${r.status} ${text}`);
      return JSON.parse(text);
    };
    const project = await call('POST', `/organization/${orgId}/project`, { name: 'wf' });
    const env = await call('POST', `/project/${project.id}/environment`, { name: 'wf-env', mode: 'DEVELOPMENT' });
    const wf = await call('POST', `/environment/${env.id}/agenticWorkflow`, { name: 'nightly', schedule: { cron_expression: '0 3 * * *', timezone: 'Etc/UTC' } });
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      // make the next occurrence due now instead of at 03:00; runs are then read in the database
      // (this test's API budget is deliberately tiny), and once through the API at the end
      await client.query(`update agentic_workflows set next_run_at = now() - interval '1 second' where service_id = $1`, [wf.id]);
      const runs = () => client.query<{ trigger: string }>('select trigger from agentic_workflow_runs where workflow_id = $1', [wf.id]);
      await eventually(async () => (await runs()).rows.length > 0, 150_000, 1000);
      await new Promise((r) => setTimeout(r, 5000));
      const { rows } = await runs();
      assert.equal(rows.length, 1, JSON.stringify(rows));
      assert.equal(rows[0]!.trigger, 'SCHEDULE');
    } finally {
      await client.end();
    }
    const listed = (await call('GET', `/agenticWorkflow/${wf.id}/run`)).results;
    assert.equal(listed.length, 1);
  });

  test('every process is up and shuts down cleanly', async () => {
    for (const p of processes) assert.equal(p.child.exitCode, null, p.output());
  });
});
