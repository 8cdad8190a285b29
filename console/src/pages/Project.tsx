// A project: its environments and the project-wide variables and secrets.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api, call } from '../api.ts';
import { useCaps } from '../caps.ts';
import { ExportButton } from '../ExportButton.tsx';
import { ResourceForm } from '../form.tsx';
import type { PageProps } from '../page-props.ts';
import { ConfirmButton, Empty, ErrorNote, Frame, Loading } from '../ui.tsx';
import { Variables } from '../Variables.tsx';
import { useOrganization } from './Organization.tsx';

export function useProject(projectId: string | undefined) {
  return useQuery({
    queryKey: ['project', projectId],
    queryFn: () => call(api.GET('/project/{projectId}', { params: { path: { projectId: projectId! } } })),
  });
}

export function ProjectPage(p: PageProps & { projectId: string }) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [adding, setAdding] = useState(false);
  const project = useProject(p.projectId);
  const orgId = project.data?.organization.id;
  const org = useOrganization(orgId);
  const caps = useCaps(orgId);
  const envs = useQuery({
    queryKey: ['environments', p.projectId],
    queryFn: () => call(api.GET('/project/{projectId}/environment', { params: { path: { projectId: p.projectId } } })),
  });
  const clusters = useQuery({
    queryKey: ['clusters', orgId], enabled: adding,
    queryFn: () => call(api.GET('/organization/{organizationId}/cluster', { params: { path: { organizationId: orgId! } } })),
  });
  const name = project.data?.name ?? '…';
  return (
    <Frame
      crumbs={[{ label: 'Organizations', href: '/ui' }, { label: org.data?.name ?? '…', href: orgId ? `/ui/organizations/${orgId}` : undefined }, { label: name }]}
      onSignOut={p.signOut} engine={p.engine}
    >
      <div className="row spread">
        <h1>{name}</h1>
        <div className="row">
          {project.data && <ExportButton scope="project" id={p.projectId} label="Export project as berth.yaml" />}
          {caps.canWrite && project.data && <Link href={`/ui/projects/${p.projectId}/apply`} className="button">Apply a berth.yaml</Link>}
          {caps.canManage && project.data && (
            <ConfirmButton
              label="Delete project" danger question={`Delete the project "${name}" with all its environments and services? This cannot be undone.`}
              onConfirm={async () => {
                await call(api.DELETE('/project/{projectId}', { params: { path: { projectId: p.projectId } } }));
                await qc.invalidateQueries({ queryKey: ['projects', orgId] });
                navigate(`/ui/organizations/${orgId}`);
              }}
            />
          )}
        </div>
      </div>
      <ErrorNote error={project.error} />
      {project.data?.description && <p className="muted">{project.data.description}</p>}
      <section aria-label="Environments">
        <div className="row spread">
          <h2>Environments</h2>
          {caps.canManage && !adding && <button type="button" className="primary" onClick={() => setAdding(true)}>New environment</button>}
        </div>
        {adding && (
          <ResourceForm
            title="New environment" submitLabel="Create environment" onCancel={() => setAdding(false)}
            fields={[
              { name: 'name', label: 'Name', required: true },
              { name: 'mode', label: 'Mode', kind: 'select', options: ['DEVELOPMENT', 'STAGING', 'PRODUCTION', 'PREVIEW'], hint: 'DEVELOPMENT' },
              {
                name: 'cluster_id', label: 'Cluster', kind: 'select', hint: 'the default cluster',
                options: clusters.data?.results.map((c) => ({ value: c.id, label: `${c.name}${c.is_default ? ' (default)' : ''}` })) ?? [],
              },
            ]}
            onSubmit={async (body) => {
              await call(api.POST('/project/{projectId}/environment', { params: { path: { projectId: p.projectId } }, body: body as never }));
              setAdding(false);
              await qc.invalidateQueries({ queryKey: ['environments', p.projectId] });
            }}
          />
        )}
        <ErrorNote error={envs.error} />
        {envs.isPending && <Loading />}
        {envs.data?.results.length === 0 && <Empty>No environment yet. {caps.canManage ? 'Create one (for example "staging") to deploy services into.' : 'Ask an admin to create one.'}</Empty>}
        <ul className="cards">
          {envs.data?.results.map((e) => (
            <li key={e.id} className="card">
              <Link href={`/ui/environments/${e.id}`}><strong>{e.name}</strong></Link>
              <p className="muted">{e.mode.toLowerCase()} · cluster {e.cluster_name}</p>
            </li>
          ))}
        </ul>
      </section>
      <Variables scope="project" parentId={p.projectId} canWrite={caps.canWrite} />
    </Frame>
  );
}
