// A deployment and its log, live while it runs: the deployment's log stream (lines, status
// changes, then `end`), or, on a berth without streams, its last lines every 3 seconds. The hook
// and the log box are shared with agentic workflow runs, whose transcript is their deployment's log.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { api, call } from '../api.ts';
import { useLive, type StreamEvent } from '../live.ts';
import type { PageProps } from '../page-props.ts';
import { KIND_OF_TYPE } from '../specs.ts';
import { ErrorNote, Frame, Loading, Status, When } from '../ui.tsx';
import { useEnvironmentCrumbs } from './Environment.tsx';

export interface LogLine { id: string; created_at: string; message: string; kind: string }
export type Deployment = Awaited<ReturnType<typeof getDeployment>>;

function getDeployment(id: string) {
  return call(api.GET('/deployment/{deploymentId}', { params: { path: { deploymentId: id } } }));
}

/**
 * A deployment's record and log lines, live while it runs: its log stream (lines, status changes,
 * then `end`), or its last 200 lines every 3 seconds on a berth without streams. Agentic workflow
 * runs use it for their transcript (a run is a deployment of the workflow).
 */
export function useDeploymentLog(deploymentId: string, onStatus?: (d: Deployment) => void) {
  const qc = useQueryClient();
  const [lines, setLines] = useState<LogLine[]>([]);
  const seen = useRef(new Set<string>());
  const finished = useRef(false);
  const record = useQuery({ queryKey: ['deployment', deploymentId], queryFn: () => getDeployment(deploymentId) });
  useEffect(() => {
    seen.current = new Set();
    finished.current = false;
    setLines([]);
  }, [deploymentId]);
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
    // in the order berth wrote them (their id), whichever of the stream and the poll brought them first
    setLines((old) => {
      const all = [...old, ...fresh];
      const last = Number(old.at(-1)?.id);
      if (fresh.some((l) => Number(l.id) < last)) all.sort((a, b) => Number(a.id) - Number(b.id));
      return all.slice(-2000);
    });
  }, []);
  const onEvent = useCallback((e: StreamEvent) => {
    if (e.event === 'log') add([e.data as LogLine]);
    else if (e.event === 'status' || e.event === 'end') qc.setQueryData(['deployment', deploymentId], e.data as Deployment);
  }, [add, qc, deploymentId]);
  const poll = useCallback(async () => {
    if (finished.current && lines.length > 0) return;
    const [d, log] = await Promise.all([
      getDeployment(deploymentId),
      call(api.GET('/deployment/{deploymentId}/log', { params: { path: { deploymentId }, query: { tail: 200 } } })),
    ]).catch(() => [null, null] as const);
    if (d) qc.setQueryData(['deployment', deploymentId], d);
    if (log) add(log.results as LogLine[]);
  }, [deploymentId, qc, add, lines.length]);
  useLive(`/deployment/${deploymentId}/log/stream`, onEvent, () => void poll());
  useEffect(() => {
    // the first lines at once when falling back to polling (the stream sends them itself)
    void poll();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [deploymentId]);
  return { record, lines };
}

/** log lines in a scrolling box that follows the newest line; `classOf` adds a class per line */
export function LogLines(props: { lines: LogLine[]; label: string; classOf?: (l: LogLine) => string; empty?: string; className?: string }) {
  const box = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const el = box.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [props.lines.length]);
  return (
    <pre ref={box} className={props.className ? `log ${props.className}` : 'log'} tabIndex={0} aria-label={props.label} aria-live="polite">
      {props.lines.length === 0 ? <span className="muted">{props.empty ?? 'No log line yet.'}</span> : props.lines.map((l) => (
        <div key={l.id} className={`line ${props.classOf ? props.classOf(l) : l.kind.toLowerCase()}`}><span className="ts">{new Date(l.created_at).toLocaleTimeString()}</span> {l.message}</div>
      ))}
    </pre>
  );
}

export function DeploymentLog(props: { deploymentId: string; onStatus?: (d: Deployment) => void }) {
  const { record, lines } = useDeploymentLog(props.deploymentId, props.onStatus);
  const d = record.data;
  return (
    <div className="deployment-log">
      <p>
        {d ? <><Status value={d.status} /> {d.action.toLowerCase()} of {d.service_name}, started <When at={d.started_at ?? d.created_at} />{d.triggered_by ? ` by ${d.triggered_by}` : ''}</> : <Loading />}
      </p>
      {d?.message && <p className="muted">{d.message}</p>}
      <LogLines lines={lines} label="Deployment log" />
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
