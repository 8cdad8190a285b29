// berth runs <workflow> [run] [-n N] [-f]: a workflow's recent runs as a table (status, trigger,
// when, duration, cost, first line of the result or message), or one run — what started it, its
// transcript and its result — and with -f that run followed live until it ends (exit codes as
// run --wait).
import { ok } from '../api.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { ago, color, printJson, printTable } from '../output.ts';
import * as resolve from '../resolve.ts';
import { openSession, type Session } from '../session.ts';
import type { Named } from '../store.ts';
import { cost, duration, ENDED, outcome, runCells, runDuration, runState, shortId, transcriptLine } from '../transcript.ts';
import { again, exitForRun, runLog, watchRun } from './run.ts';
import type { TargetOptions } from './services.ts';

export interface RunsOptions extends TargetOptions { limit?: string; follow?: boolean }

const PAYLOAD_WIDTH = 200;

export async function runs(ref: string, runRef: string | undefined, opts: RunsOptions): Promise<void> {
  const count = opts.limit === undefined ? 20 : Number(opts.limit);
  if (!Number.isInteger(count) || count < 1 || count > 100) throw new CliError('-n/--limit must be an integer between 1 and 100', EXIT.USAGE);
  if (opts.follow && runRef === undefined) throw new CliError('-f follows one run: berth runs WORKFLOW RUN -f', EXIT.USAGE);
  const s = openSession(opts);
  const t = await resolve.target(s.api, s.server.context, opts, 'environment');
  const wf = await resolve.workflow(s.api, t.environment, ref);
  if (runRef !== undefined) return showRun(s, wf, await resolve.run(s.api, wf, runRef), opts);

  const page = await ok(s.api.GET('/agenticWorkflow/{agenticWorkflowId}/run', { params: { path: { agenticWorkflowId: wf.id }, query: { page_size: count } } }));
  if (opts.json) return printJson(page.results);
  printTable(['RUN', 'STATUS', 'TRIGGER', 'STARTED', 'DURATION', 'COST', 'RESULT'], page.results.map((r) => {
    const c = runCells(r);
    return [shortId(r.id), c.status, c.trigger, c.started,
      ENDED.has(r.status) ? duration(runDuration(r)) : color.dim(`${duration(runDuration(r))} so far`), cost(r.cost_usd), c.result];
  }));
  const total = page.pagination.total_count;
  if (total > page.results.length) process.stderr.write(color.dim(`${page.results.length} newest of ${total} runs (-n 100 for more)\n`));
  if (page.results.length > 0) process.stderr.write(color.dim(`one run's transcript: ${again(['runs', wf.name, shortId(page.results[0]!.id)], opts)}\n`));
}

/** what started the run: when, how, by whom, with which payload */
function header(wf: Named, r: resolve.Run): string {
  const by = r.triggered_by ? ` by ${r.triggered_by}` : '';
  const when = r.scheduled_for ? `scheduled for ${r.scheduled_for}` : `started ${ago(r.created_at)}`;
  const lines = [`${color.bold(wf.name)}: run ${r.id} ${color.dim(`(${r.trigger.toLowerCase()}${by}, ${when})`)}`];
  if (r.payload !== null && r.payload !== undefined) {
    const json = JSON.stringify(r.payload);
    lines.push(`${color.dim('payload')} ${json.length > PAYLOAD_WIDTH ? `${json.slice(0, PAYLOAD_WIDTH - 1)}…` : json}`);
  }
  return lines.join('\n');
}

async function showRun(s: Session, wf: Named, run: resolve.Run, opts: RunsOptions): Promise<void> {
  if (opts.follow) {
    if (!opts.json) process.stdout.write(header(wf, run) + '\n');
    const followed = await watchRun(s, wf, run, { ...opts, quiet: !!opts.json });
    if (opts.json) printJson(followed);
    return exitForRun(wf, followed.run);
  }
  const page = await runLog(s, wf, run.id);
  if (opts.json) return printJson({ run, log: page.results });
  process.stdout.write(header(wf, run) + '\n');
  const left = page.total - page.results.length;
  if (left > 0) process.stdout.write(color.dim(`  (${left} earlier lines not shown)`) + '\n');
  for (const l of page.results) {
    const line = transcriptLine(l);
    if (line !== null) process.stdout.write(line + '\n');
  }
  if (ENDED.has(run.status)) process.stdout.write(outcome(run) + '\n');
  else {
    process.stdout.write(`${color.yellow('●')} ${runState(run.status)} ${color.dim(`for ${duration(runDuration(run))}`)}\n`);
    process.stderr.write(color.dim(`follow it with: ${again(['runs', wf.name, shortId(run.id), '-f'], opts)}\n`));
  }
}
