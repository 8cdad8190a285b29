// Apply a berth.yaml (issue 41): to a project (/ui/projects/:id/apply) or, for a project the
// document names and the organization lacks, to the organization (/ui/organizations/:id/apply).
// The text is pasted, picked from a file or started from the project's export; the values of its
// `env:NAME` secret references are asked for (those the text names, and those a refusal says are
// missing: never stored by the console). "Plan" asks the server for the plan (dry run) and shows it
// per resource: create, update field by field (from → to; secrets only as changed or not), delete,
// and the unchanged ones folded; "Confirm apply" applies that same text with the same options and
// shows what was done. A refused document lists every problem as `line:column — message`.
// Everything is React text: nothing from the document or the server is rendered as HTML.
import { useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState, type ChangeEvent } from 'react';
import { Link } from 'wouter';
import { useCaps } from '../caps.ts';
import {
  applyManifest, envReferences, fetchExport, fieldLines, ManifestRefused, missingValues, problemText, valueText,
  type ApplyBody, type ApplyResult, type ApplyTarget, type ManifestProblem, type PlannedChange,
} from '../manifest.ts';
import type { PageProps } from '../page-props.ts';
import { ErrorNote, Frame, Loading, Status } from '../ui.tsx';
import { useOrganization } from './Organization.tsx';
import { useProject } from './Project.tsx';

const ACTION_TONE: Record<PlannedChange['action'], string> = { create: 'RUNNING', update: 'BUSY', delete: 'FAILED', unchanged: 'STOPPED' };
const ACTION_DONE: Record<PlannedChange['action'], string> = { create: 'created', update: 'updated', delete: 'deleted', unchanged: 'unchanged' };

export function ApplyPage(p: PageProps & ({ projectId: string } | { orgId: string })) {
  const projectId = 'projectId' in p ? p.projectId : undefined;
  const project = useProject(projectId);
  const orgId = 'orgId' in p ? p.orgId : project.data?.organization.id;
  const org = useOrganization(orgId);
  const caps = useCaps(orgId);
  const target: ApplyTarget = projectId ? { projectId } : { orgId: orgId! };
  const crumbs = [
    { label: 'Organizations', href: '/ui' },
    { label: org.data?.name ?? '…', href: orgId ? `/ui/organizations/${orgId}` : undefined },
    ...(projectId ? [{ label: project.data?.name ?? '…', href: `/ui/projects/${projectId}` }] : []),
    { label: 'Apply berth.yaml' },
  ];
  return (
    <Frame crumbs={crumbs} onSignOut={p.signOut} engine={p.engine}>
      <h1>Apply a berth.yaml {projectId ? <span className="muted small">to {project.data?.name ?? '…'}</span> : <span className="muted small">to {org.data?.name ?? '…'}</span>}</h1>
      <p className="muted">
        {projectId
          ? 'The plan shows what the file would create, change and delete in this project; nothing changes until you confirm it.'
          : 'The project the file names is created in this organization when it has none by that name. The plan shows every change first; nothing changes until you confirm it.'}
        {' '}Secrets are references (<code>{'{ from: env:NAME }'}</code> or <code>{'{ from: secret:NAME }'}</code>), never values.
      </p>
      <ErrorNote error={project.error ?? org.error} />
      {!caps.known && <Loading />}
      {caps.known && !caps.canWrite && <p className="note">Your role can look but not apply a berth.yaml here: it needs the DevOps role or above.</p>}
      {caps.known && caps.canWrite && orgId && <ApplyForm target={target} />}
    </Frame>
  );
}

type Planned = { key: string; result: ApplyResult };

function ApplyForm({ target }: { target: ApplyTarget }) {
  const qc = useQueryClient();
  const id = useId();
  const [text, setText] = useState('');
  const [file, setFile] = useState('berth.yaml');
  const [prune, setPrune] = useState(false);
  const [deploy, setDeploy] = useState(false);
  const [values, setValues] = useState<Record<string, string>>({});
  const [asked, setAsked] = useState<string[]>([]);
  const [plan, setPlan] = useState<Planned | null>(null);
  const [applied, setApplied] = useState<ApplyResult | null>(null);
  const [problems, setProblems] = useState<ManifestProblem[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<'plan' | 'apply' | 'load' | null>(null);

  const names = useMemo(() => [...new Set([...envReferences(text), ...asked])], [text, asked]);
  const body: ApplyBody = useMemo(() => {
    const secretValues = Object.fromEntries(names.filter((n) => values[n]).map((n) => [n, values[n]!]));
    return {
      document: text, file: file.trim() || 'berth.yaml', prune, deploy,
      ...(Object.keys(secretValues).length > 0 ? { secret_values: secretValues } : {}),
    };
  }, [text, file, prune, deploy, values, names]);
  const key = JSON.stringify(body);
  const current = plan !== null && plan.key === key;

  const run = async (dryRun: boolean) => {
    setBusy(dryRun ? 'plan' : 'apply');
    setProblems(null);
    setError(null);
    if (dryRun) setApplied(null);
    try {
      const result = await applyManifest(target, body, dryRun);
      if (dryRun) setPlan({ key, result });
      else {
        setApplied(result);
        setPlan(null);
        await qc.invalidateQueries();
      }
    } catch (err) {
      if (err instanceof ManifestRefused) {
        setProblems(err.problems);
        const missing = missingValues(err.problems);
        if (missing.length > 0) setAsked((old) => [...new Set([...old, ...missing])]);
      } else setError(err);
      if (dryRun) setPlan(null);
    } finally {
      setBusy(null);
    }
  };

  const pick = async (e: ChangeEvent<HTMLInputElement>) => {
    const f = e.target.files?.[0];
    if (!f) return;
    setText(await f.text());
    setFile(f.name);
    e.target.value = '';
  };

  const loadCurrent = async () => {
    if (!('projectId' in target)) return;
    setBusy('load');
    setError(null);
    try { setText(await fetchExport('project', target.projectId)); } catch (err) { setError(err); } finally { setBusy(null); }
  };

  return (
    <>
      <form className="card apply-form" aria-label="Plan and apply" onSubmit={(e) => { e.preventDefault(); void run(true); }}>
        <div className="field">
          <div className="label-row row spread">
            <label htmlFor={`${id}-doc`}>berth.yaml</label>
            <span className="row">
              <label className="file-pick">
                <span>Open a file…</span>
                <input type="file" accept=".yaml,.yml,application/yaml,text/yaml,text/plain" onChange={(e) => void pick(e)} aria-label="Open a berth.yaml file" />
              </label>
              {'projectId' in target && <button type="button" onClick={() => void loadCurrent()} disabled={busy !== null}>Start from the current project</button>}
            </span>
          </div>
          <textarea
            id={`${id}-doc`} className="code" rows={18} spellCheck={false} value={text} onChange={(e) => setText(e.target.value)}
            placeholder={'version: 1\nproject:\n  name: shop\nenvironments:\n  staging:\n    …'}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-file`}>File</label>
          <input id={`${id}-file`} value={file} onChange={(e) => setFile(e.target.value)} autoComplete="off" />
          <small className="muted">its path in your repository: shown in errors and recorded as the owner of what it creates</small>
        </div>
        {names.length > 0 && (
          <fieldset className="secret-values">
            <legend>Secret values</legend>
            <p className="muted small">The values of the file's <code>env:NAME</code> references, sent with this apply only. Leave one empty to keep the secret it fills as it is.</p>
            {names.map((n) => (
              <div className="field" key={n}>
                <label htmlFor={`${id}-secret-${n}`}><code>{n}</code></label>
                <input
                  id={`${id}-secret-${n}`} type="password" autoComplete="new-password" value={values[n] ?? ''}
                  onChange={(e) => setValues((old) => ({ ...old, [n]: e.target.value }))}
                />
              </div>
            ))}
          </fieldset>
        )}
        <div className="row options">
          <label className="check"><input type="checkbox" checked={prune} onChange={(e) => setPrune(e.target.checked)} /> Prune: delete what this file created and no longer names</label>
          <label className="check"><input type="checkbox" checked={deploy} onChange={(e) => setDeploy(e.target.checked)} /> Deploy the services that change</label>
        </div>
        <div className="row">
          <button type="submit" className={current ? undefined : 'primary'} disabled={busy !== null || text.trim() === ''}>{busy === 'plan' ? 'Planning…' : 'Plan'}</button>
          {plan && (
            <button type="button" className="primary" disabled={busy !== null || !current} onClick={() => void run(false)}>
              {busy === 'apply' ? 'Applying…' : 'Confirm apply'}
            </button>
          )}
        </div>
        {plan && !current && <p className="note" role="status">The file or the options changed since this plan: plan again before applying.</p>}
      </form>
      <ErrorNote error={error} />
      {problems && (
        <section aria-label="Problems" className="error">
          <p><strong>{problems.length === 1 ? 'The file was refused:' : `The file was refused (${problems.length} problems):`}</strong></p>
          <ul className="problems">
            {problems.map((pr, i) => <li key={i} data-line={pr.line ?? undefined}>{problemText(pr)}</li>)}
          </ul>
        </section>
      )}
      {plan && <Changes result={plan.result} title="Plan" />}
      {applied && <Changes result={applied} title="Applied" />}
    </>
  );
}

function Changes({ result, title }: { result: ApplyResult; title: 'Plan' | 'Applied' }) {
  const done = title === 'Applied';
  const shown = result.changes.filter((c) => c.action !== 'unchanged');
  const unchanged = result.changes.filter((c) => c.action === 'unchanged');
  const s = result.summary;
  return (
    <section aria-label={title} className="plan">
      <h2>{title}</h2>
      <p role="status" data-testid={done ? 'apply-summary' : 'plan-summary'}>
        {done ? `${s.create} created, ${s.update} updated, ${s.delete} deleted, ${s.unchanged} unchanged` : `${s.create} to create, ${s.update} to update, ${s.delete} to delete, ${s.unchanged} unchanged`}
        {' '}in the project <strong>{result.project.name}</strong>
        {done && result.project.id && <> · <Link href={`/ui/projects/${result.project.id}`}>open the project</Link></>}
      </p>
      {shown.length === 0 && <p className="empty">{done ? 'Nothing changed.' : 'Nothing to change: the project already is what the file says.'}</p>}
      {shown.length > 0 && (
        <table className="plan-table">
          <thead><tr><th>Action</th><th>Resource</th><th>Changes</th></tr></thead>
          <tbody>
            {shown.map((c) => (
              <tr key={`${c.action}:${c.path}:${c.kind}`} data-path={c.path} data-action={c.action}>
                <td><Status value={ACTION_TONE[c.action]} label={done ? ACTION_DONE[c.action] : c.action} /></td>
                <td><span className="muted small">{c.kind.replace(/_/g, ' ')}</span> <strong>{c.name}</strong><br /><code className="small">{c.path}</code></td>
                <td><FieldChanges change={c} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {unchanged.length > 0 && (
        <details className="unchanged">
          <summary>{unchanged.length} unchanged</summary>
          <ul>{unchanged.map((c) => <li key={`${c.path}:${c.kind}`}><code>{c.path}</code></li>)}</ul>
        </details>
      )}
      {done && result.deployments.length > 0 && (
        <>
          <h3>Deployments queued</h3>
          <ul>{result.deployments.map((d) => <li key={d.deployment_id}><Link href={`/ui/deployments/${d.deployment_id}`}>{d.name}</Link></li>)}</ul>
        </>
      )}
    </section>
  );
}

function FieldChanges({ change }: { change: PlannedChange }) {
  if (change.action === 'delete') return <span className="muted">removed with everything it holds</span>;
  if (change.changes.length === 0) return <span className="muted">{change.action === 'create' ? 'new' : '—'}</span>;
  return (
    <ul className="field-changes">
      {fieldLines(change.changes).map((f, i) => (
        <li key={i} data-field={f.field}>
          <code>{f.field}</code>{': '}
          {f.changed !== undefined
            ? <span className="secret-change">{f.changed ? 'changed' : 'not changed'} <span className="muted small">(secret: value never shown)</span></span>
            : change.action === 'create'
              ? <span className="to">{valueText(f.to)}</span>
              : <><span className="from">{valueText(f.from)}</span>{' → '}<span className="to">{valueText(f.to)}</span></>}
        </li>
      ))}
    </ul>
  );
}
