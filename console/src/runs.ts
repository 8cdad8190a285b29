// How the console words an agentic workflow run: its figures (duration, tokens, cost), who or
// what started it, the one line a list shows of its outcome, its payload as text, and which kind
// of transcript line each log line is (assistant text, tool call, tool result, refused egress,
// errors), read from the prefixes the agent runner writes (src/engine/agent/transcript.ts).
// Pure functions: no DOM, so the tests import them directly.

export interface RunFigures {
  trigger: string; triggered_by: string | null; status: string;
  duration_ms: number | null; num_turns: number | null; input_tokens: number | null; output_tokens: number | null; cost_usd: number | null;
  result: string | null; message: string | null;
}

export const ACTIVE_RUN = new Set(['QUEUED', 'RUNNING']);

export function isActive(status: string | undefined): boolean {
  return status !== undefined && ACTIVE_RUN.has(status);
}

/** US dollars to four decimals, as the harness reports them: $0.0024 */
export function formatCost(usd: number | null | undefined): string {
  return typeof usd === 'number' && Number.isFinite(usd) ? `$${usd.toFixed(4)}` : '—';
}

/** 850 ms, 12.3 s, 4 min 05 s, 1 h 02 min */
export function formatDuration(ms: number | null | undefined): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const whole = Math.round(s);
  const min = Math.floor(whole / 60);
  if (min < 60) return `${min} min ${String(whole % 60).padStart(2, '0')} s`;
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
}

export function formatCount(n: number | null | undefined): string {
  return typeof n === 'number' ? n.toLocaleString('en-US') : '—';
}

/** tokens in / out, e.g. "12,345 / 678" */
export function formatTokens(run: Pick<RunFigures, 'input_tokens' | 'output_tokens'>): string {
  if (run.input_tokens === null && run.output_tokens === null) return '—';
  return `${formatCount(run.input_tokens)} / ${formatCount(run.output_tokens)}`;
}

/** "manual by ada@example.com", "webhook", "schedule" */
export function triggerLabel(run: Pick<RunFigures, 'trigger' | 'triggered_by'>): string {
  const t = run.trigger.toLowerCase();
  return run.triggered_by ? `${t} by ${run.triggered_by}` : t;
}

/** the first non-blank line of a text, cut to `max` characters */
export function firstLine(text: string | null | undefined, max = 140): string {
  const line = (text ?? '').split(/\r?\n/).map((l) => l.trim()).find((l) => l.length > 0) ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** what a list says of a run's outcome: the result's first line, else why it failed */
export function outcomeLine(run: Pick<RunFigures, 'result' | 'message'>): { text: string; isMessage: boolean } {
  const result = firstLine(run.result);
  if (result) return { text: result, isMessage: false };
  return { text: firstLine(run.message), isMessage: true };
}

/** a payload as indented JSON text (never markup) */
export function prettyJson(value: unknown): string {
  if (value === undefined) return '';
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

export type TranscriptKind = 'assistant' | 'tool-call' | 'tool-result' | 'egress-refused' | 'egress' | 'agent-error' | 'outcome';

const KINDS: Array<[RegExp, TranscriptKind]> = [
  [/^assistant: /, 'assistant'],
  [/^tool call: /, 'tool-call'],
  [/^tool result \(/, 'tool-result'],
  [/^tool error \(/, 'agent-error'],
  [/^egress refused: /, 'egress-refused'],
  [/^egress allowed: /, 'egress'],
  [/^(model error: |Model API error|stderr: |error[: ]|Agent failed|The agent failed)/i, 'agent-error'],
  [/^(Agent finished|result: )/, 'outcome'],
];

/** the class of one transcript line: its kind by prefix (after a "[simulated] " label), else the log kind */
export function transcriptClass(line: { message: string; kind: string }): string {
  const text = line.message.replace(/^\[simulated\] /, '');
  const found = KINDS.find(([re]) => re.test(text));
  const kind = line.kind.toLowerCase();
  return found ? `${kind} ${found[1]}` : kind;
}

/** the most a run's payload may be (the API's limit for a manual run and a webhook body) */
export const PAYLOAD_LIMIT = 64 * 1024;

/** the payload editor's text as the value to send: nothing when blank, else valid JSON of at most 64 KiB */
export function parsePayload(text: string): { value: unknown } | { error: string } {
  if (text.trim() === '') return { value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { error: `Payload is not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  const size = new TextEncoder().encode(JSON.stringify(value)).length;
  if (size > PAYLOAD_LIMIT) return { error: `Payload is ${Math.ceil(size / 1024)} KiB; a run takes 64 KiB at most` };
  return { value };
}
