// berth deploy | redeploy | stop | restart <service> [--wait]: queue the action, and with --wait
// follow the deployment's live stream (log lines and status changes) until its final status.
// Exit 0 on success, 6 when it ends in an error status, 7 when it was cancelled.
import { ok } from '../api.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { color, logLine, printJson, state } from '../output.ts';
import * as resolve from '../resolve.ts';
import { openSession } from '../session.ts';
import { follow } from '../stream.ts';
import type { TargetOptions } from './services.ts';

const ACTIONS = {
  deploy: { segment: 'deploy', success: 'DEPLOYED', verb: 'deploying' },
  redeploy: { segment: 'redeploy', success: 'DEPLOYED', verb: 'redeploying' },
  stop: { segment: 'stop', success: 'STOPPED', verb: 'stopping' },
  restart: { segment: 'restart-service', success: 'RESTARTED', verb: 'restarting' },
} as const;
export type ActionName = keyof typeof ACTIONS;

interface DeploymentRecord { id: string; status: string; finished: boolean; message: string | null; action: string; service_name: string }

export async function act(action: ActionName, ref: string, opts: TargetOptions & { wait?: boolean; commit?: string; tag?: string }): Promise<void> {
  const s = openSession(opts);
  const t = await resolve.target(s.api, s.server.context, opts, 'environment');
  const svc = await resolve.service(s.api, t.environment, ref);
  const seg = resolve.segment(svc);
  if (action === 'restart' && seg === 'job') throw new CliError('jobs cannot be restarted: use berth redeploy', EXIT.USAGE);
  const body: Record<string, string> = {};
  if (action === 'deploy' && opts.commit) body.git_commit_id = opts.commit;
  if (action === 'deploy' && opts.tag) body.image_tag = opts.tag;
  // the four families share one operation shape (generated from one table on the server)
  const path = `/${seg}/{${seg}Id}/${ACTIONS[action].segment}` as '/application/{applicationId}/deploy';
  const queued = await ok(s.api.POST(path, { params: { path: { applicationId: svc.id, [`${seg}Id`]: svc.id } }, body } as never)) as unknown as DeploymentRecord;
  if (!opts.wait) {
    if (opts.json) return printJson(queued);
    process.stdout.write(`${svc.name}: ${action} queued (deployment ${queued.id}, ${state(queued.status)})\n`);
    process.stderr.write(color.dim(`follow it with: berth logs ${svc.name} -f, or pass --wait\n`));
    return;
  }
  const final = await watch(s.conn, queued, svc.name, action, !!opts.json);
  if (opts.json) printJson(final);
  if (final.status === 'CANCELED') throw new CliError(`${svc.name}: ${action} cancelled`, EXIT.DEPLOYMENT_CANCELED);
  if (final.status !== ACTIONS[action].success) {
    throw new CliError(`${svc.name}: ${final.status}${final.message ? ` — ${final.message}` : ''} (deployment ${final.id})`, EXIT.DEPLOYMENT_FAILED);
  }
}

/** prints lines and statuses as they come (nothing but the final record with --json) */
async function watch(conn: { url: string; token: string }, queued: DeploymentRecord, name: string, action: ActionName, quiet: boolean): Promise<DeploymentRecord> {
  const started = Date.now();
  const out = (text: string) => { if (!quiet) process.stdout.write(text + '\n'); };
  out(`${color.bold(name)}: ${ACTIONS[action].verb} ${color.dim(`(deployment ${queued.id})`)}`);
  let last: DeploymentRecord = queued;
  for await (const e of follow(conn, `/deployment/${queued.id}/log/stream`, { reconnect: true })) {
    if (e.event === 'log') out('  ' + logLine(e.data));
    else if (e.event === 'status') {
      last = e.data;
      if (!last.finished) out(`${color.yellow('●')} ${state(last.status)}`);
    } else if (e.event === 'end') {
      last = e.data;
      break;
    }
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const success = last.status === ACTIONS[action].success;
  out(`${success ? color.green('✔') : color.red('✖')} ${state(last.status)} in ${seconds}s${!success && last.message ? ` — ${last.message}` : ''}`);
  return last;
}
