// The "raw" column of the bench (issue 15): Fastify plus the same database driver berth uses,
// running the same SQL as berth's repositories for each case, with no authentication, no rate
// limiting, no validation and no response schema — the limit of this stack. Run as a child
// process by bench/run.ts: PORT, and either DATABASE_URL (a `pg` pool of 10, named statements
// as pg ships them: berth's also skip the per-execution Describe, decision 0713) or RAW_PGDATA (a PGlite data directory: a copy of berth's, since
// PGlite is single-process). Prints nothing.
import Fastify from 'fastify';
import type { Queryable } from '../src/db/db.ts';
import type { CreationEvent } from '../src/modules/audit/audit.creation.ts';
import { insertProject } from '../src/modules/projects/projects.repo.ts';

type Query = (text: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

async function openDriver(): Promise<Query> {
  if (process.env.DATABASE_URL) {
    const { default: pg } = await import('pg');
    pg.types.setTypeParser(20, (v: string) => Number(v));
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
    const names = new Map<string, string>();
    return async (text, params) => {
      let name = names.get(text);
      if (!name) names.set(text, (name = `raw${names.size}`));
      return (await pool.query({ name, text, values: params })).rows;
    };
  }
  const { PGlite, types } = await import('@electric-sql/pglite');
  const { PGLITE_START_PARAMS } = await import('../src/db/pglite.ts'); // the server's settings, as berth's
  const pglite = await PGlite.create({
    dataDir: process.env.RAW_PGDATA,
    startParams: PGLITE_START_PARAMS,
    parsers: { [types.INT8]: (v: string) => Number(v) },
  });
  return async (text, params) => (await pglite.query<Record<string, unknown>>(text, params)).rows;
}

// The statements below are the ones berth's repositories run for the same request
// (organizations.repo.ts, projects.repo.ts, environments.repo.ts), written out.
const ORGANIZATION = 'select id, name, description, plan, website_url, repository, logo_url, icon_url, admin_emails, owner_user_id, created_at, updated_at from organizations where id = $1';
const PROJECT_COLUMNS = `p.id, p.organization_id, p.name, p.description, p.created_at, p.updated_at,
  coalesce((select sum(n) from row_counts c where c.parent_id = p.id and c.kind = 'environments'), 0)::int as env_count`;
// totals are stored counts (migrations/0011_row_counts.sql), as in berth's storedCount
const STORED_TOTAL = 'select coalesce(sum(n), 0)::int as n from row_counts where parent_id = $1 and kind = $2';
const ENVIRONMENT_SELECT = `select e.id, e.organization_id, e.project_id, e.cluster_id, e.name, e.mode, e.auto_preview, e.expires_at,
  e.cloned_from_id, e.created_at, e.updated_at, c.name as cluster_name, c.cloud_provider, c.region
  from environments e join clusters c on c.id = e.cluster_id`;

const query = await openDriver();
const app = Fastify({ logger: false });
type IdParams = { Params: { id: string }; Querystring: { page_size?: string; page?: string } };

function page(q: { page_size?: string; page?: string }): { limit: number; offset: number } {
  const limit = Number(q.page_size ?? 10);
  return { limit, offset: (Number(q.page ?? 1) - 1) * limit };
}

app.get('/raw-ready', async () => ({ ok: true }));
app.get<IdParams>('/organization/:id', async (req) => (await query(ORGANIZATION, [req.params.id]))[0]);
app.get<IdParams>('/project/:id', async (req) => (await query(`select ${PROJECT_COLUMNS} from projects p where p.id = $1`, [req.params.id]))[0]);
app.get<IdParams>('/organization/:id/project', async (req) => {
  const { limit, offset } = page(req.query);
  const [results, count] = await Promise.all([
    query(`select ${PROJECT_COLUMNS} from projects p where p.organization_id = $1 order by p.created_at, p.id limit $2 offset $3`, [req.params.id, limit, offset]),
    query(STORED_TOTAL, [req.params.id, 'projects']),
  ]);
  return { results, total_count: count[0]?.n };
});
app.get<IdParams>('/project/:id/environment', async (req) => {
  const { limit, offset } = page(req.query);
  const [results, count] = await Promise.all([
    query(`${ENVIRONMENT_SELECT} where e.project_id = $1 order by e.created_at, e.id limit $2 offset $3`, [req.params.id, limit, offset]),
    query(STORED_TOTAL, [req.params.id, 'environments']),
  ]);
  return { results, total_count: count[0]?.n };
});
// the raw insert every create case is compared with: one row, one statement, the row back
app.post<IdParams & { Body: { name: string; description?: string } }>('/organization/:id/project', async (req, reply) => {
  const rows = await query('insert into projects (organization_id, name, description) values ($1, $2, $3) returning id, organization_id, name, description, created_at, updated_at',
    [req.params.id, req.body.name, req.body.description ?? '']);
  return reply.code(201).send(rows[0]);
});

// diagnostic, not a ratio's denominator: the statement berth's create runs, through its own repo
// function (the project and its audit event in one statement), so that the create's gap splits
// into what the event costs the database and what berth's HTTP layer costs
const BENCH_PRINCIPAL = '00000000-0000-4000-8000-000000000000';
const creation = (requestId: string): CreationEvent => ({
  parentType: 'ORGANIZATION', written: false,
  facts: { event_type: 'CREATE', target_type: 'PROJECT', sub_target_type: null, change: '', origin: 'API', triggered_by: 'bench',
    principal_kind: 'token', principal_id: BENCH_PRINCIPAL, user_agent: 'autocannon', request_id: requestId },
});
const queryable = { query, exec: async () => {} } as unknown as Queryable;
app.post<IdParams & { Body: { name: string; description?: string } }>('/organization/:id/project-with-event', async (req, reply) =>
  reply.code(201).send(await insertProject(queryable, req.params.id, req.body, creation(req.id))));

// the full-body creates, each compared with the insert of the same row in one statement (the body
// stored as the service's spec, its place read from the environment by the insert)
type EnvBody = IdParams & { Body: { name: string } };
app.post<EnvBody>('/environment/:id/job', async (req, reply) => {
  const rows = await query(`insert into services (organization_id, project_id, environment_id, type, name, slug, spec, secrets, advanced_settings)
    select e.organization_id, e.project_id, e.id, 'JOB', $2, lower($2), $3::jsonb, '{}'::jsonb, '{}'::jsonb from environments e where e.id = $1
    returning id, organization_id, project_id, environment_id, type, name, slug, spec, state, deployment_status, created_at, updated_at`,
  [req.params.id, req.body.name, JSON.stringify(req.body)]);
  return reply.code(201).send(rows[0]);
});
app.post<EnvBody>('/environment/:id/agenticWorkflow', async (req, reply) => {
  const rows = await query(`with s as (
      insert into services (organization_id, project_id, environment_id, type, name, slug, spec, secrets)
      select e.organization_id, e.project_id, e.id, 'AGENTIC_WORKFLOW', $2, lower($2), $3::jsonb, '{}'::jsonb from environments e where e.id = $1
      returning id, organization_id, environment_id, name, slug, spec, created_at, updated_at),
    w as (insert into agentic_workflows (service_id, organization_id, next_run_at, llm_provider_id)
      select s.id, s.organization_id, now() + interval '1 hour', null from s returning next_run_at)
    select s.*, w.next_run_at from s, w`,
  [req.params.id, req.body.name, JSON.stringify(req.body)]);
  return reply.code(201).send(rows[0]);
});

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
