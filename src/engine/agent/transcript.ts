// The harness's stream-json output (one JSON event a line: system/init, assistant messages with
// text and tool calls, user messages carrying tool results, api_retry notices, the final result)
// turned into the run's log lines and its outcome. Pure: no I/O; the runner feeds it lines.
// Secrets are redacted from every line it returns; tool results are bounded excerpts. A run the
// harness stopped at its turn or spend cap is told by the result's subtype (error_max_turns,
// error_max_budget_usd), and its message names that cap and the member that sets it.

export const TEXT_LIMIT = 4000;
export const TOOL_INPUT_LIMIT = 600;
export const TOOL_RESULT_LIMIT = 1200;

export interface TranscriptSummary {
  /** the final `result` event was seen */
  finished: boolean;
  isError: boolean;
  /** the result's subtype: success, error_max_turns, error_max_budget_usd, error_during_execution… */
  subtype: string | null;
  /** the harness's own words for an error result without a `result` text (its `errors`) */
  errors: string[];
  result: string | null;
  numTurns: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  /** the HTTP status of the model API error that ended the run, if any */
  apiErrorStatus: number | null;
  /** a refusal of the credential seen in a retry notice: the run cannot succeed */
  authRefused: string | null;
}

type Json = Record<string, unknown>;

/** the caps a run was given (its spec's), quoted when the harness stops at one */
export interface RunCaps {
  maxTurns: number;
  maxCostUsd: number | null;
}

/** an amount in US dollars as people write it: $0.50, $2.50, $0.0008, $10000.00 (a tiny one as JavaScript writes it: $1e-7) */
export function dollars(amount: number): string {
  const text = amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6, useGrouping: false });
  return `$${Number(text) === 0 && amount !== 0 ? String(amount) : text}`;
}

function excerpt(text: string, limit: number): string {
  const flat = text.length > limit ? `${text.slice(0, limit)}… (${text.length - limit} more characters)` : text;
  return flat;
}

export function redactor(secrets: readonly string[]): (line: string) => string {
  // each secret as written and as it appears inside JSON text (a tool call's input is JSON)
  const forms = secrets.filter((s) => s.length >= 4).flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]);
  const values = [...new Set(forms)].sort((a, b) => b.length - a.length);
  return (line) => {
    let out = line;
    for (const v of values) if (out.includes(v)) out = out.split(v).join('[redacted]');
    return out;
  };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content ?? '');
  return content.map((c: Json) => (c?.type === 'text' ? String(c.text ?? '') : c?.type === 'image' ? '[image]' : JSON.stringify(c))).join('\n');
}

export class Transcript {
  readonly summary: TranscriptSummary = {
    finished: false, isError: false, subtype: null, errors: [], result: null, numTurns: null, inputTokens: null, outputTokens: null, costUsd: null, apiErrorStatus: null, authRefused: null,
  };
  private readonly toolNames = new Map<string, string>();
  private readonly redact: (line: string) => string;

  constructor(secrets: readonly string[]) {
    this.redact = redactor(secrets);
  }

  /** the log lines one output line of the harness becomes (none for events not worth showing) */
  lines(raw: string): string[] {
    const trimmed = raw.trim();
    if (!trimmed) return [];
    // redacted before anything is cut to its bound, so a secret cut in two cannot show its head;
    // "[redacted]" is valid inside a JSON string, so the line still parses
    const clean = this.redact(trimmed);
    let event: Json;
    try {
      event = JSON.parse(clean) as Json;
    } catch {
      return [excerpt(clean, TEXT_LIMIT)];
    }
    return this.describe(event).map((l) => this.redact(l));
  }

  private describe(e: Json): string[] {
    switch (e.type) {
      case 'system': return this.system(e);
      case 'assistant': return this.assistant(e);
      case 'user': return this.toolResults(e);
      case 'result': return this.result(e);
      default: return [];
    }
  }

  private system(e: Json): string[] {
    if (e.subtype === 'init') {
      const servers = Array.isArray(e.mcp_servers) ? (e.mcp_servers as Json[]).map((s) => `${s.name} (${s.status})`) : [];
      const tools = Array.isArray(e.tools) ? e.tools.length : 0;
      return [`Agent started: model ${String(e.model ?? 'default')}, ${tools} tools, MCP servers: ${servers.length ? servers.join(', ') : 'none'}`];
    }
    if (e.subtype === 'api_retry') {
      const status = Number(e.error_status);
      if ((status === 401 || status === 403) && !this.summary.authRefused) {
        this.summary.authRefused = `The model endpoint refused the request: ${status} ${String(e.error ?? '')}`.trim();
      }
      return [`Model API error ${String(e.error_status ?? '')} ${String(e.error ?? '')}: retry ${String(e.attempt)} of ${String(e.max_retries)} in ${Math.round(Number(e.retry_delay_ms ?? 0) / 1000)} s`];
    }
    return [];
  }

  private assistant(e: Json): string[] {
    const message = (e.message ?? {}) as Json;
    const out: string[] = [];
    for (const block of Array.isArray(message.content) ? (message.content as Json[]) : []) {
      if (block.type === 'text' && String(block.text ?? '').trim()) out.push(`assistant: ${excerpt(String(block.text), TEXT_LIMIT)}`);
      if (block.type === 'tool_use') {
        this.toolNames.set(String(block.id), String(block.name));
        out.push(`tool call: ${String(block.name)} ${excerpt(JSON.stringify(block.input ?? {}), TOOL_INPUT_LIMIT)}`);
      }
    }
    if (typeof e.error === 'string') out.push(`model error: ${e.error}`);
    return out;
  }

  private toolResults(e: Json): string[] {
    const message = (e.message ?? {}) as Json;
    const out: string[] = [];
    for (const block of Array.isArray(message.content) ? (message.content as Json[]) : []) {
      if (block.type !== 'tool_result') continue;
      const name = this.toolNames.get(String(block.tool_use_id)) ?? 'tool';
      const label = block.is_error ? `tool error (${name})` : `tool result (${name})`;
      out.push(`${label}: ${excerpt(textOf(block.content), TOOL_RESULT_LIMIT)}`);
    }
    return out;
  }

  private result(e: Json): string[] {
    const usage = (e.usage ?? {}) as Json;
    const s = this.summary;
    s.finished = true;
    s.subtype = typeof e.subtype === 'string' ? e.subtype : null;
    s.isError = e.is_error === true || (s.subtype !== null && s.subtype !== 'success');
    s.errors = Array.isArray(e.errors) ? e.errors.filter((x): x is string => typeof x === 'string') : [];
    s.result = typeof e.result === 'string' ? e.result : null;
    s.numTurns = typeof e.num_turns === 'number' ? e.num_turns : null;
    s.inputTokens = typeof usage.input_tokens === 'number' ? usage.input_tokens : null;
    s.outputTokens = typeof usage.output_tokens === 'number' ? usage.output_tokens : null;
    s.costUsd = typeof e.total_cost_usd === 'number' ? e.total_cost_usd : null;
    s.apiErrorStatus = typeof e.api_error_status === 'number' ? e.api_error_status : null;
    const cost = s.costUsd === null ? 'cost unknown' : `$${s.costUsd.toFixed(4)}`;
    const head = `Agent finished (${String(e.subtype ?? 'unknown')}${s.isError ? ', error' : ''}): ${s.numTurns ?? '?'} turns, ${s.inputTokens ?? '?'} tokens in, ${s.outputTokens ?? '?'} out, ${cost}`;
    return s.result ? [head, `result: ${excerpt(s.result, TEXT_LIMIT)}`] : [head];
  }

  /**
   * why the run failed, from what the harness said (null when it did not fail by its own account):
   * a cap it stopped at is named with its value (from `caps`, the run's spec) and the member that sets it
   */
  failureMessage(caps: RunCaps | null = null): string | null {
    const s = this.summary;
    if (s.authRefused && !s.finished) return s.authRefused;
    if (!s.isError) return null;
    if (s.subtype === 'error_max_turns') {
      const cap = caps ? `: ${caps.maxTurns} turn${caps.maxTurns === 1 ? '' : 's'}` : '';
      return `The agent stopped at its turn cap${cap} (model.settings.max_turns)`;
    }
    if (s.subtype === 'error_max_budget_usd') {
      const cap = caps?.maxCostUsd != null ? `: ${dollars(caps.maxCostUsd)}` : '';
      const spent = s.costUsd !== null ? `; it had spent ${dollars(s.costUsd)}` : '';
      return `The agent stopped at its spend cap${cap} (model.settings.max_cost_usd)${spent}`;
    }
    const status = s.apiErrorStatus ? ` (model API ${s.apiErrorStatus})` : '';
    const words = s.result ?? (s.errors.length ? s.errors.join('; ') : null) ?? `no result (${s.subtype ?? 'unknown'})`;
    return `The agent failed${status}: ${this.redact(words)}`;
  }
}
