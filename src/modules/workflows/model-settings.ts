// The members of an agentic workflow's `model.settings` (pure): the seed makes it a string,
// default empty; berth reads it as JSON text with five documented members, checked when a
// workflow is saved and read by the agent runner. Also which base URL a run's model calls
// when both the workflow and its LLM provider name one (docs/decisions/0191).
//
//   model            string   model id passed to the harness (`--model`); unset: the harness's default
//   base_url         string   http(s) URL of an Anthropic-compatible endpoint (a corporate proxy,
//                             LiteLLM…); unset: the provider's base_url, else Anthropic's API (CLAUDE)
//                             or Bedrock's endpoint (BEDROCK)
//   max_turns        integer  1..500, default 30: the harness stops the agent after that many turns
//   timeout_seconds  integer  10..86400, default 1800: the run is killed after it
//   max_cost_usd     number   > 0 and ≤ 10000, default none: the harness stops the agent once its model
//                             calls cost that much in US dollars (`--max-budget-usd`; docs/decisions/0747)
//
// Empty text means every default; a member sent as null (or "" for the two strings) is unset.
import { shown } from '../../http/validation-messages.ts';
import { baseUrlProblem } from '../llm-providers/base-url.ts';

export interface ModelSettings {
  /** model id for the harness; null: the harness's own default */
  model: string | null;
  /** Anthropic-compatible endpoint; null: see effectiveBaseUrl */
  base_url: string | null;
  max_turns: number;
  timeout_seconds: number;
  /** the spend cap in US dollars (`--max-budget-usd`); null: no spend cap */
  max_cost_usd: number | null;
}

export const MODEL_SETTINGS_DEFAULTS: Readonly<ModelSettings> = Object.freeze({ model: null, base_url: null, max_turns: 30, timeout_seconds: 1800, max_cost_usd: null });

/** inclusive bounds of the integer members */
export const MODEL_SETTINGS_RANGES = Object.freeze({ max_turns: [1, 500], timeout_seconds: [10, 86_400] } as const);

/** the largest spend cap, in US dollars (the smallest is any amount above 0) */
export const MAX_COST_USD_LIMIT = 10_000;

const MODEL_SETTINGS_MEMBERS = Object.freeze(['model', 'base_url', 'max_turns', 'timeout_seconds', 'max_cost_usd'] as const);

const MODEL_ID_MAX_LENGTH = 256;
/** at most this many problems are listed; the last line says how many more there were */
export const MAX_LISTED_PROBLEMS = 100;

export type ModelSettingsResult = { ok: true; value: ModelSettings } | { ok: false; problems: string[] };

/**
 * The settings a workflow's `model.settings` text gives, defaults applied, or every problem of
 * it, each one sentence that starts with its JSON path (`$.max_turns must be an integer from 1
 * to 500; got 0`; `$` is the text itself).
 */
export function parseModelSettings(text: string): ModelSettingsResult {
  if (text.trim() === '') return { ok: true, value: { ...MODEL_SETTINGS_DEFAULTS } };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { ok: false, problems: [`$ must be JSON text (or empty): ${(err as Error).message}`] };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    return { ok: false, problems: [`$ must be a JSON object such as {"max_turns": 30}; got ${shown(doc)}`] };
  }
  const problems: string[] = [];
  const value: ModelSettings = { ...MODEL_SETTINGS_DEFAULTS };
  const members = doc as Record<string, unknown>;
  for (const [key, v] of Object.entries(members)) {
    if (!(MODEL_SETTINGS_MEMBERS as readonly string[]).includes(key)) {
      problems.push(`${jsonMember('$', key)} is not a known member; the members are ${MODEL_SETTINGS_MEMBERS.join(', ')}`);
      continue;
    }
    if (v === null) continue;
    const k = key as (typeof MODEL_SETTINGS_MEMBERS)[number];
    if (k === 'model' || k === 'base_url') {
      if (typeof v !== 'string') {
        problems.push(`$.${k} must be a string ${k === 'model' ? '(a model id such as claude-sonnet-4-5)' : '(an http or https URL)'} or null; got ${shown(v)}`);
        continue;
      }
      if (v === '') continue;
      const why = k === 'model' ? modelIdProblem(v) : baseUrlProblem(v);
      if (why) problems.push(`$.${k} ${why}`);
      else value[k] = v;
      continue;
    }
    if (k === 'max_cost_usd') {
      if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > MAX_COST_USD_LIMIT) {
        problems.push(`$.max_cost_usd must be a number of US dollars above 0 and at most ${MAX_COST_USD_LIMIT}, or null (no spend cap); got ${typeof v === 'number' ? String(v) : shown(v)}`);
        continue;
      }
      value.max_cost_usd = v;
      continue;
    }
    const [min, max] = MODEL_SETTINGS_RANGES[k];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      problems.push(`$.${k} must be an integer from ${min} to ${max}; got ${shown(v)}`);
      continue;
    }
    value[k] = v;
  }
  return problems.length > 0 ? { ok: false, problems: boundProblems(problems) } : { ok: true, value };
}

/**
 * The Anthropic-compatible endpoint a run calls: the workflow's own `base_url` when set, else
 * its LLM provider's when set (non-empty), else null (the harness's default: Anthropic's API,
 * or Bedrock's endpoint for BEDROCK).
 */
export function effectiveBaseUrl(settings: ModelSettings, provider: { base_url: string } | null): string | null {
  if (settings.base_url) return settings.base_url;
  return provider && provider.base_url !== '' ? provider.base_url : null;
}

/** why a model id cannot be passed to the harness as one argument, or null */
function modelIdProblem(id: string): string | null {
  if (id.length > MODEL_ID_MAX_LENGTH) return `must be at most ${MODEL_ID_MAX_LENGTH} characters; got ${id.length}`;
  if (/[\s\p{Cc}]/u.test(id)) return `must not contain white space or control characters; got ${shown(id)}`;
  if (id.startsWith('-')) return `must not start with "-" (it would read as an option of the harness); got ${shown(id)}`;
  return null;
}

/** the JSON path of a member: `parent.name`, or `parent["odd name"]` for a name that is not a plain identifier */
export function jsonMember(parent: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/** the first MAX_LISTED_PROBLEMS problems, then one line saying how many more there were */
export function boundProblems(problems: string[]): string[] {
  if (problems.length <= MAX_LISTED_PROBLEMS) return problems;
  return [...problems.slice(0, MAX_LISTED_PROBLEMS), `… and ${problems.length - MAX_LISTED_PROBLEMS} more problems`];
}
