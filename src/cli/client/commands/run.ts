// berth run <workflow> [--payload JSON | --payload-file FILE | -] [--wait], and berth cancel
// <workflow> [run]: start an agentic workflow run by hand (the payload checked as JSON here
// first), and with --wait follow its transcript live (the deployment's log stream, stream.ts)
// until it ends, then print its result and summary; exit 0 SUCCEEDED, 6 FAILED, 7 CANCELED.
// Ctrl-C stops following, never the run. watchRun is shared with `berth runs … -f`.
import { readFile } from 'node:fs/promises';
import { ok } from '../api.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { color, printJson, shellWord, type LogLine } from '../output.ts';
import * as resolve from '../resolve.ts';
import { openSession, type Session } from '../session.ts';
import type { Named } from '../store.ts';
import { follow } from '../stream.ts';
import { ENDED, outcome, runState, shortId, transcriptLine } from '../transcript.ts';
import type { TargetOptions } from './services.ts';

export interface RunOptions extends TargetOptions { payload?: string; payloadFile?: string; wait?: boolean }

/** the command line that reaches the same workflow again (the -o/-p/-e/--server given), for hints */
export function again(args: string[], opts: TargetOptions): string {
  const flags: Array<[string, string | undefined]> = [['-o', opts.organization], ['-p', opts.project], ['-e', opts.environment], ['--server', opts.server]];
  return ['berth', ...args.map(shellWord), ...flags.filter(([, v]) => v).map(([f, v]) => `${f} ${shellWord(v!)}`)].join(' ');
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** the run's payload from --payload, --payload-file FILE (- for stdin) or a lone `-`; undefined when none */
export async function readPayload(opts: RunOptions, dash: string | undefined): Promise<{ value: unknown } | undefined> {
  if (dash !== undefined && dash !== '-') throw new CliError(`unexpected argument "${dash}" (only -, to read the payload from stdin)`, EXIT.USAGE);
  const sources = [opts.payload !== undefined, opts.payloadFile !== undefined, dash !== undefined].filter(Boolean).length;
  if (sources > 1) throw new CliError('give the payload once: --payload JSON, --payload-file FILE, or - for stdin', EXIT.USAGE);
  let text: string;
  let from: string;
  if (opts.payload !== undefined) [text, from] = [opts.payload, '--payload'];
  else if (opts.payloadFile === '-' || dash === '-') [text, from] = [await readStdin(), 'the payload on stdin'];
  else if (opts.payloadFile !== undefined) {
    from = opts.payloadFile;
    text = await readFile(opts.payloadFile, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new CliError(`cannot read ${opts.payloadFile}: ${err.code ?? err.message}`, EXIT.USAGE);
    });
  } else return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    throw new CliError(`${from} is not JSON: ${(err as Error).message}`, EXIT.USAGE);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function getRun(s: Session, wf: Named, id: string): Promise<resolve.Run> {
  return ok(s.api.GET('/agenticWorkflow/{agenticWorkflowId}/run/{runId}', { params: { path: { agenticWorkflowId: wf.id, runId: id } } }));
}

/** the most lines of a transcript read at once (the API's largest tail) */
const LOG_LIMIT = 10_000;

/** a run's transcript as recorded: its last LOG_LIMIT lines, and how many there are in all */
export async function runLog(s: Session, wf: Named, runId: string) {
  const page = await ok(s.api.GET('/agenticWorkflow/{agenticWorkflowId}/run/{runId}/log', {
    params: { path: { agenticWorkflowId: wf.id, runId }, query: { tail: LOG_LIMIT } },
  }));
  return { results: page.results, total: page.pagination.total_count };
}

/**
 * Follows a run until it ends: its transcript from the first line, live (printed unless quiet),
 * then the ended run record. Ctrl-C stops following with exit 130 and says how to cancel.
 */
export async function watchRun(s: Session, wf: Named, started: resolve.Run, opts: TargetOptions & { quiet: boolean }): Promise<{ run: resolve.Run; log: LogLine[] }> {
  const out = (text: string) => { if (!opts.quiet) process.stdout.write(text + '\n'); };
  const abort = new AbortController();
  // kept for the life of the process: a second Ctrl-C (a re-executing launcher forwards one) changes nothing
  process.on('SIGINT', () => abort.abort());
  const interrupted = () => new CliError(
    `stopped following run ${started.id}; it goes on (cancel it with: ${again(['cancel', wf.name, shortId(started.id)], opts)})`, EXIT.INTERRUPTED);
  const log: LogLine[] = [];
  let run = started;
  // a run that could not start has no deployment and has ended already
  while (!run.deployment_id && !ENDED.has(run.status)) {
    await sleep(300);
    if (abort.signal.aborted) throw interrupted();
    run = await getRun(s, wf, run.id);
  }
  const print = (l: LogLine) => {
    log.push(l);
    const line = transcriptLine(l);
    if (line !== null) out(line);
  };
  if (run.deployment_id) {
    let running = run.status === 'RUNNING';
    try {
      for await (const e of follow(s.conn, `/deployment/${run.deployment_id}/log/stream`, { reconnect: true, signal: abort.signal })) {
        if (e.event === 'log') print(e.data);
        else if (e.event === 'status' && !running && e.data.status !== 'QUEUED' && !e.data.finished) {
          running = true;
          out(`${color.yellow('●')} ${runState('RUNNING')}`);
        } else if (e.event === 'end') break;
      }
    } catch (err) {
      // an ended CLONE_ENVIRONMENT run's deployment goes with its throwaway copy; the run kept its lines
      if (!(err instanceof CliError && err.exitCode === EXIT.NOT_FOUND)) throw err;
      if (!ENDED.has((run = await getRun(s, wf, run.id)).status)) throw err;
      (await runLog(s, wf, run.id)).results.slice(log.length).forEach(print);
    }
    if (abort.signal.aborted) throw interrupted();
  }
  // the run settles with its deployment; a moment's grace for a server that records it just after
  for (let i = 0; i < 40 && !ENDED.has((run = await getRun(s, wf, run.id)).status); i++) {
    await sleep(250);
    if (abort.signal.aborted) throw interrupted();
  }
  out(outcome(run));
  return { run, log };
}

/** exit 6 for a failed run, 7 for a canceled one (0: nothing thrown) */
export function exitForRun(wf: Named, run: resolve.Run): void {
  if (!ENDED.has(run.status)) throw new CliError(`${wf.name}: run ${run.id} is still ${run.status} though its deployment has ended`, EXIT.ERROR);
  if (run.status === 'CANCELED') throw new CliError(`${wf.name}: run ${run.id} cancelled${run.message ? ` — ${run.message}` : ''}`, EXIT.RUN_CANCELED);
  if (run.status !== 'SUCCEEDED') throw new CliError(`${wf.name}: run ${run.id} ${run.status}${run.message ? ` — ${run.message}` : ''}`, EXIT.RUN_FAILED);
}

export async function startRun(ref: string, dash: string | undefined, opts: RunOptions): Promise<void> {
  const payload = await readPayload(opts, dash);
  const s = openSession(opts);
  const t = await resolve.target(s.api, s.server.context, opts, 'environment');
  const wf = await resolve.workflow(s.api, t.environment, ref);
  const started = await ok(s.api.POST('/agenticWorkflow/{agenticWorkflowId}/run', { params: { path: { agenticWorkflowId: wf.id } }, body: payload?.value }));
  if (!opts.wait) {
    if (opts.json) return printJson(started);
    process.stdout.write(`${wf.name}: run started (run ${started.id}, ${runState(started.status)})\n`);
    process.stderr.write(color.dim(`follow it with: ${again(['runs', wf.name, shortId(started.id), '-f'], opts)}, or pass --wait\n`));
    return;
  }
  if (!opts.json) process.stdout.write(`${color.bold(wf.name)}: run started ${color.dim(`(run ${started.id}, ${started.status})`)}\n`);
  const { run } = await watchRun(s, wf, started, { ...opts, quiet: !!opts.json });
  if (opts.json) printJson(run);
  exitForRun(wf, run);
}

export async function cancelRun(ref: string, runRef: string | undefined, opts: TargetOptions): Promise<void> {
  const s = openSession(opts);
  const t = await resolve.target(s.api, s.server.context, opts, 'environment');
  const wf = await resolve.workflow(s.api, t.environment, ref);
  const path = { agenticWorkflowId: wf.id };
  const run = runRef === undefined
    // the workflow's current run (409 when none is queued or running)
    ? await ok(s.api.POST('/agenticWorkflow/{agenticWorkflowId}/cancelDeployment', { params: { path }, body: {} }))
    : await ok(s.api.POST('/agenticWorkflow/{agenticWorkflowId}/run/{runId}/cancel', { params: { path: { ...path, runId: (await resolve.run(s.api, wf, runRef)).id } } }));
  if (opts.json) return printJson(run);
  process.stdout.write(`${wf.name}: run ${run.id} ${runState(run.status)}\n`);
}
