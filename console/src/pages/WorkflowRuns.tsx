// The runs of an agentic workflow on its page: "Run now" with an optional JSON payload (checked
// as JSON before it is sent, the problem shown next to the field), and the runs, newest first and
// 50 a page, with their status, trigger, figures and the first line of their result or failure.
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { ApiError, api, call } from '../api.ts';
import { formatCost, formatCount, formatDuration, formatTokens, outcomeLine, parsePayload, triggerLabel } from '../runs.ts';
import { Empty, ErrorNote, Loading, Pager, Status, When } from '../ui.tsx';

const PAGE_SIZE = 50;

function runPath(workflowId: string, runId: string): string {
  return `/ui/workflows/${workflowId}/runs/${runId}`;
}

/** the payload editor and the button that starts a run; opens the run once it is accepted */
export function RunNowForm(props: { workflowId: string; name: string; onCancel: () => void }) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [text, setText] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [general, setGeneral] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();

  async function submit(e: FormEvent) {
    e.preventDefault();
    setFieldError(null);
    setGeneral(null);
    const parsed = parsePayload(text);
    if ('error' in parsed) return setFieldError(parsed.error);
    setBusy(true);
    try {
      const run = await call(api.POST('/agenticWorkflow/{agenticWorkflowId}/run', { params: { path: { agenticWorkflowId: props.workflowId } }, body: parsed.value }));
      await qc.invalidateQueries({ queryKey: ['runs', props.workflowId] });
      navigate(runPath(props.workflowId, run.id));
    } catch (err) {
      // the API's word on the payload itself (too large, not JSON) belongs under the field
      if (err instanceof ApiError && (err.status === 400 || err.status === 413 || err.status === 415)) setFieldError(err.message);
      else setGeneral(err);
      setBusy(false);
    }
  }

  return (
    <form className="card form" onSubmit={submit} aria-label={`Start a run of ${props.name}`} noValidate>
      <h3>Start a run of {props.name}</h3>
      <div className={`field${fieldError ? ' invalid' : ''}`}>
        <div className="label-row"><label htmlFor={`${id}-payload`}>Payload (JSON)</label><span className="req">optional</span></div>
        <textarea
          id={`${id}-payload`} name="payload" rows={6} className="code" spellCheck={false} value={text}
          placeholder={'{"alert": "disk full on db-1"}'}
          aria-invalid={fieldError ? true : undefined} aria-describedby={fieldError ? `${id}-error` : `${id}-help`}
          onChange={(e) => { setText(e.target.value); if (fieldError) setFieldError(null); }}
        />
        <small id={`${id}-help`} className="muted">What the agent receives as the run&apos;s trigger, as a webhook&apos;s body is. Leave it empty for none.</small>
        {fieldError && <small id={`${id}-error`} className="field-error" role="alert">{fieldError}</small>}
      </div>
      <ErrorNote error={general} />
      <div className="row">
        <button type="button" onClick={props.onCancel}>Cancel</button>
        <button type="submit" className="primary" disabled={busy}>{busy ? 'Starting…' : 'Start run'}</button>
      </div>
    </form>
  );
}

export function RunsList(props: { workflowId: string; emptyHint: string }) {
  const [page, setPage] = useState(1);
  const runs = useQuery({
    queryKey: ['runs', props.workflowId, page], refetchInterval: 5000, placeholderData: keepPreviousData,
    queryFn: () => call(api.GET('/agenticWorkflow/{agenticWorkflowId}/run', { params: { path: { agenticWorkflowId: props.workflowId }, query: { page, page_size: PAGE_SIZE } } })),
  });
  const rows = runs.data?.results;
  return (
    <section aria-label="Runs">
      <h2>Runs</h2>
      <ErrorNote error={runs.error} />
      {runs.isPending && <Loading />}
      {rows?.length === 0 && <Empty>No run yet. {props.emptyHint}</Empty>}
      {rows && rows.length > 0 && (
        <table className="runs">
          <thead>
            <tr>
              <th>Triggered</th><th>Status</th><th className="wide-only">Trigger</th><th className="wide-only">Duration</th><th className="wide-only">Turns</th>
              <th className="wide-only">Tokens in / out</th><th className="wide-only">Cost</th><th>Result</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => {
              const outcome = outcomeLine(r);
              return (
                <tr key={r.id} data-run={r.id}>
                  <td><Link href={runPath(props.workflowId, r.id)}><When at={r.created_at} /></Link></td>
                  <td><Status value={r.status} /></td>
                  <td className="wide-only">{triggerLabel(r)}</td>
                  <td className="num wide-only">{formatDuration(r.duration_ms)}</td>
                  <td className="num wide-only">{formatCount(r.num_turns)}</td>
                  <td className="num wide-only">{formatTokens(r)}</td>
                  <td className="num wide-only">{formatCost(r.cost_usd)}</td>
                  <td className="outcome">
                    {outcome.text
                      ? <span className={outcome.isMessage ? (r.status === 'FAILED' ? 'bad-text' : 'muted') : undefined}>{outcome.text}</span>
                      : <span className="muted">—</span>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {runs.data && <Pager page={runs.data.pagination.page} totalPages={runs.data.pagination.total_pages} total={runs.data.pagination.total_count} onPage={setPage} />}
    </section>
  );
}
