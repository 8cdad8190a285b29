// A database's backup policy (issue 39): the schedule (cron, UTC), the retention (keep N daily,
// weekly, monthly), the restore drill's schedule and whether it is on; beside it what berth makes
// of it: the next backup and drill, the last successful backup, the last verified one, and since
// when backups are overdue. A PUT sets every member (omitted ones go back to their defaults), so
// the form always sends them all. No policy is a 404 from the API: shown as "none" with a form to set one.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, api, call } from './api.ts';
import { ResourceForm, valuesOf, type FieldSpec } from './form.tsx';
import { ConfirmButton, ErrorNote, When } from './ui.tsx';

const FIELDS: FieldSpec[] = [
  { name: 'schedule', label: 'Schedule (cron, UTC)', required: true, hint: '0 3 * * *', help: 'at most hourly' },
  { name: 'keep_daily', label: 'Keep daily', kind: 'number', hint: '7' },
  { name: 'keep_weekly', label: 'Keep weekly', kind: 'number', hint: '4' },
  { name: 'keep_monthly', label: 'Keep monthly', kind: 'number', hint: '6' },
  { name: 'drill_schedule', label: 'Restore drill schedule (cron, UTC)', hint: '0 4 * * 0', help: 'the latest backup is restored into a throwaway database and checked' },
  { name: 'enabled', label: 'Enabled', kind: 'checkbox', hint: 'true' },
];

export function usePolicy(databaseId: string) {
  return useQuery({
    queryKey: ['backupPolicy', databaseId],
    queryFn: async () => {
      try {
        return await call(api.GET('/database/{databaseId}/backupPolicy', { params: { path: { databaseId } } }));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });
}

export function BackupPolicyForm(props: { databaseId: string; canWrite: boolean }) {
  const qc = useQueryClient();
  const [editing, setEditing] = useState(false);
  const policy = usePolicy(props.databaseId);
  const p = policy.data;
  const path = { params: { path: { databaseId: props.databaseId } } };
  const refresh = () => qc.invalidateQueries({ queryKey: ['backupPolicy', props.databaseId] });
  return (
    <section aria-label="Backup policy" className="card">
      <div className="row spread">
        <h3>Policy</h3>
        {props.canWrite && !editing && <button type="button" onClick={() => setEditing(true)}>{p ? 'Edit policy' : 'Set a policy'}</button>}
      </div>
      <ErrorNote error={policy.error} />
      {p === null && !editing && <p className="muted">No policy: backups are taken only by hand.</p>}
      {p && (
        <dl className="facts" data-testid="policy-facts">
          <dt>Schedule</dt><dd><code>{p.schedule}</code>{p.enabled ? '' : ' (disabled)'}</dd>
          <dt>Keeps</dt><dd>{p.keep_daily} daily, {p.keep_weekly} weekly, {p.keep_monthly} monthly</dd>
          <dt>Restore drill</dt><dd><code>{p.drill_schedule}</code></dd>
          <dt>Next backup</dt><dd><When at={p.next_backup_at} /></dd>
          <dt>Next drill</dt><dd><When at={p.next_drill_at} /></dd>
          <dt>Last backup</dt><dd><When at={p.last_backup_at} /></dd>
          <dt>Last verified</dt><dd><When at={p.last_verified_at} /></dd>
          {p.overdue_since && <><dt>Overdue since</dt><dd className="error"><When at={p.overdue_since} /></dd></>}
        </dl>
      )}
      {editing && (
        <ResourceForm
          title="Backup policy" submitLabel="Save policy" fields={FIELDS} onCancel={() => setEditing(false)}
          {...(p ? { initial: valuesOf(FIELDS, p), alwaysSend: FIELDS.map((f) => f.name) } : {})}
          onSubmit={async (body) => {
            await call(api.PUT('/database/{databaseId}/backupPolicy', { ...path, body: body as never }));
            setEditing(false);
            await refresh();
          }}
        />
      )}
      {p && props.canWrite && !editing && (
        <ConfirmButton
          label="Remove policy" danger question="Stop scheduled backups and drills? The backups already taken stay."
          onConfirm={async () => { await call(api.DELETE('/database/{databaseId}/backupPolicy', path)); await refresh(); }}
        />
      )}
    </section>
  );
}
