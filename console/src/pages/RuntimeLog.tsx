// A service's own log (build, deployment and runtime lines, like `GET /{kind}/{id}/log`), shown
// on demand: its stream with the last 100 lines first, or those lines every 5 s on a berth
// without streams. Nothing is requested while the panel is closed.
import { useCallback, useRef, useState } from 'react';
import { json } from '../api.ts';
import { useLive, type StreamEvent } from '../live.ts';
import type { ServiceKind } from '../specs.ts';

interface LogLine { id: string; created_at: string; message: string; kind: string }

function Lines(props: { kind: ServiceKind; id: string }) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const seen = useRef(new Set<string>());
  const add = useCallback((incoming: LogLine[]) => {
    const fresh = incoming.filter((l) => !seen.current.has(l.id));
    for (const l of fresh) seen.current.add(l.id);
    if (fresh.length > 0) setLines((old) => [...old, ...fresh].sort((a, b) => a.created_at.localeCompare(b.created_at)).slice(-500));
  }, []);
  const onEvent = useCallback((e: StreamEvent) => {
    if (e.event === 'log') add([e.data as LogLine]);
  }, [add]);
  const poll = useCallback(() => {
    json<{ results: LogLine[] }>('GET', `/${props.kind}/${props.id}/log?tail=100`).then((r) => add(r.results)).catch(() => {});
  }, [props.kind, props.id, add]);
  useLive(`/${props.kind}/${props.id}/log/stream?tail=100`, onEvent, poll, 5000);
  return (
    <pre className="log" tabIndex={0} aria-label="Service log" aria-live="polite">
      {lines.length === 0 ? <span className="muted">No log line yet.</span> : lines.map((l) => (
        <div key={l.id} className={`line ${l.kind.toLowerCase()}`}><span className="ts">{new Date(l.created_at).toLocaleString()}</span> {l.message}</div>
      ))}
    </pre>
  );
}

export function RuntimeLog(props: { kind: ServiceKind; id: string }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="card" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Service log (build, deployment and runtime lines)</summary>
      {open && <Lines kind={props.kind} id={props.id} />}
    </details>
  );
}
