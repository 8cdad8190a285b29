// berth.yaml in the console (issue 41): download an export (the API's YAML text, saved through a
// Blob, never put in the page), plan and apply a document at a project or an organization, the
// 400's problems kept with their line and column, and the `env:NAME` references a document names
// (a plain scan of the text: the server parses the file and says which values are missing).
import { api, raw, toApiError } from './api.ts';
import type { paths } from '../../src/client/api-types.ts';

export type ApplyBody = paths['/project/{projectId}/apply']['post']['requestBody']['content']['application/json'];
export type ApplyResult = paths['/project/{projectId}/apply']['post']['responses'][200]['content']['application/json'];
export type PlannedChange = ApplyResult['changes'][number];
export type FieldChange = PlannedChange['changes'][number];

/** one problem of a refused document, where the server located it */
export interface ManifestProblem { file: string | null; line: number | null; column: number | null; path: string | null; message: string }

/** a refused document: every problem the server listed */
export class ManifestRefused extends Error {
  readonly status: number;
  readonly problems: ManifestProblem[];
  constructor(status: number, message: string, problems: ManifestProblem[]) {
    super(message);
    this.status = status;
    this.problems = problems;
  }
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown) => (typeof v === 'string' && v ? v : null);

/** the problems of an error body (`errors` with file, line, column, path; else the one message) */
function problemsOf(body: unknown, fallback: string): ManifestProblem[] {
  const b = (body && typeof body === 'object' ? body : {}) as { message?: unknown; errors?: unknown };
  const listed = Array.isArray(b.errors) ? b.errors as Array<Record<string, unknown>> : [];
  if (listed.length === 0) return [{ file: null, line: null, column: null, path: null, message: str(b.message) ?? fallback }];
  return listed.map((e) => ({
    file: str(e.file), line: num(e.line), column: num(e.column), path: str(e.path) ?? str(e.field),
    message: str(e.message) ?? String(e),
  }));
}

/** `line:column — message` (or the message alone when the server gave no position) */
export function problemText(p: ManifestProblem): string {
  return p.line !== null ? `${p.line}:${p.column ?? 1} — ${p.message}` : p.message;
}

export type ApplyTarget = { projectId: string } | { orgId: string };

/** plans (`dryRun`) or applies a document; a 400 becomes ManifestRefused with every problem, other failures an ApiError */
export async function applyManifest(target: ApplyTarget, body: ApplyBody, dryRun: boolean): Promise<ApplyResult> {
  const query = dryRun ? { dry_run: true } : {};
  const r = 'projectId' in target
    ? await api.POST('/project/{projectId}/apply', { params: { path: { projectId: target.projectId }, query }, body })
    : await api.POST('/organization/{organizationId}/apply', { params: { path: { organizationId: target.orgId }, query }, body });
  if (r.response.ok) return r.data as ApplyResult;
  if (r.response.status === 400) {
    const problems = problemsOf(r.error, 'The document was refused.');
    throw new ManifestRefused(400, problems[0]?.message ?? 'The document was refused.', problems);
  }
  throw toApiError(r.response, r.error);
}

/** the export's text (GET /environment/{id}/export or /project/{id}/export) */
export async function fetchExport(scope: 'environment' | 'project', id: string): Promise<string> {
  const res = await raw(`/${scope}/${encodeURIComponent(id)}/export`, { headers: { accept: 'application/yaml' } });
  const text = await res.text();
  if (!res.ok) {
    let body: unknown = undefined;
    try { body = JSON.parse(text); } catch { body = undefined; }
    throw toApiError(res, body);
  }
  return text;
}

/** saves a text as a file through a Blob and an object URL (nothing of it enters the page) */
export function downloadText(text: string, filename: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/yaml' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const ENV_REF = /\benv:([A-Za-z_][A-Za-z0-9_]*)/g;
const MISSING = /secret_values\.([A-Za-z_][A-Za-z0-9_]*)/g;

/** the names of the `env:NAME` references in a document's text, in order, once each (comments skipped) */
export function envReferences(text: string): string[] {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const code = line.replace(/(^|\s)#.*$/, '');
    for (const m of code.matchAll(ENV_REF)) names.add(m[1]!);
  }
  return [...names];
}

/** the value names a refused document's problems ask for (`… send it as secret_values.NAME`) */
export function missingValues(problems: ManifestProblem[]): string[] {
  const names = new Set<string>();
  for (const p of problems) for (const m of p.message.matchAll(MISSING)) names.add(m[1]!);
  return [...names];
}

/** a planned value as text: strings as they are, the rest as JSON, absent as "(none)" */
export function valueText(v: unknown): string {
  if (v === undefined || v === null) return '(none)';
  if (typeof v === 'string') return v === '' ? '""' : v;
  return JSON.stringify(v);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A resource's field changes as lines to read: where both sides are objects (a changed
 * `git_repository`), one line per member that differs (`git_repository.branch: main → develop`).
 * Secrets stay as the server said (changed or not, never a value).
 */
export function fieldLines(changes: FieldChange[]): FieldChange[] {
  const out: FieldChange[] = [];
  const walk = (field: string, from: unknown, to: unknown) => {
    if (isObject(from) && isObject(to)) {
      const differing = [...new Set([...Object.keys(from), ...Object.keys(to)])].filter((k) => JSON.stringify(from[k]) !== JSON.stringify(to[k]));
      if (differing.length > 0) {
        for (const k of differing) walk(`${field}.${k}`, from[k], to[k]);
        return;
      }
    }
    out.push({ field, from, to });
  };
  for (const c of changes) {
    if (c.changed !== undefined) out.push(c);
    else walk(c.field, c.from, c.to);
  }
  return out;
}
