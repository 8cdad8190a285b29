// An organization's outgoing webhooks, LLM providers and MCP connectors. Credentials and
// secrets are write-only: the API never returns them, and the console never shows them back.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api, call } from '../api.ts';
import { ResourceForm } from '../form.tsx';
import { ConfirmButton, Empty, ErrorNote, Loading, Status } from '../ui.tsx';

const EVENT_KINDS = ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED', 'DEPLOYMENT_FAILED', 'DEPLOYMENT_CANCELLED',
  'WORKFLOW_RUN_STARTED', 'WORKFLOW_RUN_SUCCEEDED', 'WORKFLOW_RUN_FAILED', 'SERVICE_SCALED'];

function Header(props: { title: string; canManage: boolean; adding: boolean; onAdd: () => void; addLabel: string }) {
  return (
    <div className="row spread">
      <h2>{props.title}</h2>
      {props.canManage && !props.adding && <button type="button" className="primary" onClick={props.onAdd}>{props.addLabel}</button>}
    </div>
  );
}

export function Webhooks(props: { orgId: string; canManage: boolean }) {
  const qc = useQueryClient();
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const key = ['webhooks', props.orgId];
  const hooks = useQuery({
    queryKey: key, enabled: props.canManage,
    queryFn: () => call(api.GET('/organization/{organizationId}/webhook', { params: { path: { organizationId: props.orgId } } })),
  });
  if (!props.canManage) return <section aria-label="Webhooks"><h2>Webhooks</h2><Empty>Only admins and owners can see the organization's webhooks.</Empty></section>;
  return (
    <section aria-label="Webhooks">
      <Header title="Webhooks" canManage adding={adding} onAdd={() => setAdding(true)} addLabel="New webhook" />
      {adding && (
        <ResourceForm
          title="New webhook" submitLabel="Create webhook" onCancel={() => setAdding(false)}
          fields={[
            { name: 'target_url', label: 'Target URL', kind: 'url', required: true, hint: 'https://example.com/hooks/berth' },
            { name: 'events', label: 'Events (comma-separated)', required: true, hint: EVENT_KINDS.slice(0, 3).join(', '), help: `any of ${EVENT_KINDS.join(', ')}` },
            { name: 'kind', label: 'Kind', kind: 'select', options: ['STANDARD', 'SLACK'], hint: 'STANDARD' },
            { name: 'description', label: 'Description' },
            { name: 'target_secret', label: 'Signing secret', kind: 'password', help: 'leave empty to have one generated; it is never shown back' },
            { name: 'enabled', label: 'Enabled', kind: 'checkbox', hint: 'true' },
          ]}
          onSubmit={async (body) => {
            if (typeof body.events === 'string') body.events = body.events.split(',').map((s) => s.trim()).filter(Boolean);
            const hook = await call(api.POST('/organization/{organizationId}/webhook', { params: { path: { organizationId: props.orgId } }, body: body as never }));
            setAdding(false);
            setSecret(hook.signing_secret ?? null);
            await qc.invalidateQueries({ queryKey: key });
          }}
        />
      )}
      {secret && (
        <div className="card note" role="status">
          <p>Deliveries are signed (Standard Webhooks) with this secret. Copy it now: it is not shown again.</p>
          <code className="secret-once">{secret}</code>
          <button type="button" onClick={() => setSecret(null)}>I have copied it</button>
        </div>
      )}
      <ErrorNote error={hooks.error} />
      {hooks.isPending && <Loading />}
      {hooks.data?.results.length === 0 && <Empty>No webhook yet. Add one to be told when deployments and workflow runs start and finish.</Empty>}
      <ul className="cards">
        {hooks.data?.results.map((h) => (
          <li key={h.id} className="card">
            <Link href={`/ui/organizations/${props.orgId}/webhooks/${h.id}`}><strong>{h.description || h.target_url}</strong></Link>
            <p className="muted">{h.target_url} · {h.events.join(', ')}</p>
            <Status value={h.enabled ? 'ENABLED' : 'DISABLED'} />
            {h.disabled_reason && <p className="error">{h.disabled_reason}</p>}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function LlmProviders(props: { orgId: string; canManage: boolean }) {
  const qc = useQueryClient();
  const [adding, setAdding] = useState(false);
  const key = ['llm', props.orgId];
  const list = useQuery({ queryKey: key, queryFn: () => call(api.GET('/organization/{organizationId}/llmProvider', { params: { path: { organizationId: props.orgId } } })) });
  return (
    <section aria-label="LLM providers">
      <Header title="LLM providers" canManage={props.canManage} adding={adding} onAdd={() => setAdding(true)} addLabel="New LLM provider" />
      {adding && (
        <ResourceForm
          title="New LLM provider" submitLabel="Create provider" onCancel={() => setAdding(false)}
          fields={[
            { name: 'name', label: 'Name', required: true },
            { name: 'type', label: 'Type', kind: 'select', options: ['CLAUDE', 'BEDROCK'], required: true },
            { name: 'scope', label: 'Scope', kind: 'select', options: ['ORGANIZATION', 'USER'], hint: 'ORGANIZATION' },
            { name: 'region', label: 'Region (Bedrock)' },
            { name: 'base_url', label: 'Base URL', kind: 'url', hint: 'https://llm-gateway.example.com', help: 'an Anthropic-compatible gateway (a corporate proxy, LiteLLM); leave empty for the provider\'s own API. A workflow\'s model settings may name their own' },
            { name: 'credential', label: 'Credential', kind: 'password', help: 'write-only: never shown back' },
            { name: 'description', label: 'Description' },
          ]}
          onSubmit={async (body) => {
            await call(api.POST('/organization/{organizationId}/llmProvider', { params: { path: { organizationId: props.orgId } }, body: body as never }));
            setAdding(false);
            await qc.invalidateQueries({ queryKey: key });
          }}
        />
      )}
      <ErrorNote error={list.error} />
      {list.isPending && <Loading />}
      {list.data?.results.length === 0 && <Empty>No LLM provider yet. Agentic workflows take their model credential from one.</Empty>}
      <ul className="cards">
        {list.data?.results.map((x) => (
          <li key={x.id} className="card">
            <strong>{x.name}</strong> <span className="muted">{x.type} · {x.scope}{x.owner_name ? ` · ${x.owner_name}` : ''}</span>
            <p className="muted">{x.has_credential ? 'credential set (never shown)' : 'no credential'}{x.base_url ? ` · through ${x.base_url}` : ''}</p>
            {props.canManage && <DeleteButton what={`the LLM provider "${x.name}"`} run={() => call(api.DELETE('/llmProvider/{llmProviderId}', { params: { path: { llmProviderId: x.id } } }))} after={() => qc.invalidateQueries({ queryKey: key })} />}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function McpConnectors(props: { orgId: string; canManage: boolean }) {
  const qc = useQueryClient();
  const [adding, setAdding] = useState(false);
  const key = ['mcp', props.orgId];
  const list = useQuery({ queryKey: key, queryFn: () => call(api.GET('/organization/{organizationId}/mcpServer', { params: { path: { organizationId: props.orgId } } })) });
  return (
    <section aria-label="MCP connectors">
      <Header title="MCP connectors" canManage={props.canManage} adding={adding} onAdd={() => setAdding(true)} addLabel="New MCP connector" />
      {adding && (
        <ResourceForm
          title="New MCP connector" submitLabel="Create connector" onCancel={() => setAdding(false)}
          fields={[
            { name: 'name', label: 'Name', required: true },
            { name: 'url', label: 'URL', kind: 'url', required: true },
            { name: 'scope', label: 'Scope', kind: 'select', options: ['ORGANIZATION', 'USER'], hint: 'ORGANIZATION' },
            { name: 'description', label: 'Description' },
          ]}
          onSubmit={async (body) => {
            await call(api.POST('/organization/{organizationId}/mcpServer', { params: { path: { organizationId: props.orgId } }, body: body as never }));
            setAdding(false);
            await qc.invalidateQueries({ queryKey: key });
          }}
        />
      )}
      <ErrorNote error={list.error} />
      {list.isPending && <Loading />}
      {list.data?.results.length === 0 && <Empty>No MCP connector yet. Workflows can attach connectors to reach other tools.</Empty>}
      <ul className="cards">
        {list.data?.results.map((x) => (
          <li key={x.id} className="card">
            <strong>{x.name}</strong> <span className="muted">{x.scope} · {x.url}</span>
            {x.header_names.length > 0 && <p className="muted">headers: {x.header_names.join(', ')} (values never shown)</p>}
            {props.canManage && <DeleteButton what={`the MCP connector "${x.name}"`} run={() => call(api.DELETE('/mcpServer/{mcpServerId}', { params: { path: { mcpServerId: x.id } } }))} after={() => qc.invalidateQueries({ queryKey: key })} />}
          </li>
        ))}
      </ul>
    </section>
  );
}

function DeleteButton(props: { what: string; run: () => Promise<unknown>; after: () => Promise<unknown> }) {
  return <ConfirmButton label="Delete" danger question={`Delete ${props.what}? This cannot be undone.`} onConfirm={async () => { await props.run(); await props.after(); }} />;
}

const REGISTRY_KINDS = ['DOCKER_HUB', 'GITHUB_CR', 'GITLAB_CR', 'GENERIC_CR', 'ECR', 'PUBLIC_ECR', 'SCALEWAY_CR', 'DOCR',
  'GCP_ARTIFACT_REGISTRY', 'AZURE_CR', 'GITHUB_ENTERPRISE_CR'];

/** where containers and image jobs take their images from; credentials are write-only */
export function Registries(props: { orgId: string; canManage: boolean }) {
  const qc = useQueryClient();
  const [adding, setAdding] = useState(false);
  const key = ['registries', props.orgId];
  const list = useQuery({ queryKey: key, queryFn: () => call(api.GET('/organization/{organizationId}/containerRegistry', { params: { path: { organizationId: props.orgId } } })) });
  return (
    <section aria-label="Container registries">
      <Header title="Container registries" canManage={props.canManage} adding={adding} onAdd={() => setAdding(true)} addLabel="New registry" />
      {adding && (
        <ResourceForm
          title="New container registry" submitLabel="Create registry" onCancel={() => setAdding(false)}
          fields={[
            { name: 'name', label: 'Name', required: true },
            { name: 'kind', label: 'Kind', kind: 'select', options: REGISTRY_KINDS, required: true },
            { name: 'url', label: 'URL', kind: 'url', hint: 'the kind\'s own (https://docker.io, https://ghcr.io…)' },
            { name: 'config.username', label: 'Username', help: 'leave empty for public images' },
            { name: 'config.password', label: 'Password or access token', kind: 'password', help: 'write-only: never shown back' },
            { name: 'description', label: 'Description' },
          ]}
          onSubmit={async (body) => {
            await call(api.POST('/organization/{organizationId}/containerRegistry', { params: { path: { organizationId: props.orgId } }, body: body as never }));
            setAdding(false);
            await qc.invalidateQueries({ queryKey: key });
          }}
        />
      )}
      <ErrorNote error={list.error} />
      {list.isPending && <Loading />}
      {list.data?.results.length === 0 && <Empty>No container registry yet. Containers and image jobs need one to pull their image from.</Empty>}
      <ul className="cards">
        {list.data?.results.map((r) => (
          <li key={r.id} className="card">
            <strong>{r.name}</strong> <span className="muted">{r.kind} · {r.url}</span>
            <p className="muted">{r.has_credential ? 'credentials set (never shown)' : 'no credentials: public images'}</p>
            {props.canManage && <DeleteButton what={`the registry "${r.name}"`} run={() => call(api.DELETE('/organization/{organizationId}/containerRegistry/{containerRegistryId}', { params: { path: { organizationId: props.orgId, containerRegistryId: r.id } } }))} after={() => qc.invalidateQueries({ queryKey: key })} />}
          </li>
        ))}
      </ul>
    </section>
  );
}
