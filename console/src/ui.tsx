// Shared pieces of every console page: the frame (header, breadcrumbs, sign-out), errors in plain
// words, empty states, a pager, status badges, the confirmation dialog for destructive actions, and
// a copy-to-clipboard button.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link } from 'wouter';
import { plainError } from './api.ts';

export function Frame(props: { crumbs: Array<{ label: string; href?: string }>; onSignOut: () => void; engine?: string; children: ReactNode }) {
  return (
    <>
      <header className="top">
        <Link href="/ui" className="brand">berth</Link>
        <nav aria-label="Breadcrumb" className="crumbs">
          {props.crumbs.map((c, i) => (
            <span key={i}>
              {i > 0 && <span aria-hidden="true"> › </span>}
              {c.href ? <Link href={c.href}>{c.label}</Link> : <span aria-current="page">{c.label}</span>}
            </span>
          ))}
        </nav>
        {props.engine === 'simulated' && <span className="badge warn" title="The simulated engine: deployments run nothing (no Docker daemon, or ENGINE=simulated)">simulated engine</span>}
        <button type="button" className="link" onClick={props.onSignOut}>Sign out</button>
      </header>
      <main>{props.children}</main>
    </>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return <p role="alert" className="error">{plainError(error)}</p>;
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function Loading() {
  return <p className="muted" aria-live="polite">Loading…</p>;
}

const STATE_TONE: Record<string, string> = {
  RUNNING: 'ok', DEPLOYED: 'ok', DONE: 'ok', SUCCESS: 'ok', SUCCEEDED: 'ok', UP_TO_DATE: 'ok', DELIVERED: 'ok', ENABLED: 'ok',
  ERROR: 'bad', FAILED: 'bad', BUILD_ERROR: 'bad', DEPLOYMENT_ERROR: 'bad', TIMED_OUT: 'bad', CANCELED: 'muted', CANCELLED: 'muted', DISABLED: 'muted',
  STOPPED: 'muted', READY: 'muted', NEVER_DEPLOYED: 'muted', OPEN: 'ok', CLOSED: 'muted', REFUSED: 'bad',
  ACTIVE: 'ok', MATCHES_LOAD_BALANCER_HOST: 'ok', DOMAIN_NOT_CONFIGURED: 'bad', DOMAIN_LINKED_TO_WRONG_HOST: 'bad', GENERIC_FAILURE: 'bad',
};

/** a state as a coloured badge; `label` words it for people where the API's name does not read well */
export function Status({ value, label }: { value: string | null | undefined; label?: string }) {
  const v = value ?? 'UNKNOWN';
  return <span className={`badge ${STATE_TONE[v] ?? 'busy'}`} data-status={v}>{label ?? v.replace(/_/g, ' ').toLowerCase()}</span>;
}

export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">never</span>;
  const d = new Date(at);
  return <time dateTime={at} title={d.toISOString()}>{d.toLocaleString()}</time>;
}

export function Pager(props: { page: number; totalPages: number; total: number; onPage: (p: number) => void }) {
  if (props.totalPages <= 1) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>Previous</button>
      <span>Page {props.page} of {props.totalPages} ({props.total} in all)</span>
      <button type="button" disabled={props.page >= props.totalPages} onClick={() => props.onPage(props.page + 1)}>Next</button>
    </nav>
  );
}

/** a button that asks before doing something that cannot be undone */
export function ConfirmButton(props: {
  label: string; question: string; confirmLabel?: string; danger?: boolean; onConfirm: () => Promise<unknown>;
  /** the button that closes the dialog doing nothing ("Cancel" unless that would read as the action) */
  dismissLabel?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => () => dialog.current?.close(), []);
  return (
    <>
      <button type="button" className={props.danger ? 'danger' : undefined} onClick={() => { setError(null); dialog.current?.showModal(); }}>{props.label}</button>
      <dialog ref={dialog} aria-label={props.label}>
        <p>{props.question}</p>
        <ErrorNote error={error} />
        <div className="row">
          <button type="button" onClick={() => dialog.current?.close()}>{props.dismissLabel ?? 'Cancel'}</button>
          <button
            type="button" className={props.danger ? 'danger' : 'primary'} disabled={busy}
            onClick={async () => {
              setBusy(true);
              try {
                await props.onConfirm();
                dialog.current?.close();
              } catch (err) {
                setError(err);
              } finally {
                setBusy(false);
              }
            }}
          >{props.confirmLabel ?? props.label}</button>
        </div>
      </dialog>
    </>
  );
}

/** an id shown only where copying it helps */
export function CopyId({ id }: { id: string }) {
  return <code className="id" title="identifier">{id}</code>;
}

/** copies a text; where the browser allows no clipboard (plain http), says to select it */
export function CopyButton(props: { text: string; label?: string; name?: string }) {
  const [done, setDone] = useState<'copied' | 'failed' | null>(null);
  return (
    <>
      <button
        type="button" aria-label={props.name}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(props.text);
            setDone('copied');
          } catch {
            setDone('failed');
          }
        }}
      >{props.label ?? 'Copy'}</button>
      <span aria-live="polite" className="muted small">{done === 'copied' ? 'Copied.' : done === 'failed' ? 'This browser refused the clipboard: select the text and copy it.' : ''}</span>
    </>
  );
}
