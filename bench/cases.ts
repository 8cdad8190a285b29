// The bench cases, as data: what each one requests, its raw counterpart (bench/raw-server.ts: the
// same SQL with no auth and no validation), its target (berth ÷ raw, per database; issue 15) and
// the fixtures it needs. Fixtures are made through berth's API; a case whose
// route does not exist yet (404 "No route") or whose fixture could not be made is skipped with a note.
import { isNoRoute, inParallel, type Api } from './api.ts';
import { JOB_BODY, WORKFLOW_BODY } from './bodies.ts';
import { bulkEnvironmentCount } from './bulk.ts';

export type DbKind = 'pglite' | 'postgres' | 'embedded-postgres';
/** the kind whose targets apply: embedded PostgreSQL is held to PostgreSQL's */
export type TargetKind = 'pglite' | 'postgres';
export function targetKind(db: DbKind): TargetKind {
  return db === 'pglite' ? 'pglite' : 'postgres';
}

interface CaseRequest { method: 'GET' | 'POST'; path: string; body?: string }

export interface BenchCase {
  id: string;
  label: string;
  /** minimum ratio berth ÷ raw; undefined: no target */
  target?: Record<TargetKind, number>;
  /** the server under load: 'bare' is the baseline, 'raw' the same query without berth */
  server: 'bare' | 'berth' | 'raw';
  /** the id of the raw case this berth case is divided by */
  rawId?: string;
  /** a raw case measured beside this berth case, without a ratio (what part of a gap is the SQL's) */
  diagnosticIds?: string[];
  /** the request; `unique` replaces __NAME__ in the body with a name never used before */
  request?: CaseRequest;
  unique?: boolean;
  /** why the case cannot run (set while preparing) */
  skip?: string;
  /** a note printed under the table (e.g. fewer rows seeded than asked) */
  note?: string;
}

export interface Fixtures {
  organizationId?: string;
  clusterId?: string;
  serviceProjectId?: string;
  listProjectId?: string;
  projectsSeeded: number;
  projectsWanted: number;
  environmentsSeeded: number;
  environmentsWanted: number;
  serviceEnvironmentId?: string;
  /** a project holding one environment made through the API, copied in SQL by bulk.ts */
  bulkProjectId?: string;
  bulkTemplateId?: string;
  bulkWanted: number;
}

/** environments to seed: 10,000 (the target's size); PGlite creates ~80/s on a small machine, so its
 * default is 5,000 to keep the run near 4 minutes (BENCH_ENVIRONMENTS overrides both) */
function environmentCount(db: DbKind): number {
  return Number(process.env.BENCH_ENVIRONMENTS ?? (db === 'pglite' ? 5_000 : 10_000));
}
/** projects in the organization for the list-projects page (the 1,000; BENCH_PROJECTS overrides) */
function projectCount(): number {
  return Number(process.env.BENCH_PROJECTS ?? 1_000);
}
const SEED_CONCURRENCY = 20;

function describe(answer: { status: number; body: any; text: string }): string {
  return `${answer.status} ${answer.body?.message ?? answer.text.slice(0, 160)}`;
}

/** creates what the cases need; every step that fails leaves a reason instead of throwing */
export async function prepareFixtures(api: Api, db: DbKind, log: (line: string) => void): Promise<{ fixtures: Fixtures; problems: Record<string, string> }> {
  const fixtures: Fixtures = { projectsSeeded: 2, projectsWanted: projectCount(), environmentsSeeded: 0, environmentsWanted: environmentCount(db), bulkWanted: bulkEnvironmentCount() };
  const problems: Record<string, string> = {};
  const orgs = await api('GET', '/organization');
  fixtures.organizationId = orgs.body?.results?.[0]?.id;
  if (!fixtures.organizationId) {
    problems.organization = `GET /organization: ${describe(orgs)}`;
    return { fixtures, problems };
  }
  const org = fixtures.organizationId;
  const clusters = await api('GET', `/organization/${org}/cluster`);
  fixtures.clusterId = clusters.body?.results?.[0]?.id;
  if (!fixtures.clusterId) problems.cluster = isNoRoute(clusters) ? 'route /organization/{id}/cluster missing' : `no cluster: ${describe(clusters)}`;

  const project = async (name: string): Promise<string | undefined> => {
    const res = await api('POST', `/organization/${org}/project`, { name, description: 'bench fixture' });
    if (res.status < 300) return res.body?.id;
    problems.project = isNoRoute(res) ? 'route POST /organization/{id}/project missing' : `create project: ${describe(res)}`;
    return undefined;
  };
  const environment = async (projectId: string, name: string) => api('POST', `/project/${projectId}/environment`, { name, mode: 'STAGING', cluster_id: fixtures.clusterId });

  const servicesProject = await project('bench-services');
  fixtures.serviceProjectId = servicesProject;
  if (servicesProject && fixtures.clusterId) {
    const env = await environment(servicesProject, 'bench-services');
    if (env.status < 300) fixtures.serviceEnvironmentId = env.body?.id;
    else problems.environment = isNoRoute(env) ? 'route POST /project/{id}/environment missing' : `create environment: ${describe(env)}`;
  }
  const listProject = await project('bench-environments');
  if (listProject && fixtures.clusterId && !problems.environment) {
    fixtures.listProjectId = listProject;
    const started = performance.now();
    try {
      await inParallel(fixtures.environmentsWanted, SEED_CONCURRENCY, async (i) => {
        const res = await environment(listProject, `env-${String(i).padStart(5, '0')}`);
        if (res.status >= 300) throw new Error(`create environment ${i}: ${describe(res)}`);
        fixtures.environmentsSeeded++;
      });
    } catch (err) {
      problems.seed = (err as Error).message;
    }
    log(`seeded ${fixtures.environmentsSeeded} environments in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  if (fixtures.bulkWanted > 0 && listProject && !problems.environment) {
    const bulkProject = await project('bench-environments-bulk');
    const template = bulkProject && await environment(bulkProject, 'bulk-0');
    if (template && template.status < 300) {
      fixtures.bulkProjectId = bulkProject;
      fixtures.bulkTemplateId = template.body?.id;
    } else if (template) problems.bulk = `create environment: ${describe(template)}`;
  }
  if (servicesProject && listProject) {
    try {
      await inParallel(Math.max(0, fixtures.projectsWanted - 2), SEED_CONCURRENCY, async (i) => {
        if (!(await project(`bench-list-${String(i).padStart(6, '0')}`))) throw new Error(problems.project);
        fixtures.projectsSeeded++;
      });
    } catch (err) {
      problems.seedProjects = (err as Error).message;
    }
    log(`seeded ${fixtures.projectsSeeded} projects`);
  }
  return { fixtures, problems };
}

/** the case list, with each case's request filled in from the fixtures or a reason to skip it;
 * every berth case with a target has a raw case (server 'raw') doing the same SQL */
export function buildCases(fx: Fixtures, problems: Record<string, string>): BenchCase[] {
  const org = fx.organizationId;
  const missing = (...keys: string[]) => keys.map((k) => problems[k]).filter(Boolean).join('; ') || 'fixture missing';
  const envs = fx.environmentsSeeded;
  const get = (path: string | undefined, why: string[]) => (path ? { request: { method: 'GET' as const, path } } : { skip: missing(...why) });
  const post = (path: string | undefined, body: unknown, why: string[]) =>
    (path ? { unique: true, request: { method: 'POST' as const, path, body: JSON.stringify(body) } } : { skip: missing(...why) });
  const orgPath = org && `/organization/${org}`;
  const projectBody = { name: '__NAME__', description: 'bench project' };
  const jobPath = fx.serviceEnvironmentId && `/environment/${fx.serviceEnvironmentId}/job`;
  const workflowPath = fx.serviceEnvironmentId && `/environment/${fx.serviceEnvironmentId}/agenticWorkflow`;
  const cases: BenchCase[] = [
    { id: 'bare', label: 'bare Fastify GET / (baseline)', server: 'bare', request: { method: 'GET', path: '/' } },
    // diagnostic, no target: berth's framework cost alone (hooks, logger, request id; no auth, no DB)
    { id: 'healthz', label: 'berth GET /healthz (no auth, no DB)', server: 'berth', request: { method: 'GET', path: '/healthz' } },
    { id: 'getOrganization', label: 'GET /organization/{id}', server: 'berth', target: { postgres: 0.9, pglite: 0.9 }, rawId: 'raw:getOrganization', ...get(orgPath, ['organization']) },
    { id: 'raw:getOrganization', label: '  raw: same select', server: 'raw', ...get(orgPath, ['organization']) },
    { id: 'getProject', label: 'GET /project/{id}', server: 'berth', target: { postgres: 0.9, pglite: 0.9 }, rawId: 'raw:getProject', ...get(fx.serviceProjectId && `/project/${fx.serviceProjectId}`, ['project']) },
    { id: 'raw:getProject', label: '  raw: same select', server: 'raw', ...get(fx.serviceProjectId && `/project/${fx.serviceProjectId}`, ['project']) },
    {
      id: 'listProjects', label: `GET /organization/{id}/project?page_size=20 (of ${fx.projectsSeeded})`, server: 'berth', target: { postgres: 0.8, pglite: 0.8 }, rawId: 'raw:listProjects',
      ...get(orgPath && `${orgPath}/project?page_size=20`, ['organization']),
      ...(fx.projectsSeeded < fx.projectsWanted ? { note: `only ${fx.projectsSeeded} of ${fx.projectsWanted} projects seeded: ${problems.seedProjects}` } : {}),
    },
    { id: 'raw:listProjects', label: '  raw: same page + count', server: 'raw', ...get(orgPath && `${orgPath}/project?page_size=20`, ['organization']) },
    {
      id: 'listEnvironments', label: `GET /project/{id}/environment?page_size=20 (of ${envs})`, server: 'berth', target: { postgres: 0.8, pglite: 0.8 }, rawId: 'raw:listEnvironments',
      ...get(fx.listProjectId && envs > 0 ? `/project/${fx.listProjectId}/environment?page_size=20` : undefined, ['organization', 'cluster', 'project', 'environment', 'seed']),
      ...(envs > 0 && envs < fx.environmentsWanted ? { note: `only ${envs} of ${fx.environmentsWanted} environments seeded: ${problems.seed}` } : {}),
    },
    { id: 'raw:listEnvironments', label: '  raw: same page + count', server: 'raw', ...get(fx.listProjectId && envs > 0 ? `/project/${fx.listProjectId}/environment?page_size=20` : undefined, ['seed']) },
    {
      id: 'listEnvironmentsBulk', label: `GET /project/{id}/environment?page_size=20 (of ${fx.bulkWanted})`, server: 'berth', target: { postgres: 0.8, pglite: 0.8 }, rawId: 'raw:listEnvironmentsBulk',
      ...get(fx.bulkProjectId && `/project/${fx.bulkProjectId}/environment?page_size=20`, ['bulk']),
    },
    { id: 'raw:listEnvironmentsBulk', label: '  raw: same page + count', server: 'raw', ...get(fx.bulkProjectId && `/project/${fx.bulkProjectId}/environment?page_size=20`, ['bulk']) },
    { id: 'createProject', label: 'POST /organization/{id}/project', server: 'berth', target: { postgres: 0.7, pglite: 0.7 }, rawId: 'raw:insert', diagnosticIds: ['raw:insertWithEvent'], ...post(orgPath && `${orgPath}/project`, projectBody, ['organization']) },
    { id: 'raw:insert', label: '  raw: insert into projects … returning', server: 'raw', ...post(orgPath && `${orgPath}/project`, projectBody, ['organization']) },
    // diagnostic, no ratio: berth's own statement (the project and its audit event), raw around it
    { id: 'raw:insertWithEvent', label: '  raw: berth\'s statement, audit event included', server: 'raw', ...post(orgPath && `${orgPath}/project-with-event`, projectBody, ['organization']) },
    {
      id: 'createJob', label: 'POST /environment/{id}/job (full body)', server: 'berth', target: { postgres: 0.5, pglite: 0.5 }, rawId: 'raw:insertJob',
      ...post(jobPath, JOB_BODY, ['organization', 'cluster', 'project', 'environment']),
    },
    { id: 'raw:insertJob', label: '  raw: insert of the same row', server: 'raw', ...post(jobPath, JOB_BODY, ['environment']) },
    {
      id: 'createAgenticWorkflow', label: 'POST /environment/{id}/agenticWorkflow (full body)', server: 'berth', target: { postgres: 0.5, pglite: 0.5 }, rawId: 'raw:insertWorkflow',
      ...post(workflowPath, WORKFLOW_BODY, ['organization', 'cluster', 'project', 'environment']),
    },
    { id: 'raw:insertWorkflow', label: '  raw: insert of the same rows', server: 'raw', ...post(workflowPath, WORKFLOW_BODY, ['environment']) },
  ];
  return cases;
}

/** one request per case before measuring: a missing route skips the case, another failure marks it invalid */
export async function probeCases(api: Api, cases: BenchCase[]): Promise<void> {
  for (const c of cases) {
    if (c.skip || !c.request || c.server !== 'berth') continue;
    const body = c.request.body?.replace('__NAME__', `probe-${c.id}`);
    const res = await api(c.request.method, c.request.path, body === undefined ? undefined : JSON.parse(body));
    if (isNoRoute(res)) c.skip = `route missing (${c.request.method} ${c.request.path.replace(/[0-9a-f-]{36}/g, '{id}').split('?')[0]} answers 404 No route)`;
    else if (res.status >= 300) c.skip = `INVALID: probe answered ${describe(res)}`;
  }
}
