// A deployment and its log, live while it runs: the deployment's log stream (lines, status
// changes, then `end`), or, on a berth without streams, its last lines every 3 seconds.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { api, call } from '../api.ts';
import { useLive, type StreamEvent } from '../live.ts';
import type { PageProps } from '../main.tsx';
import { KIND_OF_TYPE } from '../specs.ts';
import { ErrorNote, Frame, Loading, Status, When } from '../ui.tsx';
import { useEnvironmentCrumbs } from './Environment.tsx';

interface LogLine { id: string; created_at: string; message: string; kind: string }
type Deployment = Awaited<ReturnType<typeof getDeployment>>;

function getDeployment(id: string) {
  return call(api.GET('/deployment/{deploymentId}', { params: { path: { deploymentId: id } } }));
}

export function DeploymentLog(props: { deploymentId: string; onStatus?: (d: Deployment) => void }) {
  const qc = useQueryClient();
  const [lines, setLines] = useState<LogLine[]>([]);
  const seen = useRef(new Set<string>());
  const finished = useRef(false);
  const box = useRef<HTMLPreElement>(null);
  const record = useQuery({ queryKey: ['deployment', props.deploymentId], queryFn: () => getDeployment(props.deploymentId) });
  const onStatus = props.onStatus;
  useEffect(() => {
    seen.current = new Set();
    finished.current = false;
    setLines([]);
  }, [props.deploymentId]);
  useEffect(() => {
    if (record.data) {
      finished.current = record.data.finished;
      onStatus?.(record.data);
    }
  }, [record.data, onStatus]);
  const add = useCallback((incoming: LogLine[]) => {
    const fresh = incoming.filter((l) => !seen.current.has(l.id));
    if (fresh.length === 0) return;
    for (const l of fresh) seen.current.add(l.id);
    setLines((old) => [...old, ...fresh].slice(-2000));
  }, []);
  const onEvent = useCallback((e: StreamEvent) => {
    if (e.event === 'log') add([e.data as LogLine]);
    else if (e.event === 'status' || e.event === 'end') qc.setQueryData(['deployment', props.deploymentId], e.data as Deployment);
  }, [add, qc, props.deploymentId]);
  const poll = useCallback(async () => {
    if (finished.current && lines.length > 0) return;
    const [d, log] = await Promise.all([
      getDeployment(props.deploymentId),
      call(api.GET('/deployment/{deploymentId}/log', { params: { path: { deploymentId: props.deploymentId }, query: { tail: 200 } } })),
    ]).catch(() => [null, null] as const);
    if (d) qc.setQueryData(['deployment', props.deploymentId], d);
    if (log) add(log.results as LogLine[]);
  }, [props.deploymentId, qc, add, lines.length]);
  useLive(`/deployment/${props.deploymentId}/log/stream`, onEvent, () => void poll());
  useEffect(() => {
    // the first lines at once when falling back to polling (the stream sends them itself)
    void poll();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.deploymentId]);
  useEffect(() => {
    const el = box.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [lines.length]);
  const d = record.data;
  return (
    <div className="deployment-log">
      <p>
        {d ? <><Status value={d.status} /> {d.action.toLowerCase()} of {d.service_name}, started <When at={d.started_at ?? d.created_at} />{d.triggered_by ? ` by ${d.triggered_by}` : ''}</> : <Loading />}
      </p>
      {d?.message && <p className="muted">{d.message}</p>}
      <pre ref={box} className="log" tabIndex={0} aria-label="Deployment log" aria-live="polite">
        {lines.length === 0 ? <span className="muted">No log line yet.</span> : lines.map((l) => (
          <div key={l.id} className={`line ${l.kind.toLowerCase()}`}><span className="ts">{new Date(l.created_at).toLocaleTimeString()}</span> {l.message}</div>
        ))}
      </pre>
    </div>
  );
}

export function DeploymentPage(p: PageProps & { id: string }) {
  const record = useQuery({ queryKey: ['deployment', p.id], queryFn: () => getDeployment(p.id) });
  const d = record.data;
  const kind = d ? KIND_OF_TYPE[d.service_type] : undefined;
  const crumbs = useEnvironmentCrumbs(d?.environment_id, d ? `deployment of ${d.service_name}` : 'deployment');
  return (
    <Frame
      crumbs={crumbs}
      onSignOut={p.signOut} engine={p.engine}
    >
      <h1>Deployment {d && <>of <Link href={kind === 'workflow' ? `/ui/workflows/${d.service_id}` : `/ui/services/${kind}/${d.service_id}`}>{d.service_name}</Link></>}</h1>
      <ErrorNote error={record.error} />
      <DeploymentLog deploymentId={p.id} />
    </Frame>
  );
}
