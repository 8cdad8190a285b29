// A form described as data: each field names its place in the request body as a dotted path
// (`git_repository.url`, `ports.0.internal_port`). Empty fields are not sent, so the API applies
// the contract's defaults (shown as placeholders); the API's validation messages are shown next
// to the field they name, the others above the buttons.
import { useId, useState, type FormEvent } from 'react';
import { ApiError } from './api.ts';
import { ErrorNote } from './ui.tsx';

export interface FieldSpec {
  name: string;
  label: string;
  /** `date`: a day, sent as midnight UTC (`2027-06-30T00:00:00Z`) */
  kind?: 'text' | 'number' | 'select' | 'checkbox' | 'textarea' | 'password' | 'url' | 'date';
  options?: ReadonlyArray<string | { value: string; label: string }>;
  /** a select's empty choice, when it means something ("none") rather than the default */
  empty?: string;
  /** the contract's default, shown as a placeholder and sent when the field is left empty only by the API */
  hint?: string;
  required?: boolean;
  help?: string;
}

export type FormValues = Record<string, string | boolean>;

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let at: any = target;
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    const key: string | number = /^\d+$/.test(part) ? Number(part) : part;
    if (last) at[key] = value;
    else at = at[key] ??= /^\d+$/.test(parts[i + 1]!) ? [] : {};
  });
}

function getPath(source: unknown, path: string): unknown {
  return path.split('.').reduce<any>((at, part) => (at == null ? undefined : at[/^\d+$/.test(part) ? Number(part) : part]), source);
}

/** the request body from the filled fields */
function bodyOf(fields: FieldSpec[], values: FormValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.kind === 'checkbox') {
      if (typeof v === 'boolean') setPath(body, f.name, v);
      continue;
    }
    if (v === undefined || v === '') continue;
    if (f.kind === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(String(v))) setPath(body, f.name, `${v}T00:00:00Z`);
    else setPath(body, f.name, f.kind === 'number' && /^-?\d+$/.test(String(v)) ? Number(v) : v);
  }
  return body;
}

/**
 * The body of an edit: only the top-level members with a changed field, each whole (a changed
 * `git_repository.branch` sends the whole `git_repository`), since a PUT changes what is sent.
 */
function changedBodyOf(fields: FieldSpec[], initial: FormValues, values: FormValues, always: string[] = []): Record<string, unknown> {
  const top = (name: string) => name.split('.')[0]!;
  const changed = new Set([...always, ...fields.filter((f) => (values[f.name] ?? '') !== (initial[f.name] ?? '')).map((f) => top(f.name))]);
  return bodyOf(fields.filter((f) => changed.has(top(f.name))), values);
}

/** initial values of an edit form from the resource as the API returned it */
export function valuesOf(fields: FieldSpec[], resource: unknown): FormValues {
  const out: FormValues = {};
  for (const f of fields) {
    const v = getPath(resource, f.name);
    if (v === undefined || v === null || (typeof v === 'object')) continue;
    out[f.name] = f.kind === 'checkbox' ? Boolean(v) : f.kind === 'date' ? String(v).slice(0, 10) : String(v);
  }
  return out;
}

/** which field a problem is about: the same path, or the closest enclosing one */
function fieldFor(fields: FieldSpec[], problemField: string | null): string | null {
  if (!problemField) return null;
  const exact = fields.find((f) => f.name === problemField);
  if (exact) return exact.name;
  const inside = fields.filter((f) => problemField.startsWith(f.name + '.') || f.name.startsWith(problemField + '.'));
  return inside[0]?.name ?? null;
}

export function ResourceForm(props: {
  title: string; fields: FieldSpec[]; submitLabel: string; initial?: FormValues;
  /** top-level members an edit sends even unchanged (a PUT that requires them) */
  alwaysSend?: string[];
  onSubmit: (body: Record<string, unknown>) => Promise<unknown>; onCancel?: () => void;
}) {
  const [values, setValues] = useState<FormValues>(props.initial ?? {});
  const [busy, setBusy] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<unknown>(null);
  const idBase = useId();

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setFieldErrors({});
    setGeneral(null);
    try {
      await props.onSubmit(props.initial ? changedBodyOf(props.fields, props.initial, values, props.alwaysSend) : bodyOf(props.fields, values));
    } catch (err) {
      if (err instanceof ApiError) {
        const byField: Record<string, string> = {};
        const rest: string[] = [];
        for (const p of err.problems) {
          const f = fieldFor(props.fields, p.field);
          // "git_repository.url must be…" under its field reads "Git repository URL must be…"
          const label = props.fields.find((x) => x.name === f)?.label;
          const words = p.field && label && p.message.startsWith(p.field) ? label + p.message.slice(p.field.length) : p.message;
          if (f && !byField[f]) byField[f] = words;
          else rest.push(p.message);
        }
        setFieldErrors(byField);
        if (rest.length > 0) setGeneral(new ApiError(err.status, err.code, rest.join(' '), []));
      } else setGeneral(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="card form" onSubmit={submit} aria-label={props.title} noValidate>
      <h3>{props.title}</h3>
      {props.fields.map((f) => {
        const id = `${idBase}-${f.name}`;
        const err = fieldErrors[f.name];
        const v = values[f.name];
        const set = (nv: string | boolean) => setValues((old) => ({ ...old, [f.name]: nv }));
        const common = {
          id, name: f.name, 'aria-required': f.required ? true : undefined, 'aria-invalid': err ? true : undefined, 'aria-describedby': err ? `${id}-error` : undefined,
        } as const;
        return (
          <div className={`field${err ? ' invalid' : ''}`} key={f.name}>
            <div className="label-row">
              <label htmlFor={id}>{f.label}</label>
              {f.required && <span className="req" aria-hidden="true">required</span>}
            </div>
            {f.kind === 'select' ? (
              <select {...common} value={typeof v === 'string' ? v : ''} onChange={(e) => set(e.target.value)}>
                <option value="">{f.empty ?? (f.hint ? `default (${f.hint})` : 'choose…')}</option>
                {f.options?.map((o) => typeof o === 'string'
                  ? <option key={o} value={o}>{o}</option>
                  : <option key={o.value} value={o.value}>{o.label}</option>)}
              </select>
            ) : f.kind === 'checkbox' ? (
              <input {...common} type="checkbox" checked={v === true || (v === undefined && f.hint === 'true')} onChange={(e) => set(e.target.checked)} />
            ) : f.kind === 'textarea' ? (
              <textarea {...common} rows={3} placeholder={f.hint} value={typeof v === 'string' ? v : ''} onChange={(e) => set(e.target.value)} />
            ) : (
              <input
                {...common} type={f.kind === 'number' ? 'number' : f.kind === 'password' ? 'password' : f.kind === 'url' ? 'url' : f.kind === 'date' ? 'date' : 'text'}
                autoComplete={f.kind === 'password' ? 'new-password' : 'off'}
                placeholder={f.hint} value={typeof v === 'string' ? v : ''} onChange={(e) => set(e.target.value)}
              />
            )}
            {f.help && <small className="muted">{f.help}</small>}
            {err && <small id={`${id}-error`} className="field-error" role="alert">{err}</small>}
          </div>
        );
      })}
      <ErrorNote error={general} />
      <div className="row">
        {props.onCancel && <button type="button" onClick={props.onCancel}>Cancel</button>}
        <button type="submit" className="primary" disabled={busy}>{busy ? 'Saving…' : props.submitLabel}</button>
      </div>
    </form>
  );
}
