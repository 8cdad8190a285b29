// The deliveries of one run's result to its workflow's outputs: each with its target, header
// names (values are never returned), every attempt, the next one when due, and redeliver after a
// confirmation. Refreshed every 5 s while the run is going or a delivery is pending.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api.ts';
import { ConfirmButton, Empty, ErrorNote, Loading, Status, When } from '../ui.tsx';

export function RunDeliveries(props: { workflowId: string; runId: string; runActive: boolean; canWrite: boolean }) {
  const qc = useQueryClient();
  const key = ['run-deliveries', props.workflowId, props.runId];
  const path = { agenticWorkflowId: props.workflowId, runId: props.runId };
  const deliveries = useQuery({
    queryKey: key,
    queryFn: () => call(api.GET('/agenticWorkflow/{agenticWorkflowId}/run/{runId}/outputDelivery', { params: { path, query: { page_size: 50 } } })),
    refetchInterval: (q) => (props.runActive || q.state.data?.results.some((d) => d.status === 'PENDING') ? 5000 : false),
  });
  const rows = deliveries.data?.results;
  return (
    <section aria-label="Output deliveries">
      <h2>Output deliveries</h2>
      {deliveries.isPending && <Loading />}
      <ErrorNote error={deliveries.error} />
      {rows?.length === 0 && (
        <Empty>{props.runActive ? 'When the run ends, its result is delivered to each output with a URL.' : 'Nothing delivered: the workflow has no output with a URL.'}</Empty>
      )}
      {rows?.map((d) => (
        <details key={d.id} className="card delivery" data-output={d.output_name}>
          <summary>
            <Status value={d.status} /> <strong>{d.output_name}</strong> · {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
            {d.last_status_code !== null && <> · answered {d.last_status_code}</>}
          </summary>
          <p><span className="muted">to</span> <code className="id">{d.target_url}</code></p>
          {d.header_names.length > 0 && <p className="muted">Headers sent: {d.header_names.join(', ')} (values never shown)</p>}
          {d.last_error && <p className="bad-text">{d.last_error}</p>}
          {d.attempt_history.length > 0 && (
            <table>
              <thead><tr><th>#</th><th>When</th><th>Answer</th><th>Duration</th></tr></thead>
              <tbody>
                {d.attempt_history.map((a) => (
                  <tr key={a.attempt}>
                    <td>{a.attempt}</td><td><When at={a.created_at} /></td>
                    <td>{a.error ?? a.response_status_code ?? '—'}</td><td>{a.duration_ms} ms</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {d.next_attempt_at && <p className="muted">Next attempt <When at={d.next_attempt_at} /></p>}
          {props.canWrite && (
            <ConfirmButton
              label="Redeliver" question={`Send the run's result again to the output "${d.output_name}"? It goes to the output's current URL and headers.`}
              onConfirm={async () => {
                await call(api.POST('/agenticWorkflow/{agenticWorkflowId}/run/{runId}/outputDelivery/{deliveryId}/redeliver', { params: { path: { ...path, deliveryId: d.id } }, body: {} }));
                await qc.invalidateQueries({ queryKey: key });
              }}
            />
          )}
        </details>
      ))}
    </section>
  );
}
