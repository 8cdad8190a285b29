// A database's backups (issue 39): "last verified restorable" first, a banner when the latest
// backup FAILED, the last drill failed or the policy is overdue (BackupBanner, at the top of the
// database page), take one now (name, message), the list (status, trigger, size, checksum, where
// it is kept, when a drill last restored it, the error in berth's words), delete, download (fetched
// with the credential and saved: a plain link cannot carry it), drill now, restore (RestoreDialog.tsx)
// with each backup's restores, and the policy (BackupPolicy.tsx). Re-read every 2 s while a backup
// or restore is on its way (no stream). Text only: nothing from the API is rendered as HTML.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link } from 'wouter';
import { api, call, plainError, raw, toApiError } from './api.ts';
import type { components } from '../../src/client/api-types.ts';
import { BackupPolicyForm, usePolicy } from './BackupPolicy.tsx';
import { ResourceForm } from './form.tsx';
import { RestoreDialog } from './RestoreDialog.tsx';
import { ConfirmButton, Empty, ErrorNote, Loading, Status, When } from './ui.tsx';

type Schemas = components['schemas'];
type Backup = Schemas['addBackupDatabase.response.201'];
type Restore = Schemas['restoreDatabaseBackup.response.202'];

const POLL_MS = 2000;
const busy = (s: string) => s === 'QUEUED' || s === 'RUNNING';

/** bytes in the unit people read: 1.4 MiB */
function humanSize(bytes: number | null): string {
  if (bytes === null) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return i === 0 ? `${v} B` : `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

function useBackups(databaseId: string) {
  return useQuery({
    queryKey: ['backups', databaseId],
    queryFn: async () => (await call(api.GET('/database/{databaseId}/backup', { params: { path: { databaseId } } }))).results,
    refetchInterval: (q) => (q.state.data?.some((b) => busy(b.status)) ? POLL_MS : false),
  });
}

/** what deserves a banner: the latest backup failed, the last drill failed, the policy is overdue */
export function BackupBanner({ databaseId }: { databaseId: string }) {
  const backups = useBackups(databaseId);
  const policy = usePolicy(databaseId);
  const latest = backups.data?.find((b) => !busy(b.status));
  const drilled = backups.data?.filter((b) => b.drill).sort((a, b) => (b.verified_at ?? b.updated_at).localeCompare(a.verified_at ?? a.updated_at))[0];
  const problems: string[] = [];
  if (latest?.status === 'FAILED') problems.push(`The latest backup (${latest.name}) failed: ${latest.error ?? 'no reason given'}`);
  if (drilled?.drill?.error) problems.push(`The last restore drill (of ${drilled.name}) failed: ${drilled.drill.error}`);
  if (policy.data?.overdue_since) problems.push(`Backups are overdue: none succeeded within 1.5 × the schedule since ${new Date(policy.data.overdue_since).toLocaleString()}.`);
  if (problems.length === 0) return null;
  return (
    <div role="alert" className="card error" data-testid="backup-banner">
      {problems.map((p) => <p key={p}>{p}</p>)}
    </div>
  );
}

/** saves the dump: fetched with the credential as a blob, then handed to the browser as a file */
async function download(databaseId: string, b: Backup): Promise<void> {
  const res = await raw(`/database/${databaseId}/backup/${b.id}/download`);
  if (!res.ok) throw toApiError(res, await res.json().catch(() => null));
  const filename = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? `${b.name}.dump`;
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function Backups(props: { databaseId: string; databaseName: string; canWrite: boolean; canManage: boolean }) {
  const qc = useQueryClient();
  const { databaseId } = props;
  const [taking, setTaking] = useState(false);
  const [restoring, setRestoring] = useState<Backup | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const backups = useBackups(databaseId);
  const policy = usePolicy(databaseId);
  const refresh = () => qc.invalidateQueries({ queryKey: ['backups', databaseId] });
  const path = (backupId: string) => ({ params: { path: { databaseId, backupId } } });
  const lastVerified = policy.data?.last_verified_at
    ?? backups.data?.map((b) => b.verified_at).filter((v): v is string => v !== null).sort().at(-1) ?? null;
  const act = (fn: () => Promise<unknown>) => async () => {
    setError(null);
    try { await fn(); } catch (err) { setError(err); }
  };
  return (
    <section aria-label="Backups">
      <div className="row spread">
        <h2>Backups</h2>
        {props.canWrite && !taking && <button type="button" className="primary" onClick={() => setTaking(true)}>Take a backup now</button>}
      </div>
      <p className="verified" data-testid="last-verified">
        <strong>Last verified restorable: </strong>
        {lastVerified ? <When at={lastVerified} /> : <span className="muted">never (no restore drill has succeeded yet)</span>}
      </p>
      {taking && (
        <ResourceForm
          title="New backup" submitLabel="Take backup" onCancel={() => setTaking(false)}
          fields={[{ name: 'name', label: 'Name', required: true, hint: 'before-migration' }, { name: 'message', label: 'Message', kind: 'textarea' }]}
          onSubmit={async (body) => {
            await call(api.POST('/database/{databaseId}/backup', { params: { path: { databaseId } }, body: body as never }));
            setTaking(false);
            await refresh();
          }}
        />
      )}
      <ErrorNote error={backups.error ?? error} />
      {backups.isPending && <Loading />}
      {backups.data?.length === 0 && <Empty>No backup yet.{props.canWrite ? ' Take one now, or set a policy below to take them on a schedule.' : ''}</Empty>}
      {backups.data && backups.data.length > 0 && (
        <table>
          <thead><tr><th>Backup</th><th>Status</th><th>Size</th><th>Checksum</th><th>Stored</th><th>Verified</th><th><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {backups.data.map((b) => (
              <BackupRow
                key={b.id} b={b} databaseId={databaseId} expanded={open === b.id} onToggle={() => setOpen(open === b.id ? null : b.id)}
                actions={(
                  <>
                    {b.status === 'SUCCEEDED' && props.canWrite && <button type="button" onClick={() => setRestoring(b)}>Restore</button>}
                    {b.status === 'SUCCEEDED' && props.canWrite && <button type="button" onClick={act(async () => { await call(api.POST('/database/{databaseId}/backup/{backupId}/drill', path(b.id))); await refresh(); })}>Drill now</button>}
                    {b.status === 'SUCCEEDED' && props.canManage && <button type="button" onClick={act(() => download(databaseId, b))}>Download</button>}
                    {props.canWrite && !busy(b.status) && (
                      <ConfirmButton
                        label="Delete" danger question={`Delete the backup "${b.name}"? Its stored copy is removed too.`}
                        onConfirm={async () => { await call(api.DELETE('/database/{databaseId}/backup/{backupId}', path(b.id))); await refresh(); }}
                      />
                    )}
                  </>
                )}
              />
            ))}
          </tbody>
        </table>
      )}
      {restoring && (
        <RestoreDialog
          databaseId={databaseId} databaseName={props.databaseName} backup={restoring} canManage={props.canManage}
          onClose={() => setRestoring(null)}
          onStarted={async () => { setOpen(restoring.id); setRestoring(null); await qc.invalidateQueries({ queryKey: ['restores', restoring.id] }); }}
        />
      )}
      <BackupPolicyForm databaseId={databaseId} canWrite={props.canWrite} />
    </section>
  );
}

function BackupRow(props: { b: Backup; databaseId: string; expanded: boolean; onToggle: () => void; actions: ReactNode }) {
  const { b } = props;
  return (
    <>
      <tr data-backup={b.name}>
        <td>
          <strong>{b.name}</strong> <span className="badge muted">{b.trigger.toLowerCase()}</span>
          <p className="small muted"><When at={b.created_at} />{b.message ? ` · ${b.message}` : ''}</p>
          {b.error && <p className="small error" data-testid="backup-error">{b.error}</p>}
        </td>
        <td><Status value={b.status} /></td>
        <td>{humanSize(b.size)}</td>
        <td>{b.checksum ? <code title={b.checksum}>{b.checksum.slice(0, 12)}</code> : '—'}</td>
        <td className="small">{b.storage}</td>
        <td className="small">
          {b.verified_at ? <When at={b.verified_at} /> : <span className="muted">not yet</span>}
          {b.drill?.error && <p className="error" data-testid="drill-error">drill failed: {b.drill.error}</p>}
          {b.drill && !b.drill.error && <p className="muted">{Object.entries(b.drill.counts).slice(0, 5).map(([k, n]) => `${k}: ${n}`).join(', ') || 'restored (empty)'}</p>}
        </td>
        <td>
          <div className="row">
            {props.actions}
            <button type="button" aria-expanded={props.expanded} onClick={props.onToggle}>Restores</button>
          </div>
        </td>
      </tr>
      {props.expanded && <tr><td colSpan={7}><Restores databaseId={props.databaseId} backupId={b.id} /></td></tr>}
    </>
  );
}

function Restores(props: { databaseId: string; backupId: string }) {
  const list = useQuery({
    queryKey: ['restores', props.backupId],
    queryFn: async () => (await call(api.GET('/database/{databaseId}/backup/{backupId}/restore', { params: { path: props } }))).results,
    refetchInterval: (q) => (q.state.data?.some((r: Restore) => busy(r.status)) ? POLL_MS : false),
  });
  if (list.error) return <p role="alert" className="error">{plainError(list.error)}</p>;
  if (!list.data) return <Loading />;
  if (list.data.length === 0) return <Empty>Never restored.</Empty>;
  return (
    <ul className="restores" aria-label="Restores">
      {list.data.map((r) => (
        <li key={r.id} data-restore={r.id}>
          <Status value={r.status} /> {r.mode === 'IN_PLACE' ? 'in place' : 'into a new database'} · <When at={r.created_at} />
          {r.mode !== 'IN_PLACE' && r.target_database_id && <> · <Link href={`/ui/services/database/${r.target_database_id}`}>the restored database</Link></>}
          {r.safety_backup_id && <span className="muted small"> · a safety backup was taken first</span>}
          {r.error && <p className="small error">{r.error}</p>}
        </li>
      ))}
    </ul>
  );
}
