// Restoring a backup (issue 39): into a new database beside this one (the default: the original
// is untouched; an optional name), or in place (its contents replaced, after a SAFETY backup),
// which needs the database's name typed to confirm and an admin's role. The API's refusal is
// shown in the dialog, in its words.
import { useEffect, useId, useRef, useState } from 'react';
import { api, call } from './api.ts';
import { ErrorNote } from './ui.tsx';

export function RestoreDialog(props: {
  databaseId: string; databaseName: string; backup: { id: string; name: string }; canManage: boolean; onClose: () => void; onStarted: () => Promise<void>;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  const [mode, setMode] = useState<'NEW_DATABASE' | 'IN_PLACE'>('NEW_DATABASE');
  const [name, setName] = useState('');
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const d = dialog.current;
    d?.showModal();
    return () => d?.close();
  }, []);
  const confirmed = mode === 'NEW_DATABASE' || typed === props.databaseName;
  const restore = async () => {
    setBusy(true);
    setError(null);
    try {
      const body = mode === 'IN_PLACE' ? { mode } : { mode, ...(name.trim() ? { name: name.trim() } : {}) };
      await call(api.POST('/database/{databaseId}/backup/{backupId}/restore', {
        params: { path: { databaseId: props.databaseId, backupId: props.backup.id } }, body,
      }));
      await props.onStarted();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog ref={dialog} aria-label={`Restore ${props.backup.name}`} onClose={props.onClose}>
      <h3>Restore “{props.backup.name}”</h3>
      <fieldset>
        <legend>Where to</legend>
        <label>
          <input type="radio" name={`${id}-mode`} checked={mode === 'NEW_DATABASE'} onChange={() => setMode('NEW_DATABASE')} />
          {' '}Into a new database beside {props.databaseName} (it stays untouched)
        </label>
        {mode === 'NEW_DATABASE' && (
          <div className="field">
            <label htmlFor={`${id}-name`}>Name of the new database</label>
            <input id={`${id}-name`} type="text" placeholder={`${props.databaseName}-restored-…`} value={name} onChange={(e) => setName(e.target.value)} />
          </div>
        )}
        <label>
          <input type="radio" name={`${id}-mode`} checked={mode === 'IN_PLACE'} disabled={!props.canManage} onChange={() => setMode('IN_PLACE')} />
          {' '}In place: replace what {props.databaseName} holds now
          {!props.canManage && <span className="muted small"> (needs the ADMIN role)</span>}
        </label>
        {mode === 'IN_PLACE' && (
          <div className="field">
            <p className="small">berth first takes a safety backup of {props.databaseName}, then replaces its contents with this backup.</p>
            <label htmlFor={`${id}-confirm`}>Type <code>{props.databaseName}</code> to confirm</label>
            <input id={`${id}-confirm`} type="text" autoComplete="off" value={typed} onChange={(e) => setTyped(e.target.value)} />
          </div>
        )}
      </fieldset>
      <ErrorNote error={error} />
      <div className="row">
        <button type="button" onClick={() => dialog.current?.close()}>Cancel</button>
        <button type="button" className={mode === 'IN_PLACE' ? 'danger' : 'primary'} disabled={busy || !confirmed} onClick={() => void restore()}>
          {mode === 'IN_PLACE' ? 'Restore in place' : 'Restore into a new database'}
        </button>
      </div>
    </dialog>
  );
}
