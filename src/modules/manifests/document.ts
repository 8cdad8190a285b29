// The berth.yaml text ⇄ document, pure (no I/O): `parseManifest` reads YAML with positions, checks
// it against the JSON Schema (manifest.schemas.ts) and answers every problem at once, each with
// its file, line and column; `documentToYaml` writes a document back as YAML in a stable order.
// Shared by the apply/plan/export routes, the MCP tools and the CLI's compose import.
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { isMap, isSeq, LineCounter, parseDocument, stringify, type Document, type Node } from 'yaml';
import { Manifest, type ManifestDoc, type ManifestProblem } from './manifest.schemas.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** the editor comment that points yaml-language-server at the schema */
const SCHEMA_URL = 'https://berth.dev/schemas/berth.schema.json';
const SCHEMA_COMMENT = `yaml-language-server: $schema=${SCHEMA_URL}`;

// A validator of its own rather than the HTTP layer's (src/http/ajv.ts): that one drops unknown
// members of closed objects and fills defaults, and a file must get an error for a misspelt key
// and must not be rewritten. The options are otherwise the same (every problem, no coercion).
let compiled: ReturnType<Ajv['compile']> | undefined;
function validator() {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false, removeAdditional: false });
    addFormats(ajv);
    compiled = ajv.compile(JSON.parse(JSON.stringify(Manifest)));
  }
  return compiled;
}

/** where a dotted path of the document (`environments.staging.applications.web`) is in the file */
type Locate = (path: string) => ManifestProblem;
export type ParseResult = { ok: true; doc: ManifestDoc; locate: Locate } | { ok: false; problems: ManifestProblem[] };

/** the document in `text`, or every problem in it (YAML syntax first; then the schema's), with positions */
export function parseManifest(text: string, file = 'berth.yaml'): ParseResult {
  const lines = new LineCounter();
  const yamlDoc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (yamlDoc.errors.length > 0) {
    return {
      ok: false,
      problems: yamlDoc.errors.map((e) => {
        const { line, col } = lines.linePos(e.pos[0]);
        return problem(file, line, col, '', `YAML: ${e.message.split('\n')[0]}`);
      }),
    };
  }
  let value: unknown;
  try {
    value = yamlDoc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // an alias bomb or a circular alias: a problem of the file, not of the server
    return { ok: false, problems: [problem(file, 1, 1, '', `YAML: ${err instanceof Error ? err.message : String(err)}`)] };
  }
  const problems = schemaProblems(value, yamlDoc, lines, file);
  if (problems.length > 0) return { ok: false, problems };
  const locate: Locate = (path) => {
    const pos = position(yamlDoc, lines, path ? path.split('.') : [], false);
    return problem(file, pos.line, pos.col, path, path);
  };
  return { ok: true, doc: value as ManifestDoc, locate };
}

/** the document's JSON Schema as a file (schemas/berth.schema.json) and the schema route serve it */
export function manifestSchemaText(): string {
  return `${JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', $id: SCHEMA_URL, ...JSON.parse(JSON.stringify(Manifest)) }, null, 2)}\n`;
}

/** the problems of an already-parsed value (a JSON body, a compose import's output) against the schema, without positions */
export function checkDocument(value: unknown, file = 'berth.yaml'): ManifestProblem[] {
  return schemaProblems(value, null, null, file);
}

function schemaProblems(value: unknown, yamlDoc: Document | null, lines: LineCounter | null, file: string): ManifestProblem[] {
  const validate = validator();
  if (validate(value)) return [];
  const seen = new Set<string>();
  const out: ManifestProblem[] = [];
  for (const e of selectErrors(validate.errors ?? [])) {
    const segments = pointerSegments(e.instancePath);
    let at = segments;
    let message = e.message ?? 'is invalid';
    let onKey = false;
    if (e.keyword === 'additionalProperties') {
      const extra = String((e.params as { additionalProperty: string }).additionalProperty);
      at = [...segments, extra];
      onKey = true;
      message = isSecretsMap(segments) || isVariablesMap(segments)
        ? `${extra} is not a valid key (letters, digits and underscores, starting with a letter)`
        : 'is not a member this object has (misspelt, or not part of the document)';
    } else if (e.keyword === 'required') {
      message = `${(e.params as { missingProperty: string }).missingProperty} is required`;
    } else if (isSecretValue(segments, value)) {
      message = 'a secret value is never written in the file: use { from: env:NAME } (a value your client supplies) or { from: secret:NAME } (an existing secret)';
    } else if (e.keyword === 'enum' || e.keyword === 'const') {
      const allowed = (e.params as { allowedValues?: unknown[]; allowedValue?: unknown }).allowedValues ?? [(e.params as { allowedValue?: unknown }).allowedValue];
      message = `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
    }
    const path = at.join('.');
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const pos = yamlDoc && lines ? position(yamlDoc, lines, at, onKey) : { line: 1, col: 1 };
    out.push(problem(file, pos.line, pos.col, path, `${path || '(document)'}: ${message}`));
  }
  return out.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** Ajv reports each branch of a union: keep the most telling errors (a `null` branch says nothing; a literal union is one enum) */
function selectErrors(errors: ErrorObject[]): ErrorObject[] {
  const consts = new Map<string, unknown[]>();
  for (const e of errors) {
    if (e.keyword === 'const') consts.set(e.instancePath, [...(consts.get(e.instancePath) ?? []), (e.params as { allowedValue: unknown }).allowedValue]);
  }
  const out: ErrorObject[] = [];
  const constDone = new Set<string>();
  const typed = new Set(errors.filter((e) => e.keyword !== 'type' && e.keyword !== 'anyOf').map((e) => e.instancePath));
  for (const e of errors) {
    if (e.keyword === 'anyOf' && errors.some((x) => x !== e && x.instancePath.startsWith(e.instancePath))) continue;
    if (e.keyword === 'type' && (e.params as { type: string }).type === 'null') continue;
    if (e.keyword === 'type' && typed.has(e.instancePath) && errors.some((x) => x.keyword !== 'type' && x.instancePath === e.instancePath)) continue;
    // a union's other branch matched the shape (an object): its deeper errors tell, "must be string" does not
    if (e.keyword === 'type' && errors.some((x) => x.instancePath.startsWith(`${e.instancePath}/`))) continue;
    if (e.keyword === 'const') {
      if (constDone.has(e.instancePath)) continue;
      constDone.add(e.instancePath);
      out.push({ ...e, keyword: 'enum', params: { allowedValues: consts.get(e.instancePath) } });
      continue;
    }
    out.push(e);
  }
  return out;
}

const isSecretsMap = (segments: string[]) => segments[segments.length - 1] === 'secrets';
const isVariablesMap = (segments: string[]) => segments[segments.length - 1] === 'variables';
function isSecretValue(segments: string[], root: unknown): boolean {
  if (segments.length < 2 || segments[segments.length - 2] !== 'secrets') return false;
  let v: unknown = root;
  for (const s of segments) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[s] : undefined;
  return v !== null && typeof v !== 'object';
}

function pointerSegments(pointer: string): string[] {
  if (!pointer) return [];
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** line and column of the node at `segments` (its key when `onKey`), else of its nearest ancestor */
function position(doc: Document, lines: LineCounter, segments: string[], onKey: boolean): { line: number; col: number } {
  let node: unknown = doc.contents;
  let best: { line: number; col: number } = rangeStart(node, lines) ?? { line: 1, col: 1 };
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (isMap(node)) {
      // a key may hold dots (advanced settings, domains): the longest run of segments that names one
      let pair = node.items.find((p) => keyText(p.key) === segment);
      for (let j = segments.length; !pair && j > i + 1; j--) {
        const joined = segments.slice(i, j).join('.');
        pair = node.items.find((p) => keyText(p.key) === joined);
        if (pair) i = j - 1;
      }
      if (!pair) break;
      if (onKey && i === segments.length - 1) return rangeStart(pair.key, lines) ?? best;
      node = pair.value;
      best = rangeStart(pair.value, lines) ?? rangeStart(pair.key, lines) ?? best;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)];
      if (item === undefined) break;
      node = item;
      best = rangeStart(item, lines) ?? best;
    } else break;
  }
  return best;
}

function keyText(key: unknown): string {
  return key !== null && typeof key === 'object' && 'value' in key ? String((key as { value: unknown }).value) : String(key);
}

function rangeStart(node: unknown, lines: LineCounter): { line: number; col: number } | undefined {
  const range = (node as Node | null)?.range;
  return range ? lines.linePos(range[0]) : undefined;
}

function problem(file: string, line: number, column: number, path: string, message: string): ManifestProblem {
  return { file, line, column, path, field: path, message };
}

/** the document as YAML, members in the order the document has them (export builds that order), with the editor's schema comment on top */
export function documentToYaml(doc: ManifestDoc, options: { schemaComment?: boolean } = {}): string {
  const body = stringify(doc, { lineWidth: 0, indent: 2, aliasDuplicateObjects: false });
  return (options.schemaComment === false ? '' : `# ${SCHEMA_COMMENT}\n`) + body;
}
