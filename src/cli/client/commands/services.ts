// berth status / services / open: the services of the chosen environment with their state and
// last deployment, its agentic workflows with their last run (workflows.ts), its preview
// environments or what it previews (previews.ts), a line per database whose backups need attention
// (backups.ts); every service listed; a service's public URL.
import { apiError, authorization, ok, unreachable, type Api } from '../api.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { ago, color, printJson, printTable, state, typeName } from '../output.ts';
import * as resolve from '../resolve.ts';
import { openSession, type GlobalOptions } from '../session.ts';
import { backupAlerts, printBackupAlerts } from './backups.ts';
import { previewFacts, previewOfLine, printPreviews } from './previews.ts';
import { printWorkflows, workflowFacts } from './workflows.ts';

export type TargetOptions = GlobalOptions & resolve.TargetFlags;

async function lastDeployment(api: Api, svc: resolve.ServiceRef) {
  const seg = resolve.segment(svc);
  // the four families share one operation shape (generated from one table on the server)
  const path = `/${seg}/{${seg}Id}/deploymentHistoryV2` as '/application/{applicationId}/deploymentHistoryV2';
  const page = await ok(api.GET(path, { params: { path: { applicationId: svc.id, [`${seg}Id`]: svc.id }, query: { page_size: 1 } } } as never));
  return (page as { results: Array<{ id: string; status: string; created_at: string; action: string }> }).results[0] ?? null;
}

export async function status(opts: TargetOptions): Promise<void> {
  const s = openSession(opts);
  const t = await resolve.target(s.api, s.server.context, opts, 'environment');
  const list = await ok(s.api.GET('/environment/{environmentId}/services', { params: { path: { environmentId: t.environment.id } } }));
  // agentic workflows are not deployed by hand: they are shown with their last run instead
  const deployable = list.results.filter((svc) => svc.service_type !== resolve.WORKFLOW);
  const databases = list.results.filter((svc) => svc.service_type === 'DATABASE');
  const [rows, workflows, previews, alerts] = await Promise.all([
    Promise.all(deployable.map(async (svc) => ({
      id: svc.id, name: svc.name, type: svc.service_type, state: svc.state,
      deployment_status: svc.service_deployment_status, last_deployment_date: svc.last_deployment_date,
      last_deployment: await lastDeployment(s.api, resolve.serviceRef(svc)),
    }))),
    workflowFacts(s.api, list.results.filter((svc) => svc.service_type === resolve.WORKFLOW).map(resolve.serviceRef)),
    previewFacts(s.api, t.environment.id),
    // two list calls per database: its backups and its policy
    backupAlerts(s.api, databases),
  ]);
  if (opts.json) {
    return printJson({
      organization: t.organization, project: t.project, environment: { ...t.environment, mode: previews.mode }, services: rows, workflows,
      preview_of: previews.preview_of, previews: previews.previews, backup_alerts: alerts,
    });
  }
  process.stdout.write(`${color.dim('environment')} ${color.bold(t.environment.name)} ${color.dim(`(project ${t.project.name}, organization ${t.organization.name})`)}\n`);
  const previewOf = previewOfLine(previews);
  if (previewOf) process.stdout.write(`${previewOf}\n`);
  if (rows.length > 0 || workflows.length === 0) {
    printTable(['SERVICE', 'TYPE', 'STATE', 'VERSION', 'LAST DEPLOYMENT'], rows.map((r) => [
      r.name, typeName(r.type), state(r.state), r.deployment_status === 'UP_TO_DATE' ? color.green('up to date') : r.deployment_status.toLowerCase().replace(/_/g, ' '),
      r.last_deployment ? `${r.last_deployment.action.toLowerCase()} ${state(r.last_deployment.status)} ${color.dim(ago(r.last_deployment.created_at))}` : color.dim('never'),
    ]));
  }
  printWorkflows(workflows);
  printPreviews(previews);
  printBackupAlerts(alerts);
}

export async function services(opts: TargetOptions): Promise<void> {
  const s = openSession(opts);
  const t = await resolve.target(s.api, s.server.context, opts, 'environment');
  const list = await resolve.services(s.api, t.environment);
  if (opts.json) return printJson(list);
  printTable(['NAME', 'TYPE', 'STATE', 'ID'], list.map((r) => [r.name, typeName(r.type), state(r.state), color.dim(r.id)]));
}

export async function open(ref: string, opts: TargetOptions): Promise<void> {
  const s = openSession(opts);
  const t = await resolve.target(s.api, s.server.context, opts, 'environment');
  const svc = await resolve.service(s.api, t.environment, ref);
  const seg = resolve.segment(svc);
  if (seg !== 'application' && seg !== 'container') throw new CliError(`${svc.name} is a ${seg}: only applications and containers have public links`, EXIT.USAGE);
  // GET /{application|container}/{id}/link is being added to the API: called untyped until the
  // generated types include it (npm run api-types), and a berth without it is told apart
  const res = await fetch(`${s.conn.url.replace(/\/+$/, '')}/${seg}/${svc.id}/link`, { headers: { authorization: authorization(s.conn.token) } })
    .catch((err) => { throw unreachable(s.conn.url, err); });
  const body = await res.json().catch(() => null) as { results?: Array<{ url: string; is_default?: boolean }>; public_urls_unavailable_reason?: string | null; message?: string } | null;
  if (res.status === 404 && body?.message?.startsWith('No route for')) {
    throw new CliError(`this berth does not serve public links (GET /${seg}/{id}/link answered 404 "${body.message}"): upgrade the server`, EXIT.NOT_FOUND);
  }
  if (!res.ok) throw apiError(res.status, body, res.headers.get('x-request-id'));
  // LinkResponseList: the default port's URL first
  const links = [...(body?.results ?? [])].sort((a, b) => Number(!!b.is_default) - Number(!!a.is_default));
  if (opts.json) return printJson(links);
  const why = body?.public_urls_unavailable_reason ?? null;
  if (links.length === 0) throw new CliError(`${svc.name} has no public URL: ${why ?? 'no publicly accessible port, or not deployed'}`, EXIT.NOT_FOUND);
  for (const l of links) process.stdout.write(`${l.url}\n`);
  // the addresses are printed (scripts read stdout); why they will not answer goes to stderr
  if (why) process.stderr.write(`berth: ${why}\n`);
}
