// One service (application, container, database or job): live status and public link, the
// actions (deploy, redeploy, restart; stop and delete after a confirmation), its settings form,
// its deployments with the latest one's log live, its custom domains (Domains.tsx), a database's backups (Backups.tsx), its variables and secrets, and a link to its
// advanced settings (pages/AdvancedSettings.tsx).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { json, type Page } from '../api.ts';
import { useCaps } from '../caps.ts';
import { ResourceForm, valuesOf } from '../form.tsx';
import { LinkList, useLinks } from '../links.tsx';
import type { PageProps } from '../page-props.ts';
import { EDIT_FIELDS, LABEL, type ServiceKind } from '../specs.ts';
import { ConfirmButton, ErrorNote, Frame, Loading, Status, When } from '../ui.tsx';
import { Variables } from '../Variables.tsx';
import { Domains } from '../Domains.tsx';
import { BackupBanner, Backups } from '../Backups.tsx';
import { DeploymentLog } from './Deployment.tsx';
import { RuntimeLog } from './RuntimeLog.tsx';
import { useEnvironment, useEnvironmentCrumbs, useLiveStatuses } from './Environment.tsx';
import { useOrgOptions } from './NewService.tsx';

interface ServiceRecord { id: string; name: string; description?: string | null; environment: { id: string }; [k: string]: unknown }
interface StatusRecord { state: string; service_deployment_status: string; last_deployment_date: string | null }
interface DeploymentRow { id: string; status: string; action: string; created_at: string; finished: boolean; triggered_by: string | null }

export function ServicePage(p: PageProps & { kind: ServiceKind; id: string }) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const base = `/${p.kind}/${p.id}`;
  const service = useQuery({ queryKey: ['service', p.kind, p.id], queryFn: () => json<ServiceRecord>('GET', base) });
  const envId = service.data?.environment.id;
  const env = useEnvironment(envId);
  const orgId = env.data?.organization.id;
  const caps = useCaps(orgId);
  const status = useQuery({ queryKey: ['status', p.kind, p.id], queryFn: () => json<StatusRecord>('GET', `${base}/status`) });
  const history = useQuery({ queryKey: ['history', p.kind, p.id], queryFn: () => json<Page<DeploymentRow>>('GET', `${base}/deploymentHistoryV2?page_size=10`) });
  const links = useLinks(p.kind, p.id);
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: ['status', p.kind, p.id] });
    void qc.invalidateQueries({ queryKey: ['history', p.kind, p.id] });
  };
  const live = useLiveStatuses(envId, refresh)[p.id];
  // with streams, a status change of this service is the moment to re-read its history
  useEffect(() => {
    if (live) refresh();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [live?.last_deployment_id, live?.last_deployment_status, live?.state]);
  const editFields = useOrgOptions(orgId, EDIT_FIELDS[p.kind]);
  const latest = history.data?.results[0];
  const act = (verb: string) => async () => {
    setError(null);
    try {
      await json('POST', `${base}/${verb}`);
      refresh();
    } catch (err) {
      setError(err);
      throw err;
    }
  };
  const crumbs = useEnvironmentCrumbs(envId, service.data?.name ?? '…');
  const name = service.data?.name ?? '…';
  const state = live?.state ?? status.data?.state;
  return (
    <Frame
      crumbs={crumbs}
      onSignOut={p.signOut} engine={p.engine}
    >
      <div className="row spread">
        <h1>{name} <span className="muted small">{LABEL[p.kind].toLowerCase()}</span></h1>
        <span className="row">Status: <Status value={state} /></span>
      </div>
      <ErrorNote error={service.error} />
      {p.kind === 'database' && <BackupBanner databaseId={p.id} />}
      {service.data?.description && <p className="muted">{service.data.description}</p>}
      {links.data && <LinkList links={links.data.links} reason={links.data.reason} />}
      {p.kind !== 'database' && (
        <p><Link href={`/ui/services/${p.kind}/${p.id}/settings/advanced`}>Advanced settings</Link> <span className="muted small">update strategy, build limits, ingress, autoscaling, security; and which of them the engine applies</span></p>
      )}
      <p className="muted">
        Last deployed <When at={live?.last_deployment_date ?? status.data?.last_deployment_date} />
        {status.data && <> · {status.data.service_deployment_status.toLowerCase().replace(/_/g, ' ')}</>}
      </p>
      {caps.canWrite && service.data && (
        <div className="row actions" role="group" aria-label="Actions">
          <button type="button" className="primary" onClick={() => void act('deploy')().catch(() => {})}>Deploy</button>
          <button type="button" onClick={() => void act('redeploy')().catch(() => {})}>Redeploy</button>
          <button type="button" onClick={() => void act('restart-service')().catch(() => {})}>Restart</button>
          <ConfirmButton label="Stop" question={`Stop "${name}"? It stops serving until it is deployed again.`} onConfirm={act('stop')} />
          <button type="button" onClick={() => setEditing((x) => !x)} aria-expanded={editing}>Edit settings</button>
          <ConfirmButton
            label="Delete" danger question={`Delete "${name}"? It is uninstalled and its settings, variables and history are removed.`}
            onConfirm={async () => {
              await json('DELETE', base);
              await qc.invalidateQueries({ queryKey: ['services', envId] });
              navigate(`/ui/environments/${envId}`);
            }}
          />
        </div>
      )}
      <ErrorNote error={error} />
      {editing && service.data && (
        <ResourceForm
          title={`Settings of ${name}`} submitLabel="Save" fields={editFields} initial={valuesOf(editFields, service.data)} onCancel={() => setEditing(false)}
          onSubmit={async (body) => {
            await json('PUT', base, body);
            setEditing(false);
            await qc.invalidateQueries({ queryKey: ['service', p.kind, p.id] });
            // the ports may have changed, and with them the public addresses
            void qc.invalidateQueries({ queryKey: ['links', p.kind, p.id] });
            refresh();
          }}
        />
      )}
      <section aria-label="Deployments">
        <h2>Deployments</h2>
        {history.isPending && <Loading />}
        {history.data?.results.length === 0 && <p className="empty">Never deployed.{caps.canWrite ? ' Press Deploy to build and start it.' : ''}</p>}
        {latest && <DeploymentLog key={live?.last_deployment_id ?? latest.id} deploymentId={live?.last_deployment_id ?? latest.id} onStatus={(d) => { if (d.finished && !latest.finished) refresh(); }} />}
        {history.data && history.data.results.length > 0 && (
          <table>
            <thead><tr><th>Started</th><th>Action</th><th>Status</th><th>By</th></tr></thead>
            <tbody>
              {history.data.results.map((d) => (
                <tr key={d.id}>
                  <td><Link href={`/ui/deployments/${d.id}`}><When at={d.created_at} /></Link></td>
                  <td>{d.action.toLowerCase()}</td><td><Status value={d.status} /></td><td>{d.triggered_by ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {p.kind === 'database' && service.data && <Backups databaseId={p.id} databaseName={service.data.name} canWrite={caps.canWrite} canManage={caps.canManage} />}
      {(p.kind === 'application' || p.kind === 'container') && <Domains kind={p.kind} id={p.id} canWrite={caps.canWrite} />}
      <RuntimeLog kind={p.kind} id={p.id} />
      {p.kind !== 'database' && <Variables scope={p.kind} parentId={p.id} canWrite={caps.canWrite} />}
    </Frame>
  );
}
