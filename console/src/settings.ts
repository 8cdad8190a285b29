// A service's advanced settings as the console edits them: what kind of input each key takes,
// read from berth's own OpenAPI document (/openapi.json: the settings schemas' types, enums,
// bounds and descriptions) or, without it, guessed from the value; the keys grouped by their
// first segments; and the text of an input turned back into the value the API takes.

/** the form of one key's input */
export interface SettingSpec {
  input: 'boolean' | 'integer' | 'string' | 'enum' | 'array' | 'map';
  nullable: boolean;
  options?: string[];
  minimum?: number;
  maximum?: number;
  /** the key's meaning, as the schema describes it (its "Default: …" left out) */
  meaning?: string;
}

export type SettingValue = boolean | number | string | string[] | Record<string, string> | null;
export type Settings = Record<string, SettingValue>;
/** what an input holds: a checkbox's state, or text */
export type Draft = boolean | string;

const SCHEMA_OF_KIND = { application: 'ApplicationAdvancedSettings', container: 'ContainerAdvancedSettings', job: 'JobAdvancedSettings' } as const;
export type SettingsKind = keyof typeof SCHEMA_OF_KIND;

interface JsonSchema { type?: string; enum?: unknown[]; anyOf?: JsonSchema[]; minimum?: number; maximum?: number; description?: string }

/** each key's spec from the OpenAPI document's schema of a kind's settings (empty when absent) */
export function specsFromOpenApi(doc: unknown, kind: SettingsKind): Record<string, SettingSpec> {
  const schemas = (doc as { components?: { schemas?: Record<string, { properties?: Record<string, JsonSchema> }> } })?.components?.schemas;
  const properties = schemas?.[SCHEMA_OF_KIND[kind]]?.properties ?? {};
  const out: Record<string, SettingSpec> = {};
  for (const [key, prop] of Object.entries(properties)) {
    const alternatives = prop.anyOf ?? [prop];
    const base = alternatives.find((s) => s.type !== 'null') ?? {};
    const nullable = alternatives.some((s) => s.type === 'null');
    const input = base.enum ? 'enum' : base.type === 'boolean' ? 'boolean' : base.type === 'integer' || base.type === 'number' ? 'integer'
      : base.type === 'array' ? 'array' : base.type === 'object' ? 'map' : 'string';
    out[key] = {
      input, nullable,
      ...(base.enum ? { options: base.enum.map(String) } : {}),
      ...(base.minimum !== undefined ? { minimum: base.minimum } : {}),
      ...(base.maximum !== undefined ? { maximum: base.maximum } : {}),
      ...(prop.description ? { meaning: prop.description.replace(/\s*Default: [\s\S]*$/, '') } : {}),
    };
  }
  return out;
}

/** a spec guessed from the value and the default, when the document says nothing of the key */
export function guessedSpec(value: SettingValue, fallback: SettingValue): SettingSpec {
  const v = value ?? fallback;
  const nullable = value === null || fallback === null;
  if (typeof v === 'boolean') return { input: 'boolean', nullable };
  if (typeof v === 'number') return { input: 'integer', nullable };
  if (Array.isArray(v)) return { input: 'array', nullable };
  if (v !== null && typeof v === 'object') return { input: 'map', nullable };
  return { input: 'string', nullable };
}

const GROUP_TITLES: Record<string, string> = {
  deployment: 'Deployment', build: 'Build', 'network.ingress': 'Ingress', 'network.gateway_api': 'Gateway API',
  hpa: 'Autoscaling', security: 'Security', job: 'Job', cronjob: 'Cron job',
};

/** the group of a key: its first segment, or its first two under `network.` */
function groupOf(key: string): string {
  const parts = key.split('.');
  return parts[0] === 'network' && parts.length > 2 ? `${parts[0]}.${parts[1]}` : parts[0]!;
}

export function groupTitle(group: string): string {
  return GROUP_TITLES[group] ?? group;
}

/** the keys in groups, in the order the API lists them */
export function grouped(keys: string[]): Array<{ group: string; keys: string[] }> {
  const out: Array<{ group: string; keys: string[] }> = [];
  for (const key of keys) {
    const g = groupOf(key);
    const last = out.find((x) => x.group === g);
    if (last) last.keys.push(key);
    else out.push({ group: g, keys: [key] });
  }
  return out;
}

/** ingress keys take effect at once; the others at the next deployment */
export const isIngressKey = (key: string) => key.startsWith('network.ingress.');

/** a value as its input shows it */
export function draftOf(spec: SettingSpec, value: SettingValue): Draft {
  if (spec.input === 'boolean') return value === true;
  if (value === null || value === undefined) return '';
  if (spec.input === 'array' || spec.input === 'map') return JSON.stringify(value);
  return String(value);
}

/** a value as words, for the default and read-only views */
export function shown(value: SettingValue): string {
  return typeof value === 'string' ? (value === '' ? '""' : value) : JSON.stringify(value);
}

type Parsed = { ok: true; value: SettingValue } | { ok: false; message: string };

/** an input's content as the value the API takes, or why it cannot be one */
function parseDraft(key: string, spec: SettingSpec, draft: Draft, fallback: SettingValue): Parsed {
  if (spec.input === 'boolean') return { ok: true, value: draft === true };
  const text = String(draft);
  const empty = text.trim() === '';
  if (spec.input === 'integer') {
    if (empty) return spec.nullable ? { ok: true, value: null } : { ok: false, message: `${key} needs a whole number` };
    return /^-?\d+$/.test(text.trim()) ? { ok: true, value: Number(text.trim()) } : { ok: false, message: `${key} must be a whole number; got "${text}"` };
  }
  if (spec.input === 'enum') return { ok: true, value: empty && spec.nullable ? null : text };
  if (spec.input === 'string') return { ok: true, value: empty && spec.nullable && fallback === null ? null : text };
  if (empty && spec.nullable) return { ok: true, value: null };
  const example = spec.input === 'array' ? '["/bin/sh", "-c", "echo started"]' : '{"label": "value"}';
  const wrong: Parsed = { ok: false, message: `${key} must be a JSON ${spec.input === 'array' ? 'array of strings' : 'object of strings'}, such as ${example}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return wrong;
  }
  if (spec.input === 'array') return Array.isArray(parsed) && parsed.every((x) => typeof x === 'string') ? { ok: true, value: parsed } : wrong;
  const isMap = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && Object.values(parsed).every((x) => typeof x === 'string');
  return isMap ? { ok: true, value: parsed as Record<string, string> } : wrong;
}

export const sameValue = (a: SettingValue | undefined, b: SettingValue | undefined) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The body of a save: the keys whose input changed to a different value, and the inputs that
 * hold no valid value (then nothing is sent).
 */
export function changesOf(keys: string[], specs: Record<string, SettingSpec>, current: Settings, defaults: Settings, drafts: Record<string, Draft>): {
  body: Settings; errors: Record<string, string>;
} {
  const body: Settings = {};
  const errors: Record<string, string> = {};
  for (const key of keys) {
    const draft = drafts[key];
    if (draft === undefined || draft === draftOf(specs[key]!, current[key] ?? null)) continue;
    const parsed = parseDraft(key, specs[key]!, draft, defaults[key] ?? null);
    if (!parsed.ok) errors[key] = parsed.message;
    else if (!sameValue(parsed.value, current[key])) body[key] = parsed.value;
  }
  return { body, errors };
}
