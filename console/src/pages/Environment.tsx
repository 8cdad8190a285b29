// An environment: its services page by page (50 at a time, so a thousand stay light) with their
// live status and default public URL, the forms that create each service type, environment-wide actions, its
// preview environments (or, on a preview, what it previews) and variables.
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api, call, json } from '../api.ts';
import { useCaps } from '../caps.ts';
import { ExportButton } from '../ExportButton.tsx';
import { DefaultLink } from '../links.tsx';
import { useLive, type StreamEvent } from '../live.ts';
import type { PageProps } from '../page-props.ts';
import { KIND_OF_TYPE } from '../specs.ts';
import { ConfirmButton, Empty, ErrorNote, Frame, Loading, Pager, Status, When } from '../ui.tsx';
import { Variables } from '../Variables.tsx';
import { useOrganization } from './Organization.tsx';
import { useProject } from './Project.tsx';
import { NewService } from './NewService.tsx';
import { PreviewOf, Previews } from './Previews.tsx';

const PAGE_SIZE = 50;

export interface LiveStatus { service_id: string; state: string; last_deployment_id: string | null; last_deployment_status: string | null; last_deployment_date: string | null }

export function useEnvironment(envId: string | undefined) {
  return useQuery({
    queryKey: ['environment', envId],
    queryFn: () => call(api.GET('/environment/{environmentId}', { params: { path: { environmentId: envId! } } })),
  });
}

/** breadcrumbs down to an environment (and a last item below it), with names */
export function useEnvironmentCrumbs(envId: string | undefined, last?: string): Array<{ label: string; href?: string }> {
  const env = useEnvironment(envId);
  const orgId = env.data?.organization.id;
  const projectId = env.data?.project.id;
  const org = useOrganization(orgId);
  const project = useProject(projectId);
  return [
    { label: 'Organizations', href: '/ui' },
    { label: org.data?.name ?? '…', href: orgId ? `/ui/organizations/${orgId}` : undefined },
    { label: project.data?.name ?? '…', href: projectId ? `/ui/projects/${projectId}` : undefined },
    { label: env.data?.name ?? '…', href: last !== undefined && envId ? `/ui/environments/${envId}` : undefined },
    ...(last !== undefined ? [{ label: last }] : []),
  ];
}

/** the environment's status stream (or a poll of `refresh`), as the latest status per service */
export function useLiveStatuses(envId: string | undefined, refresh: () => void) {
  const [statuses, setStatuses] = useState<Record<string, LiveStatus>>({});
  const onEvent = useCallback((e: StreamEvent) => {
    if (e.event !== 'status') return;
    const s = e.data as LiveStatus;
    setStatuses((old) => ({ ...old, [s.service_id]: s }));
  }, []);
  useLive(envId ? `/environment/${envId}/status/stream` : null, onEvent, refresh, 5000);
  return statuses;
}

export function EnvironmentPage(p: PageProps & { envId: string }) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const env = useEnvironment(p.envId);
  const orgId = env.data?.organization.id;
  const projectId = env.data?.project.id;
  const crumbs = useEnvironmentCrumbs(p.envId);
  const caps = useCaps(orgId);
  const services = useQuery({
    queryKey: ['services', p.envId, page],
    placeholderData: keepPreviousData,
    queryFn: () => call(api.GET('/environment/{environmentId}/services', { params: { path: { environmentId: p.envId }, query: { page, page_size: PAGE_SIZE } } })),
  });
  useEffect(() => {
    // the console's budget is measured to this mark (test/console/budget.test.ts)
    if (services.data?.results.length && performance.getEntriesByName('first-services-row').length === 0) performance.mark('first-services-row');
  }, [services.data]);
  const live = useLiveStatuses(p.envId, () => void qc.invalidateQueries({ queryKey: ['services', p.envId] }));
  const name = env.data?.name ?? '…';
  const action = (verb: 'deploy' | 'stop' | 'redeploy') => async () => {
    await json('POST', `/environment/${p.envId}/${verb}`);
    await qc.invalidateQueries({ queryKey: ['services', p.envId] });
  };
  const pg = services.data?.pagination;
  return (
    <Frame
      crumbs={crumbs}
      onSignOut={p.signOut} engine={p.engine}
    >
      <div className="row spread">
        <h1>{name} <span className="muted small">{env.data?.mode.toLowerCase()}</span></h1>
        {env.data && !caps.canWrite && <ExportButton scope="environment" id={p.envId} label="Export as berth.yaml" />}
        {caps.canWrite && env.data && (
          <div className="row">
            <ExportButton scope="environment" id={p.envId} label="Export as berth.yaml" />
            <button type="button" onClick={action('deploy')}>Deploy all</button>
            <ConfirmButton label="Stop all" question={`Stop every service of "${name}"?`} onConfirm={action('stop')} />
            {caps.canManage && (
              <ConfirmButton
                label="Delete environment" danger question={`Delete the environment "${name}" and uninstall all its services? This cannot be undone.`}
                onConfirm={async () => {
                  await call(api.DELETE('/environment/{environmentId}', { params: { path: { environmentId: p.envId } } }));
                  await qc.invalidateQueries({ queryKey: ['environments', projectId] });
                  navigate(`/ui/projects/${projectId}`);
                }}
              />
            )}
          </div>
        )}
      </div>
      <ErrorNote error={env.error} />
      {env.data && <PreviewOf env={env.data} />}
      <section aria-label="Services">
        <div className="row spread">
          <h2>Services</h2>
          {caps.canWrite && !creating && <button type="button" className="primary" onClick={() => setCreating(true)}>New service</button>}
        </div>
        {creating && orgId && (
          <NewService
            envId={p.envId} orgId={orgId} onCancel={() => setCreating(false)}
            onCreated={async (href) => {
              setCreating(false);
              await qc.invalidateQueries({ queryKey: ['services', p.envId] });
              navigate(href);
            }}
          />
        )}
        <ErrorNote error={services.error} />
        {services.isPending && <Loading />}
        {pg?.total_count === 0 && <Empty>No service in this environment yet. {caps.canWrite ? 'Add an application, a container, a database, a job or an agentic workflow.' : 'Someone with the DevOps role or above can add one.'}</Empty>}
        {services.data && services.data.results.length > 0 && (
          <table className="services">
            <thead><tr><th>Name</th><th>Type</th><th>Public URL</th><th>Status</th><th>Last deployment</th></tr></thead>
            <tbody>
              {services.data.results.map((s) => {
                const l = live[s.id];
                const kind = KIND_OF_TYPE[s.service_type];
                const href = kind === 'workflow' ? `/ui/workflows/${s.id}` : kind ? `/ui/services/${kind}/${s.id}` : undefined;
                return (
                  <tr key={s.id} data-service={s.name}>
                    <td>{href ? <Link href={href}>{s.name}</Link> : s.name}</td>
                    <td className="muted">{s.service_type.toLowerCase().replace('_', ' ')}</td>
                    <td className="link-cell"><DefaultLink kind={kind} id={s.id} /></td>
                    <td><Status value={l?.state ?? s.state} /></td>
                    <td>{l?.last_deployment_status && <Status value={l.last_deployment_status} />} <When at={l?.last_deployment_date ?? s.last_deployment_date} /></td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        {pg && <Pager page={pg.page} totalPages={pg.total_pages} total={pg.total_count} onPage={setPage} />}
      </section>
      {env.data && env.data.mode !== 'PREVIEW' && <Previews envId={p.envId} canApprove={caps.canWrite} />}
      {/* after the services: the list is what the page is for, so it is fetched first */}
      {services.data && <Variables scope="environment" parentId={p.envId} canWrite={caps.canWrite} />}
    </Frame>
  );
}
