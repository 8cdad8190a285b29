// Names or ids, everywhere: turns what the user typed (or the saved context) into the records
// of the organization, project, environment, service or agentic workflow a command acts on, and
// a workflow run's id (or the start of one) into the run.
import { ok, type Api, type paths } from './api.ts';
import { CliError, EXIT } from './exit-codes.ts';
import { shellWord } from './output.ts';
import type { Context, Named } from './store.ts';

export interface ServiceRef { id: string; name: string; type: string; state: string }

/** the type of an agentic workflow among the environment's services (its commands: run, runs, cancel) */
export const WORKFLOW = 'AGENTIC_WORKFLOW';

/**
 * The family path segment of a service (APPLICATION → application), for the commands that act on
 * one service; a workflow named there is pointed to the commands that take workflows.
 */
export function segment(svc: Pick<ServiceRef, 'name' | 'type'>): 'application' | 'container' | 'database' | 'job' {
  const s = svc.type.toLowerCase();
  if (s === 'application' || s === 'container' || s === 'database' || s === 'job') return s;
  const name = shellWord(svc.name);
  if (svc.type === WORKFLOW) throw new CliError(`${svc.name} is an agentic workflow: start a run with berth run ${name}, list its runs with berth runs ${name}`, EXIT.USAGE);
  throw new CliError(`${svc.name}: services of type ${svc.type} are not handled by this command`, EXIT.USAGE);
}

function pick<T extends { id: string; name: string }>(items: T[], ref: string, what: string, where: string): T {
  const byId = items.find((i) => i.id === ref);
  if (byId) return byId;
  const byName = items.filter((i) => i.name.toLowerCase() === ref.toLowerCase());
  if (byName.length === 1) return byName[0]!;
  const known = items.map((i) => i.name).slice(0, 10).join(', ');
  throw new CliError(`no ${what} "${ref}" ${where}${known ? ` (there: ${known})` : ''}`, EXIT.NOT_FOUND);
}

/** what the context keeps of a record */
const named = (r: Named): Named => ({ id: r.id, name: r.name });

export async function organization(api: Api, ref: string | undefined): Promise<Named> {
  const list = await ok(api.GET('/organization'));
  if (ref) return named(pick(list.results, ref, 'organization', 'visible to this token'));
  if (list.results.length === 1) return named(list.results[0]!);
  throw new CliError('several organizations: choose one with --organization NAME', EXIT.AUTH);
}

export async function project(api: Api, org: Named, ref: string): Promise<Named> {
  const list = await ok(api.GET('/organization/{organizationId}/project', { params: { path: { organizationId: org.id } } }));
  return named(pick(list.results, ref, 'project', `in organization ${org.name}`));
}

export async function environment(api: Api, proj: Named, ref: string): Promise<Named> {
  const list = await ok(api.GET('/project/{projectId}/environment', { params: { path: { projectId: proj.id } } }));
  return named(pick(list.results, ref, 'environment', `in project ${proj.name}`));
}

/** what the commands keep of an item of the environment's services */
export const serviceRef = (s: { id: string; name: string; service_type: string; state: string }): ServiceRef => ({ id: s.id, name: s.name, type: s.service_type, state: s.state });

export async function services(api: Api, env: Named): Promise<ServiceRef[]> {
  const list = await ok(api.GET('/environment/{environmentId}/services', { params: { path: { environmentId: env.id } } }));
  return list.results.map(serviceRef);
}

export async function service(api: Api, env: Named, ref: string): Promise<ServiceRef> {
  return pick(await services(api, env), ref, 'service', `in environment ${env.name}`);
}

export async function workflow(api: Api, env: Named, ref: string): Promise<Named> {
  const list = await ok(api.GET('/environment/{environmentId}/agenticWorkflow', { params: { path: { environmentId: env.id } } }));
  return named(pick(list.results, ref, 'agentic workflow', `in environment ${env.name}`));
}

export type Run = paths['/agenticWorkflow/{agenticWorkflowId}/run/{runId}']['get']['responses'][200]['content']['application/json'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** how many of a workflow's newest runs the start of an id is looked for in (the API's largest page) */
const RUN_PREFIX_WINDOW = 100;

/** a run of the workflow by its id, or by the start of it (as `berth runs` shows it) among the newest runs */
export async function run(api: Api, wf: Named, ref: string): Promise<Run> {
  if (UUID.test(ref)) return ok(api.GET('/agenticWorkflow/{agenticWorkflowId}/run/{runId}', { params: { path: { agenticWorkflowId: wf.id, runId: ref } } }));
  if (!/^[0-9a-f-]{4,36}$/i.test(ref)) throw new CliError(`"${ref}" is not a run id (the id, or at least its first 4 characters)`, EXIT.USAGE);
  const page = await ok(api.GET('/agenticWorkflow/{agenticWorkflowId}/run', { params: { path: { agenticWorkflowId: wf.id }, query: { page_size: RUN_PREFIX_WINDOW } } }));
  const found = page.results.filter((r) => r.id.startsWith(ref.toLowerCase()));
  if (found.length === 1) return found[0]!;
  if (found.length > 1) throw new CliError(`"${ref}" starts ${found.length} runs of ${wf.name}: give more of the id`, EXIT.USAGE);
  throw new CliError(`no run "${ref}" among the ${RUN_PREFIX_WINDOW} newest runs of ${wf.name} (give the whole id for an older one)`, EXIT.NOT_FOUND);
}

export interface TargetFlags { organization?: string; project?: string; environment?: string }

/**
 * The organization / project / environment a command works in: flags (names or ids) over the
 * saved context. A flag for a level re-resolves the levels under it from the flags or fails.
 */
export async function target(api: Api, saved: Context, flags: TargetFlags, need: 'organization' | 'project' | 'environment'): Promise<Required<Context>> {
  const org = flags.organization ? await organization(api, flags.organization) : saved.organization ?? await organization(api, undefined);
  const out: Context = { organization: org };
  if (need === 'organization') return out as Required<Context>;
  const projRef = flags.project ?? (flags.organization ? undefined : saved.project?.id);
  if (!projRef) throw new CliError('no project chosen: run berth context set --project NAME, or pass --project', EXIT.AUTH);
  out.project = flags.project || flags.organization || !saved.project ? await project(api, org, projRef) : saved.project;
  if (need === 'project') return out as Required<Context>;
  const envRef = flags.environment ?? (flags.project || flags.organization ? undefined : saved.environment?.id);
  if (!envRef) throw new CliError('no environment chosen: run berth context set --environment NAME, or pass --environment', EXIT.AUTH);
  out.environment = flags.environment || flags.project || flags.organization || !saved.environment ? await environment(api, out.project, envRef) : saved.environment;
  return out as Required<Context>;
}
