// A service's advanced settings (applications, containers, jobs): every key grouped by its first
// segments with its value in an input of its type, the default when the value differs, and whether
// the engine running berth applies it (…/advancedSettings/engineSupport: when not, why). Saving
// sends only the keys that changed; a 400 is shown next to the key it names. The inputs' kinds and
// the keys' meanings come from berth's OpenAPI document (console/src/settings.ts).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ApiError, json } from '../api.ts';
import { useCaps } from '../caps.ts';
import type { PageProps } from '../page-props.ts';
import {
  changesOf, draftOf, grouped, groupTitle, guessedSpec, isIngressKey, sameValue, shown, specsFromOpenApi,
  type Draft, type SettingSpec, type Settings, type SettingsKind, type SettingValue,
} from '../settings.ts';
import type { ServiceKind } from '../specs.ts';
import { ErrorNote, Frame, Loading } from '../ui.tsx';
import type { components } from '../../../src/client/api-types.ts';
import { useEnvironment, useEnvironmentCrumbs } from './Environment.tsx';

type EngineSupport = components['schemas']['AdvancedSettingsEngineSupport'];
type Support = EngineSupport['results'][number];

const DEFAULTS_PATH: Record<SettingsKind, string> = {
  application: '/defaultApplicationAdvancedSettings', container: '/defaultContainerAdvancedSettings', job: '/defaultJobAdvancedSettings',
};

export function AdvancedSettingsPage(p: PageProps & { kind: ServiceKind; id: string }) {
  const qc = useQueryClient();
  const kind = p.kind === 'database' ? null : p.kind;
  const base = `/${p.kind}/${p.id}`;
  const service = useQuery({ queryKey: ['service', p.kind, p.id], queryFn: () => json<{ name: string; environment: { id: string } }>('GET', base) });
  const envId = service.data?.environment.id;
  const env = useEnvironment(envId);
  const caps = useCaps(env.data?.organization.id);
  const settings = useQuery({ queryKey: ['advanced-settings', p.kind, p.id], enabled: Boolean(kind), queryFn: () => json<Settings>('GET', `${base}/advancedSettings`) });
  const support = useQuery({ queryKey: ['advanced-settings-support', p.kind, p.id], enabled: Boolean(kind), queryFn: () => json<EngineSupport>('GET', `${base}/advancedSettings/engineSupport`) });
  const defaults = useQuery({ queryKey: ['advanced-settings-defaults', p.kind], enabled: Boolean(kind), staleTime: Infinity, queryFn: () => json<Settings>('GET', DEFAULTS_PATH[kind!]) });
  // the schema's types, enums and meanings; without it the inputs follow the values
  const openapi = useQuery({ queryKey: ['openapi'], enabled: Boolean(kind), staleTime: Infinity, queryFn: () => json<unknown>('GET', '/openapi.json') });
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const current = settings.data;
  const keys = useMemo(() => Object.keys(current ?? {}), [current]);
  const specs = useMemo(() => {
    const fromDoc = kind && openapi.data ? specsFromOpenApi(openapi.data, kind) : {};
    return Object.fromEntries(keys.map((k) => [k, fromDoc[k] ?? guessedSpec(current![k] ?? null, defaults.data?.[k] ?? null)]));
  }, [kind, openapi.data, keys, current, defaults.data]);
  const byKey = useMemo(() => new Map((support.data?.results ?? []).map((r) => [r.key, r])), [support.data]);

  const name = service.data?.name ?? '…';
  const envCrumbs = useEnvironmentCrumbs(envId, name);
  const crumbs = [...envCrumbs.slice(0, -1), { label: name, href: `/ui/services/${p.kind}/${p.id}` }, { label: 'Advanced settings' }];
  const ready = current && defaults.data && !openapi.isPending;

  async function save(e: FormEvent) {
    e.preventDefault();
    setSaved(null);
    setGeneral(null);
    const { body, errors: invalid } = changesOf(keys, specs, current!, defaults.data!, drafts);
    setErrors(invalid);
    if (Object.keys(invalid).length > 0) return;
    const changed = Object.keys(body);
    if (changed.length === 0) {
      setSaved('Nothing to save: no setting differs from its saved value.');
      return;
    }
    setBusy(true);
    try {
      const next = await json<Settings>('PUT', `${base}/advancedSettings`, body);
      qc.setQueryData(['advanced-settings', p.kind, p.id], next);
      setDrafts({});
      const later = changed.filter((k) => !isIngressKey(k)).length;
      setSaved(`Saved ${changed.join(', ')}.${changed.length > later ? ' Ingress settings take effect at once.' : ''}${later > 0 ? ' The others take effect at the next deployment.' : ''}`);
      void qc.invalidateQueries({ queryKey: ['status', p.kind, p.id] });
    } catch (err) {
      if (!(err instanceof ApiError)) {
        setGeneral(err);
        return;
      }
      const next: Record<string, string> = {};
      const rest: string[] = [];
      for (const problem of err.problems) {
        const key = problem.field && keys.includes(problem.field) ? problem.field : keys.find((k) => problem.message.startsWith(`${k}:`) || problem.message.startsWith(`${k} `));
        if (key && !next[key]) next[key] = problem.message;
        else rest.push(problem.message);
      }
      setErrors(next);
      if (rest.length > 0 || Object.keys(next).length === 0) setGeneral(rest.length > 0 ? new ApiError(err.status, err.code, rest.join(' '), []) : err);
    } finally {
      setBusy(false);
    }
  }

  if (!kind) {
    return (
      <Frame crumbs={crumbs} onSignOut={p.signOut} engine={p.engine}>
        <h1>Advanced settings</h1><p className="empty">Databases have no advanced settings.</p>
      </Frame>
    );
  }
  const dirty = keys.filter((k) => drafts[k] !== undefined && drafts[k] !== draftOf(specs[k]!, current![k] ?? null));
  return (
    <Frame crumbs={crumbs} onSignOut={p.signOut} engine={p.engine}>
      <h1>Advanced settings <span className="muted small">of <Link href={`/ui/services/${p.kind}/${p.id}`}>{name}</Link></span></h1>
      <ErrorNote error={service.error ?? settings.error ?? defaults.error} />
      {support.data && current && <EngineNote support={support.data} total={keys.length} />}
      <ErrorNote error={support.error} />
      {caps.known && !caps.canWrite && <p className="note">Read-only: your role can look at these settings but not change them.</p>}
      {!ready && !settings.error && <Loading />}
      {ready && (
        <form onSubmit={save} aria-label="Advanced settings" noValidate>
          <fieldset className="plain" disabled={!caps.canWrite || busy}>
            {grouped(keys).map(({ group, keys: inGroup }) => (
              <section key={group} aria-label={groupTitle(group)} className="settings-group">
                <h2>{groupTitle(group)} <code className="small muted">{group}.*</code></h2>
                <table className="settings">
                  <thead><tr><th>Setting</th><th>Value</th><th>{support.data ? `${support.data.engine} engine` : 'Engine'}</th></tr></thead>
                  <tbody>
                    {inGroup.map((key) => (
                      <SettingRow
                        key={key} name={key} spec={specs[key]!} value={current[key] ?? null} fallback={defaults.data[key] ?? null}
                        support={byKey.get(key)} engine={support.data?.engine} draft={drafts[key]} error={errors[key]} dirty={dirty.includes(key)}
                        onChange={(d) => { setDrafts((old) => ({ ...old, [key]: d })); setErrors(({ [key]: _, ...rest }) => rest); setSaved(null); }}
                      />
                    ))}
                  </tbody>
                </table>
              </section>
            ))}
          </fieldset>
          {caps.canWrite && (
            <div className="savebar row">
              <button type="submit" className="primary" disabled={busy}>{busy ? 'Saving…' : 'Save'}</button>
              <button type="button" disabled={busy || dirty.length === 0} onClick={() => { setDrafts({}); setErrors({}); setGeneral(null); }}>Discard changes</button>
              <span className="muted" aria-live="polite">{dirty.length === 0 ? 'No change' : `${dirty.length} changed: ${dirty.join(', ')}`}</span>
            </div>
          )}
          <ErrorNote error={general} />
          {saved && <p role="status" className="note">{saved}</p>}
        </form>
      )}
    </Frame>
  );
}

/** which engine, how many keys it leaves aside, and when a change takes effect */
function EngineNote({ support, total }: { support: EngineSupport; total: number }) {
  const notApplied = support.results.filter((r) => !r.applied).length;
  return (
    <div className="note" role="note" aria-label="Engine">
      <p>
        This berth runs services on the <strong>{support.engine}</strong> engine, which {notApplied === 0
          ? `applies all ${total} settings below.`
          : <>does not apply <strong>{notApplied}</strong> of the {total} settings below (each marked, with why).</>}
        {' '}What it applies takes effect at the service's next deployment, except the <code>network.ingress.*</code> settings, which take effect at once.
      </p>
      <p className="small muted">Every setting is stored and validated whatever the engine; <code>docs/advanced-settings.md</code> lists what each engine applies.</p>
    </div>
  );
}

function SettingRow(props: {
  name: string; spec: SettingSpec; value: SettingValue; fallback: SettingValue; support: Support | undefined; engine: string | undefined;
  draft: Draft | undefined; error: string | undefined; dirty: boolean; onChange: (d: Draft) => void;
}) {
  const { name, spec, error } = props;
  const id = `setting-${name}`;
  const draft = props.draft ?? draftOf(spec, props.value);
  const common = { id, name, 'aria-invalid': error ? true : undefined, 'aria-describedby': error ? `${id}-error` : undefined } as const;
  const text = typeof draft === 'string' ? draft : '';
  return (
    <tr data-setting={name} className={error ? 'invalid' : undefined}>
      <td className="setting">
        <label htmlFor={id}>{name}</label>
        {props.dirty && <span className="badge busy">changed</span>}
        {spec.meaning && <small className="muted meaning">{spec.meaning}</small>}
      </td>
      <td className={`value field${error ? ' invalid' : ''}`}>
        {spec.input === 'boolean' ? (
          <input {...common} type="checkbox" checked={draft === true} onChange={(e) => props.onChange(e.target.checked)} />
        ) : spec.input === 'enum' ? (
          <select {...common} value={text} onChange={(e) => props.onChange(e.target.value)}>
            {spec.nullable && <option value="">none (null)</option>}
            {(spec.options ?? []).map((o) => <option key={o} value={o}>{o}</option>)}
          </select>
        ) : spec.input === 'array' || spec.input === 'map' ? (
          <textarea {...common} className="code" rows={2} spellCheck={false} placeholder={spec.nullable ? 'null' : undefined} value={text} onChange={(e) => props.onChange(e.target.value)} />
        ) : (
          <input
            {...common} type={spec.input === 'integer' ? 'number' : 'text'} inputMode={spec.input === 'integer' ? 'numeric' : undefined}
            min={spec.minimum} max={spec.maximum} step={spec.input === 'integer' ? 1 : undefined} autoComplete="off" spellCheck={false}
            placeholder={spec.nullable ? 'null' : undefined} value={text} onChange={(e) => props.onChange(e.target.value)}
          />
        )}
        {!sameValue(props.value, props.fallback) && <small className="muted default">default: <code>{shown(props.fallback)}</code></small>}
        {spec.input === 'array' || spec.input === 'map' ? <small className="muted">JSON {spec.input === 'array' ? 'array of strings' : 'object of strings'}</small> : null}
        {error && <small id={`${id}-error`} className="field-error" role="alert">{error}</small>}
      </td>
      <td className="engine">
        {!props.support ? <span className="muted">—</span> : props.support.applied ? (
          <><span className="badge ok">applied</span> <small className="muted">{isIngressKey(name) ? 'at once' : 'at the next deployment'}</small></>
        ) : (
          <><span className="badge warn">not applied</span> <small className="reason">by the {props.engine} engine: {props.support.reason}</small></>
        )}
      </td>
    </tr>
  );
}
