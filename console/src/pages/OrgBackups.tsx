// An organization's "Backups & alerts" (issue 39): where its databases' backups are kept (LOCAL on
// the berth host, or an S3-compatible bucket whose secret is write-only: only whether one is set
// is shown) with "Check" (write, read back and remove a probe now), and its notification channels
// (Slack- or Discord-compatible incoming webhooks, e-mail recipients) with "Send a test" and its
// outcome. Admins change them; every member reads them. Text only: nothing is rendered as HTML.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../api.ts';
import type { paths } from '../../../src/client/api-types.ts';
import { ResourceForm, valuesOf, type FieldSpec } from '../form.tsx';
import { ConfirmButton, Empty, ErrorNote, Loading, Status, When } from '../ui.tsx';

type TestResult = paths['/organization/{organizationId}/notificationChannel/{channelId}/test']['post']['responses'][200]['content']['application/json'];

const STORAGE_FIELDS: FieldSpec[] = [
  { name: 'kind', label: 'Kind', kind: 'select', options: [{ value: 'LOCAL', label: 'LOCAL: a directory on the berth host' }, { value: 'S3', label: 'S3: an S3-compatible bucket' }], required: true },
  { name: 's3.endpoint', label: 'S3 endpoint', kind: 'url', hint: 'https://s3.example.com', help: 'an S3-compatible server; empty: AWS' },
  { name: 's3.region', label: 'Region', hint: 'us-east-1' },
  { name: 's3.bucket', label: 'Bucket' },
  { name: 's3.prefix', label: 'Prefix', hint: 'berth/' },
  { name: 's3.access_key_id', label: 'Access key id' },
  { name: 's3.secret_access_key', label: 'Secret access key', kind: 'password' },
  { name: 's3.force_path_style', label: 'Path-style addresses (most S3-compatible servers)', kind: 'checkbox', hint: 'true' },
];

export function BackupStorage(props: { orgId: string; canManage: boolean }) {
  const qc = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [checked, setChecked] = useState<{ ok: boolean; message: string | null } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const path = { params: { path: { organizationId: props.orgId } } };
  const key = ['backupStorage', props.orgId];
  const storage = useQuery({ queryKey: key, queryFn: () => call(api.GET('/organization/{organizationId}/backupStorage', path)) });
  const s = storage.data;
  const fields = STORAGE_FIELDS.map((f) => (f.name === 's3.secret_access_key' && s?.s3?.has_secret_access_key ? { ...f, help: 'set (never shown): leave empty to keep it' } : f));
  const check = async () => {
    setError(null);
    setChecked(null);
    try { setChecked(await call(api.POST('/organization/{organizationId}/backupStorage/check', path))); } catch (err) { setError(err); }
  };
  return (
    <section aria-label="Backup storage">
      <div className="row spread">
        <h2>Backup storage</h2>
        <div className="row">
          {props.canManage && <button type="button" onClick={() => void check()}>Check</button>}
          {props.canManage && !editing && <button type="button" className="primary" onClick={() => setEditing(true)}>Change storage</button>}
        </div>
      </div>
      <ErrorNote error={storage.error ?? error} />
      {storage.isPending && <Loading />}
      {s && (
        <dl className="facts" data-testid="storage-facts">
          <dt>Where</dt><dd><code>{s.location}</code></dd>
          {s.s3 && <><dt>Access key id</dt><dd><code>{s.s3.access_key_id}</code></dd></>}
          {s.s3 && <><dt>Secret access key</dt><dd>{s.s3.has_secret_access_key ? 'set (never shown)' : 'not set'}</dd></>}
          <dt>Changed</dt><dd><When at={s.updated_at} /></dd>
        </dl>
      )}
      {checked && (
        <p role="status" data-testid="storage-check" className={checked.ok ? 'ok' : 'error'}>
          {checked.ok ? 'ok: a probe was written, read back and removed.' : `failed: ${checked.message ?? 'no reason given'}`}
        </p>
      )}
      {editing && s && (
        <ResourceForm
          title="Backup storage" submitLabel="Save storage" fields={fields} onCancel={() => setEditing(false)}
          initial={valuesOf(fields, s)} alwaysSend={['kind', 's3']}
          onSubmit={async (body) => {
            if (body.kind !== 'S3') delete body.s3;
            await call(api.PUT('/organization/{organizationId}/backupStorage', { ...path, body: body as never }));
            setEditing(false);
            await qc.invalidateQueries({ queryKey: key });
          }}
        />
      )}
    </section>
  );
}

const CHANNEL_FIELDS: FieldSpec[] = [
  { name: 'name', label: 'Name', required: true },
  { name: 'kind', label: 'Kind', kind: 'select', options: ['SLACK', 'DISCORD', 'EMAIL'], required: true },
  { name: 'webhook_url', label: 'Incoming-webhook URL (Slack, Discord)', kind: 'password', help: 'write-only: only its host is shown back' },
  { name: 'recipients', label: 'E-mail recipients (comma-separated)', hint: 'ops@example.com, oncall@example.com' },
  { name: 'events', label: 'Incidents (comma-separated)', hint: 'all', help: 'any of BACKUP_FAILED, BACKUP_DRILL_FAILED, BACKUP_OVERDUE, DEPLOYMENT_FAILED, AGENT_RUN_FAILED' },
];

const list = (v: unknown) => (typeof v === 'string' ? v.split(',').map((x) => x.trim()).filter(Boolean) : v);

export function NotificationChannels(props: { orgId: string; canManage: boolean }) {
  const qc = useQueryClient();
  const [adding, setAdding] = useState(false);
  const [tests, setTests] = useState<Record<string, TestResult | { error: unknown }>>({});
  const path = { params: { path: { organizationId: props.orgId } } };
  const key = ['notificationChannels', props.orgId];
  const channels = useQuery({ queryKey: key, queryFn: () => call(api.GET('/organization/{organizationId}/notificationChannel', path)) });
  const one = (channelId: string) => ({ params: { path: { organizationId: props.orgId, channelId } } });
  const test = async (channelId: string) => {
    try {
      const r = await call(api.POST('/organization/{organizationId}/notificationChannel/{channelId}/test', one(channelId)));
      setTests((t) => ({ ...t, [channelId]: r }));
    } catch (error) { setTests((t) => ({ ...t, [channelId]: { error } })); }
    await qc.invalidateQueries({ queryKey: key });
  };
  return (
    <section aria-label="Notification channels">
      <div className="row spread">
        <h2>Notification channels</h2>
        {props.canManage && !adding && <button type="button" className="primary" onClick={() => setAdding(true)}>New channel</button>}
      </div>
      <p className="muted small">Failed backups and drills, overdue backups, failed deployments and failed agent runs: one message per incident.</p>
      {adding && (
        <ResourceForm
          title="New notification channel" submitLabel="Create channel" fields={CHANNEL_FIELDS} onCancel={() => setAdding(false)}
          onSubmit={async (body) => {
            if (body.recipients !== undefined) body.recipients = list(body.recipients);
            if (body.events !== undefined) body.events = list(body.events);
            await call(api.POST('/organization/{organizationId}/notificationChannel', { ...path, body: body as never }));
            setAdding(false);
            await qc.invalidateQueries({ queryKey: key });
          }}
        />
      )}
      <ErrorNote error={channels.error} />
      {channels.isPending && <Loading />}
      {channels.data?.results.length === 0 && <Empty>No notification channel yet: failures are only in the console and the organization's webhooks.</Empty>}
      <ul className="cards">
        {channels.data?.results.map((c) => {
          const t = tests[c.id];
          return (
            <li key={c.id} className="card" data-channel={c.name}>
              <strong>{c.name}</strong> <span className="muted">{c.kind.toLowerCase()} · {c.webhook_host ?? c.recipients.join(', ')}</span>{' '}
              <Status value={c.enabled ? 'ENABLED' : 'DISABLED'} />
              <p className="muted small">{c.events.join(', ')} · last delivered <When at={c.last_sent_at} /></p>
              {c.last_error && <p className="small error">{c.last_error}</p>}
              {t && (
                <div role="status" data-testid="channel-test" className={'error' in t || !t.delivered ? 'error' : 'ok'}>
                  {'error' in t ? <ErrorNote error={t.error} /> : t.delivered ? `Delivered in ${t.duration_ms} ms.` : `Not delivered: ${t.reason ?? `status ${t.status_code ?? 'none'}`}`}
                </div>
              )}
              {props.canManage && (
                <div className="row">
                  <button type="button" onClick={() => void test(c.id)}>Send a test</button>
                  <ConfirmButton
                    label="Delete" danger question={`Delete the channel "${c.name}"? It stops receiving messages.`}
                    onConfirm={async () => { await call(api.DELETE('/organization/{organizationId}/notificationChannel/{channelId}', one(c.id))); await qc.invalidateQueries({ queryKey: key }); }}
                  />
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
