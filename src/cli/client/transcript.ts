// How an agentic workflow run reads in a terminal: its log lines as a transcript (the image build
// and setup, then the agent's own lines — assistant text, tool calls, tool results, egress
// refusals — with their prefix coloured by meaning and long text indented under itself), the
// run's outcome (status, result or failure message), its one-line summary (turns, tokens,
// cost, duration), and its cells in the tables of runs (berth runs, berth status). Pure
// formatting: no I/O.
import type { Run } from './resolve.ts';
import { ago, color, type LogLine } from './output.ts';

export const ENDED = new Set(['SUCCEEDED', 'FAILED', 'CANCELED']);

/** the short form of a run id that `berth runs` shows and every run command accepts */
export const shortId = (id: string) => id.slice(0, 8);

/** the agent's line prefixes (as the run machinery writes them) and how each is coloured */
const PREFIXES: Array<[RegExp, (s: string) => string, dimText?: boolean]> = [
  [/^assistant:/, (s) => color.bold(color.green(s))],
  [/^tool call:/, color.cyan],
  [/^tool result \([^)]*\):/, color.cyan, true],
  [/^tool error \([^)]*\):/, color.red],
  [/^egress refused:/, (s) => color.bold(color.red(s))],
  [/^egress allowed:/, color.dim, true],
  [/^(model error:|Model API error)/, color.red],
  [/^Agent (started|finished)/, color.bold],
];

const KIND: Record<string, string> = { BUILD: color.magenta('build'), DEPLOY: color.blue('setup'), RUNTIME: color.cyan('agent') };
/** a transcript line's indent (2), time (12), space, kind (5), space: where continuation lines start */
const INDENT = ' '.repeat(21);

/** the simulated engine's label before a line's own prefix */
const SIMULATED = /^\[simulated\] /;

/**
 * One transcript line, or null for the agent's `result:` line: the whole result is printed once
 * the run ends (outcome()), so it is not shown twice.
 */
export function transcriptLine(l: LogLine): string | null {
  const label = SIMULATED.exec(l.message)?.[0] ?? '';
  let text = l.message.slice(label.length);
  if (l.kind === 'RUNTIME' && text.startsWith('result: ')) return null;
  if (l.kind === 'RUNTIME') {
    for (const [prefix, paint, dimText] of PREFIXES) {
      const m = prefix.exec(text);
      if (!m) continue;
      const rest = text.slice(m[0].length);
      text = paint(m[0]) + (dimText ? color.dim(rest) : rest);
      break;
    }
  }
  if (label) text = color.dim(label) + text;
  const kind = KIND[l.kind] ?? color.dim(l.kind.toLowerCase().slice(0, 5).padEnd(5));
  return `  ${color.dim(l.created_at.slice(11, 23))} ${kind} ${text.split('\n').join('\n' + INDENT)}`;
}

const count = (n: number | null) => (n === null ? '?' : n.toLocaleString('en-US'));

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return s < 3600 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export const cost = (usd: number | null) => (usd === null ? '-' : `$${usd.toFixed(4)}`);

/** how long a run took: the harness's own figure, else its start to its end (or to now) */
export function runDuration(r: Run, now = Date.now()): number | null {
  if (r.duration_ms !== null) return r.duration_ms;
  const start = r.started_at ?? r.created_at;
  if (!ENDED.has(r.status)) return now - Date.parse(start);
  return r.finished_at ? Date.parse(r.finished_at) - Date.parse(start) : null;
}

/** "3 turns · 1,234 tokens in, 567 out · $0.0123 · 42.1s" (what is not known left out) */
function summary(r: Run): string {
  const parts: string[] = [];
  if (r.num_turns !== null) parts.push(`${count(r.num_turns)} turn${r.num_turns === 1 ? '' : 's'}`);
  if (r.input_tokens !== null || r.output_tokens !== null) parts.push(`${count(r.input_tokens)} tokens in, ${count(r.output_tokens)} out`);
  if (r.cost_usd !== null) parts.push(cost(r.cost_usd));
  parts.push(duration(runDuration(r)));
  return parts.join(' · ');
}

/** a run status coloured: green succeeded, yellow queued or running, red failed, dim canceled */
export function runState(status: string): string {
  if (status === 'SUCCEEDED') return color.green(status);
  if (status === 'FAILED') return color.red(status);
  if (status === 'CANCELED') return color.dim(status);
  return color.yellow(status);
}

/** what an ended run gave back: its status (with why, when it did not succeed), the result, the summary */
export function outcome(r: Run): string {
  const mark = r.status === 'SUCCEEDED' ? color.green('✔') : r.status === 'CANCELED' ? color.dim('■') : color.red('✖');
  const lines = [`${mark} ${runState(r.status)}${r.status !== 'SUCCEEDED' && r.message ? ` — ${r.message}` : ''}`];
  // a failed run's result is usually inside its message already
  if (r.result && !(r.message ?? '').includes(r.result)) lines.push(r.result.trimEnd());
  lines.push(color.dim(summary(r)));
  return lines.join('\n');
}

/** the first line of a run's result or message, cut to `width` characters (for the runs table) */
function firstLine(r: Run, width = 60): string {
  const text = (r.status === 'SUCCEEDED' ? r.result ?? r.message : r.message ?? r.result) ?? '';
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** a run in a table (`berth runs`, a workflow's last run in `berth status`): status, trigger, when it started, its result's first line */
export function runCells(r: Run): { status: string; trigger: string; started: string; result: string } {
  const line = firstLine(r);
  return { status: runState(r.status), trigger: r.trigger.toLowerCase(), started: ago(r.created_at), result: r.status === 'SUCCEEDED' ? line : color.dim(line) };
}
