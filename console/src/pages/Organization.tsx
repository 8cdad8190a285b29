// One organization: its projects (the way down to environments and services), and tabs for its
// members, API tokens, container registries, git (tokens and webhook), webhooks, LLM providers,
// MCP connectors, and backups & alerts (backup storage, notification channels: OrgBackups.tsx).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api, call } from '../api.ts';
import { useCaps } from '../caps.ts';
import { ResourceForm } from '../form.tsx';
import type { PageProps } from '../page-props.ts';
import { Empty, ErrorNote, Frame, Loading } from '../ui.tsx';
import { Members, Tokens } from './OrgPeople.tsx';
import { LlmProviders, McpConnectors, Registries, Webhooks } from './OrgIntegrations.tsx';
import { GitTokens, GitWebhook } from './OrgGit.tsx';
import { BackupStorage, NotificationChannels } from './OrgBackups.tsx';

const TABS = [
  ['projects', 'Projects'], ['members', 'Members'], ['tokens', 'API tokens'], ['registries', 'Container registries'],
  ['git', 'Git'], ['webhooks', 'Webhooks'], ['llm', 'LLM providers'], ['mcp', 'MCP connectors'], ['backups', 'Backups & alerts'],
] as const;

export function useOrganization(orgId: string | undefined) {
  return useQuery({
    queryKey: ['organization', orgId],
    queryFn: () => call(api.GET('/organization/{organizationId}', { params: { path: { organizationId: orgId! } } })),
  });
}

export function OrganizationPage(p: PageProps & { orgId: string; tab: string }) {
  const org = useOrganization(p.orgId);
  const caps = useCaps(p.orgId);
  const name = org.data?.name ?? '…';
  return (
    <Frame crumbs={[{ label: 'Organizations', href: '/ui' }, { label: name }]} onSignOut={p.signOut} engine={p.engine}>
      <h1>{name}</h1>
      {caps.roleName && <p className="muted small">Your role: {caps.roleName}</p>}
      {caps.known && !caps.canWrite && <p className="note">Read-only: your role can look but not change anything here.</p>}
      {caps.canWrite && !caps.canManage && <p className="note">Your role deploys and edits services, their variables and agentic workflows; projects, environments and the organization's settings need an admin.</p>}
      <ErrorNote error={org.error} />
      <nav className="tabs" aria-label="Organization sections">
        {TABS.map(([key, label]) => (
          <Link key={key} href={`/ui/organizations/${p.orgId}/${key}`} aria-current={p.tab === key ? 'page' : undefined}>{label}</Link>
        ))}
      </nav>
      {p.tab === 'projects' && <Projects orgId={p.orgId} canManage={caps.canManage} canWrite={caps.canWrite} />}
      {p.tab === 'members' && <Members orgId={p.orgId} canManage={caps.canManage} />}
      {p.tab === 'tokens' && <Tokens orgId={p.orgId} canManage={caps.canManage} />}
      {p.tab === 'registries' && <Registries orgId={p.orgId} canManage={caps.canManage} />}
      {p.tab === 'git' && <GitTokens orgId={p.orgId} canManage={caps.canManage} />}
      {p.tab === 'git' && <GitWebhook orgId={p.orgId} canManage={caps.canManage} />}
      {p.tab === 'webhooks' && <Webhooks orgId={p.orgId} canManage={caps.canManage} />}
      {p.tab === 'llm' && <LlmProviders orgId={p.orgId} canManage={caps.canManage} />}
      {p.tab === 'mcp' && <McpConnectors orgId={p.orgId} canManage={caps.canManage} />}
      {p.tab === 'backups' && <BackupStorage orgId={p.orgId} canManage={caps.canManage} />}
      {p.tab === 'backups' && <NotificationChannels orgId={p.orgId} canManage={caps.canManage} />}
    </Frame>
  );
}

function Projects(props: { orgId: string; canManage: boolean; canWrite: boolean }) {
  const qc = useQueryClient();
  const [adding, setAdding] = useState(false);
  const projects = useQuery({
    queryKey: ['projects', props.orgId],
    queryFn: () => call(api.GET('/organization/{organizationId}/project', { params: { path: { organizationId: props.orgId } } })),
  });
  return (
    <section aria-label="Projects">
      <div className="row spread">
        <h2>Projects</h2>
        <div className="row">
          {props.canWrite && <Link href={`/ui/organizations/${props.orgId}/apply`} className="button">Apply a berth.yaml</Link>}
          {props.canManage && !adding && <button type="button" className="primary" onClick={() => setAdding(true)}>New project</button>}
        </div>
      </div>
      {adding && (
        <ResourceForm
          title="New project" submitLabel="Create project" onCancel={() => setAdding(false)}
          fields={[{ name: 'name', label: 'Name', required: true }, { name: 'description', label: 'Description', kind: 'textarea' }]}
          onSubmit={async (body) => {
            await call(api.POST('/organization/{organizationId}/project', { params: { path: { organizationId: props.orgId } }, body: body as never }));
            setAdding(false);
            await qc.invalidateQueries({ queryKey: ['projects', props.orgId] });
          }}
        />
      )}
      <ErrorNote error={projects.error} />
      {projects.isPending && <Loading />}
      {projects.data?.results.length === 0 && <Empty>No project yet. {props.canManage ? 'Create one to hold your environments.' : 'Ask an admin to create one.'}</Empty>}
      <ul className="cards">
        {projects.data?.results.map((pr) => (
          <li key={pr.id} className="card">
            <Link href={`/ui/projects/${pr.id}`}><strong>{pr.name}</strong></Link>
            {pr.description && <p className="muted">{pr.description}</p>}
          </li>
        ))}
      </ul>
    </section>
  );
}
