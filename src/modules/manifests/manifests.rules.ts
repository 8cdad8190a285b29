// The plan, pure: a document compared with what exists (read into the same shapes by state.ts)
// gives, per resource, create / update (field by field) / unchanged / delete (with prune, only
// what this file owns), in the order the apply runs them (deletes, then the project, each
// environment, its rule and variables, its services and what hangs on them). Secrets are compared
// by SHA-256 fingerprint of the values and shown only as `changed` (decision 0745). A resource the
// file names that another file owns stops the plan (409 naming that file).
import { sha256Hex } from '../../lib/crypto.ts';
import { conflict } from '../../lib/errors.ts';
import { SERVICE_KINDS, type DatabaseProperty, type EnvironmentDoc, type FieldChange, type ManifestDoc, type PlannedChange, type ServiceEntry, type ServiceKind } from './manifest.schemas.ts';

export interface CurrentService {
  id: string; kind: ServiceKind; name: string;
  /** the service in the document's form (state.ts), nulls kept */
  entry: Record<string, unknown>;
  variables: Record<string, { id: string; value: string }>;
  secrets: Record<string, { id: string; fingerprint: string }>;
  /** stored advanced settings that differ from the defaults */
  advanced: Record<string, unknown> | null;
  domains: Array<{ id: string; domain: string; generate_certificate: boolean; use_cdn: boolean }> | null;
}
export interface CurrentEnvironment {
  id: string; name: string; mode: string; cluster: string; auto_preview: boolean;
  rule: { id: string; fields: Record<string, unknown> } | null;
  variables: Record<string, { id: string; value: string }>;
  secrets: Record<string, { id: string; fingerprint: string }>;
  services: CurrentService[];
}
export interface CurrentState { project: { id: string; name: string; description: string } | null; environments: CurrentEnvironment[] }

/** a secret's value as the apply will write it, or `keep` (an env: reference without a value, the secret exists) */
export type ResolvedSecret = { value: string; fingerprint: string } | { keep: true };

/** a `from_database` reference of the document, checked (database-refs.ts): its database's id when it exists, and then its value */
export interface DatabaseRef {
  name: string; property: DatabaseProperty; secret: boolean;
  databaseId: string | null;
  /** null: the database is created by this apply (resolved when the variable's step runs) */
  value: string | null;
}

/** where a variable, secret, setting or domain belongs: an environment, or a service of it */
export interface OwnerRef { environment: string; service?: { kind: ServiceKind; name: string } }

type Op =
  | { t: 'project'; name: string; description: string | null | undefined }
  | { t: 'environment'; environment: string; fields: Record<string, unknown> }
  | { t: 'rule'; environment: string; body: Record<string, unknown> }
  // `ref`: a value from a database's credentials (database-refs.ts); with ref.value null, resolved when the step runs
  | { t: 'variable'; owner: OwnerRef; key: string; value: string | null; ref?: DatabaseRef }
  | { t: 'secret'; owner: OwnerRef; key: string; secret: ResolvedSecret; ref?: DatabaseRef }
  | { t: 'service'; environment: string; kind: ServiceKind; name: string; body: Record<string, unknown> }
  | { t: 'advanced'; owner: OwnerRef; patch: Record<string, unknown> }
  | { t: 'domain'; owner: OwnerRef; body: { domain: string; generate_certificate?: boolean; use_cdn?: boolean } }
  | { t: 'delete'; what: 'environment' | 'service' | 'variable' | 'domain'; kind?: ServiceKind; serviceId?: string };

export interface Step { change: PlannedChange; op: Op }

export interface PlanInput {
  doc: ManifestDoc; current: CurrentState; file: string; prune: boolean;
  /** resource id → the file that owns it */
  owners: ReadonlyMap<string, string>;
  /** `<owner path>.secrets.<KEY>` → the resolved secret */
  secrets: ReadonlyMap<string, ResolvedSecret>;
  /** `<owner path>.variables.<KEY>` → its database reference, checked (database-refs.ts) */
  databaseRefs: ReadonlyMap<string, DatabaseRef>;
}

const KIND_LABEL: Record<ServiceKind, string> = { applications: 'application', containers: 'container', databases: 'database', jobs: 'job', workflows: 'workflow' };
const EXTRAS = ['variables', 'secrets', 'advanced_settings', 'custom_domains'];

/** what the plan compares a secret by (never stored nor returned) */
export const fingerprint = sha256Hex;

/** `desired` holds for `current`: every member desired equals the current one (members not written keep their value) */
export function satisfies(desired: unknown, current: unknown): boolean {
  if (desired === null || desired === undefined) return current === null || current === undefined;
  if (Array.isArray(desired)) {
    return Array.isArray(current) && current.length === desired.length && desired.every((d, i) => satisfies(d, current[i]));
  }
  if (typeof desired === 'object') {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return false;
    return Object.entries(desired).every(([k, v]) => satisfies(v, (current as Record<string, unknown>)[k]));
  }
  return desired === current;
}

/** the members of `desired` that `current` does not satisfy, as { field, from, to } */
export function fieldChanges(desired: Record<string, unknown>, current: Record<string, unknown> | null): FieldChange[] {
  const out: FieldChange[] = [];
  for (const [field, to] of Object.entries(desired)) {
    if (to === undefined) continue;
    const from = current ? current[field] : undefined;
    if (!current || !satisfies(to, from)) out.push({ field, from: from ?? null, to });
  }
  return out;
}

const byLowerName = <T extends { name: string }>(items: readonly T[], name: string) => items.find((i) => i.name.toLowerCase() === name.toLowerCase());

export function plan(input: PlanInput): Step[] {
  const { doc, current, file, prune, owners } = input;
  const deletes: Step[] = [];
  const steps: Step[] = [];
  // an environment's steps that need its databases (variables from their credentials): after its services
  const afterServices: Step[] = [];
  const step = (change: Omit<PlannedChange, 'changes'> & { changes?: FieldChange[] }, op: Op) => {
    const full = { ...change, changes: change.changes ?? [] };
    if (full.action !== 'delete') checkOwner(owners, full.id, full.path, file);
    const needsDatabase = (op.t === 'variable' || op.t === 'secret') && op.ref !== undefined;
    (full.action === 'delete' ? deletes : needsDatabase ? afterServices : steps).push({ change: full, op });
  };
  const owned = (id: string) => owners.get(id) === file;

  // project
  const project = current.project;
  const projectChanges = fieldChanges({ name: doc.project.name, description: doc.project.description ?? undefined }, project ? { name: project.name, description: project.description } : null);
  step({ action: !project ? 'create' : projectChanges.length ? 'update' : 'unchanged', kind: 'project', path: 'project', name: doc.project.name, id: project?.id ?? null, changes: projectChanges },
    { t: 'project', name: doc.project.name, description: doc.project.description });

  const envDocs = doc.environments ?? {};
  for (const [envName, envDoc] of Object.entries(envDocs)) {
    const env = byLowerName(current.environments, envName) ?? null;
    const path = `environments.${envName}`;
    const fields = { ...(envDoc.mode ? { mode: envDoc.mode } : {}), ...(envDoc.cluster ? { cluster: envDoc.cluster } : {}), ...(envDoc.auto_preview !== undefined ? { auto_preview: envDoc.auto_preview } : {}) };
    const envChanges = fieldChanges(fields, env ? { mode: env.mode, cluster: env.cluster, auto_preview: env.auto_preview } : null);
    if (env && envChanges.some((c) => c.field === 'cluster')) throw conflict(`${path}.cluster: an environment does not move to another cluster; clone it instead`);
    step({ action: !env ? 'create' : envChanges.length ? 'update' : 'unchanged', kind: 'environment', path, name: envName, id: env?.id ?? null, changes: envChanges },
      { t: 'environment', environment: envName, fields });
    if (envDoc.deployment_rule) {
      const ruleChanges = fieldChanges(envDoc.deployment_rule as Record<string, unknown>, env?.rule?.fields ?? null);
      step({ action: !env ? 'create' : ruleChanges.length ? 'update' : 'unchanged', kind: 'deployment_rule', path: `${path}.deployment_rule`, name: envName, id: env?.rule?.id ?? null, changes: ruleChanges },
        { t: 'rule', environment: envName, body: envDoc.deployment_rule as Record<string, unknown> });
    }
    planVariables(input, step, { environment: envName }, path, envDoc, env);

    for (const kind of SERVICE_KINDS) {
      for (const [name, entry] of Object.entries(envDoc[kind] ?? {})) {
        const svc = env?.services.find((s) => s.name.toLowerCase() === name.toLowerCase()) ?? null;
        const spath = `${path}.${kind}.${name}`;
        if (svc && svc.kind !== kind) throw conflict(`${spath}: ${name} exists in this environment as a ${KIND_LABEL[svc.kind]}; a service does not change type`);
        const body = Object.fromEntries(Object.entries(entry).filter(([k]) => !EXTRAS.includes(k)));
        const changes = fieldChanges(body, svc?.entry ?? null);
        step({ action: !svc ? 'create' : changes.length ? 'update' : 'unchanged', kind: KIND_LABEL[kind], path: spath, name, id: svc?.id ?? null, changes: svc ? changes : [] },
          { t: 'service', environment: envName, kind, name, body });
        const owner: OwnerRef = { environment: envName, service: { kind, name } };
        planVariables(input, step, owner, spath, entry, svc);
        if (entry.advanced_settings) {
          const adv = fieldChanges(entry.advanced_settings, svc ? svc.advanced ?? {} : null);
          step({ action: !svc ? 'create' : adv.length ? 'update' : 'unchanged', kind: 'advanced_settings', path: `${spath}.advanced_settings`, name, id: svc?.id ?? null, changes: svc ? adv : [] },
            { t: 'advanced', owner, patch: Object.fromEntries(adv.map((c) => [c.field, c.to])) });
        }
        planDomains(step, owner, spath, entry, svc, prune, owned);
      }
    }
    steps.push(...afterServices.splice(0));
    // services this file owns and no longer names
    if (env && prune) {
      for (const svc of env.services) {
        if (owned(svc.id) && !Object.keys(envDoc[svc.kind] ?? {}).some((n) => n.toLowerCase() === svc.name.toLowerCase())) {
          step({ action: 'delete', kind: KIND_LABEL[svc.kind], path: `${path}.${svc.kind}.${svc.name}`, name: svc.name, id: svc.id }, { t: 'delete', what: 'service', kind: svc.kind });
        }
      }
    }
  }
  if (prune) {
    for (const env of current.environments) {
      if (owned(env.id) && !Object.keys(envDocs).some((n) => n.toLowerCase() === env.name.toLowerCase())) {
        step({ action: 'delete', kind: 'environment', path: `environments.${env.name}`, name: env.name, id: env.id }, { t: 'delete', what: 'environment' });
      }
    }
  }
  return [...deletes, ...steps];
}

type StepFn = (change: Omit<PlannedChange, 'changes'> & { changes?: FieldChange[] }, op: Op) => void;

function planVariables(input: PlanInput, step: StepFn, owner: OwnerRef, path: string,
  entry: EnvironmentDoc | ServiceEntry, existing: CurrentEnvironment | CurrentService | null): void {
  const variables = entry.variables ?? {};
  const secretKeys = new Set(Object.keys(entry.secrets ?? {}));
  for (const key of Object.keys(variables)) {
    const ref = input.databaseRefs.get(`${path}.variables.${key}`);
    if (ref?.secret) { secretKeys.add(key); planDatabaseSecret(step, owner, `${path}.variables.${key}`, key, ref, existing); continue; }
    const value = ref ? ref.value : variables[key] as string;
    const cur = existing?.variables[key];
    if (existing?.secrets[key]) throw conflict(`${path}.variables.${key}: ${key} is a secret here; a secret does not become a plain variable (remove it first)`);
    const action = !cur ? 'create' : value !== null && cur.value === value ? 'unchanged' : 'update';
    step({ action, kind: 'variable', path: `${path}.variables.${key}`, name: key, id: cur?.id ?? null, changes: action === 'update' ? [{ field: 'value', from: cur!.value, to: value ?? variables[key] }] : [] },
      { t: 'variable', owner, key, value, ...(ref ? { ref } : {}) });
  }
  for (const key of Object.keys(entry.secrets ?? {})) {
    const cur = existing?.secrets[key];
    if (existing?.variables[key]) throw conflict(`${path}.secrets.${key}: ${key} is a plain variable here; a variable does not become a secret (remove it first)`);
    const resolved = input.secrets.get(`${path}.secrets.${key}`)!;
    const changed = 'keep' in resolved ? false : !cur || cur.fingerprint !== resolved.fingerprint;
    const action = !cur ? 'create' : changed ? 'update' : 'unchanged';
    step({ action, kind: 'secret', path: `${path}.secrets.${key}`, name: key, id: cur?.id ?? null, changes: [{ field: 'value', changed }] },
      { t: 'secret', owner, key, secret: resolved });
  }
  if (!existing || !input.prune) return;
  for (const [key, v] of Object.entries(existing.variables)) {
    if (!(key in variables) && input.owners.get(v.id) === input.file) {
      step({ action: 'delete', kind: 'variable', path: `${path}.variables.${key}`, name: key, id: v.id }, { t: 'delete', what: 'variable' });
    }
  }
  for (const [key, v] of Object.entries(existing.secrets)) {
    if (!secretKeys.has(key) && input.owners.get(v.id) === input.file) {
      step({ action: 'delete', kind: 'secret', path: `${path}.secrets.${key}`, name: key, id: v.id }, { t: 'delete', what: 'variable' });
    }
  }
}

/** a database's USER, PASSWORD or URL, written under `variables` and kept as a secret: compared by fingerprint, never shown */
function planDatabaseSecret(step: StepFn, owner: OwnerRef, path: string, key: string, ref: DatabaseRef, existing: CurrentEnvironment | CurrentService | null): void {
  const cur = existing?.secrets[key];
  if (existing?.variables[key]) throw conflict(`${path}: ${key} is a plain variable here; a database's ${ref.property} is kept as a secret (remove the variable first)`);
  const changed = !cur || ref.value === null || cur.fingerprint !== fingerprint(ref.value);
  step({ action: !cur ? 'create' : changed ? 'update' : 'unchanged', kind: 'secret', path, name: key, id: cur?.id ?? null, changes: [{ field: 'value', changed }] },
    { t: 'secret', owner, key, secret: ref.value === null ? { keep: true } : { value: ref.value, fingerprint: fingerprint(ref.value) }, ref });
}

function planDomains(step: StepFn, owner: OwnerRef, path: string, entry: ServiceEntry, svc: CurrentService | null, prune: boolean, owned: (id: string) => boolean): void {
  const wanted = entry.custom_domains ?? [];
  for (const d of wanted) {
    const cur = svc?.domains?.find((x) => x.domain === d.domain.toLowerCase()) ?? null;
    const changes = cur ? fieldChanges({ generate_certificate: d.generate_certificate, use_cdn: d.use_cdn }, cur) : [];
    step({ action: !cur ? 'create' : changes.length ? 'update' : 'unchanged', kind: 'custom_domain', path: `${path}.custom_domains.${d.domain}`, name: d.domain, id: cur?.id ?? null, changes },
      { t: 'domain', owner, body: d });
  }
  if (!svc?.domains || !prune) return;
  for (const d of svc.domains) {
    if (owned(d.id) && !wanted.some((w) => w.domain.toLowerCase() === d.domain)) {
      step({ action: 'delete', kind: 'custom_domain', path: `${path}.custom_domains.${d.domain}`, name: d.domain, id: d.id }, { t: 'delete', what: 'domain', kind: owner.service!.kind, serviceId: svc.id });
    }
  }
}

function checkOwner(owners: ReadonlyMap<string, string>, id: string | null, path: string, file: string): void {
  if (!id) return;
  const owner = owners.get(id);
  if (owner !== undefined && owner !== file) throw conflict(`${path} is owned by ${owner}; change it there, or remove it from that file first`, 'owned_by_another_file');
}

export function summarize(changes: readonly PlannedChange[]): { create: number; update: number; unchanged: number; delete: number } {
  const s = { create: 0, update: 0, unchanged: 0, delete: 0 };
  for (const c of changes) s[c.action]++;
  return s;
}
