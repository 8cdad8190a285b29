// Creating a service in an environment: pick its type, fill the type's form (the contract's
// fields with berth's defaults as placeholders), and land on the new service's page.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call, json } from '../api.ts';
import { ResourceForm, type FieldSpec } from '../form.tsx';
import { CREATE_FIELDS, LABEL, SERVICE_KINDS, WORKFLOW_FIELDS, type ServiceKind } from '../specs.ts';
import { useGitTokens } from './OrgGit.tsx';

/**
 * fills the select options that come from the organization (registries, LLM providers, git tokens);
 * each list is asked for once the organization is known (queries.ts)
 */
export function useOrgOptions(orgId: string | undefined, fields: FieldSpec[]): FieldSpec[] {
  const needsRegistry = fields.some((f) => f.name.endsWith('registry_id'));
  const needsProvider = fields.some((f) => f.name === 'model.llm_provider_id');
  const gitTokens = useGitTokens(orgId, fields.some((f) => f.name.endsWith('git_token_id')));
  const registries = useQuery({
    queryKey: ['registries', orgId], enabled: needsRegistry,
    queryFn: () => call(api.GET('/organization/{organizationId}/containerRegistry', { params: { path: { organizationId: orgId! } } })),
  });
  const providers = useQuery({
    queryKey: ['llm', orgId], enabled: needsProvider,
    queryFn: () => call(api.GET('/organization/{organizationId}/llmProvider', { params: { path: { organizationId: orgId! } } })),
  });
  return fields.map((f) => {
    if (f.name.endsWith('registry_id')) {
      const options = registries.data?.results.map((r) => ({ value: r.id, label: `${r.name} (${r.kind})` })) ?? [];
      return { ...f, options, help: registries.data && options.length === 0 ? "No registry yet: add one under the organization's Container registries." : f.help };
    }
    if (f.name.endsWith('git_token_id')) {
      const options = gitTokens.data?.results.map((t) => ({ value: t.id, label: `${t.name} (${t.type})` })) ?? [];
      return { ...f, options, help: gitTokens.data && options.length === 0 ? "No git token yet: add one under the organization's Git tab." : f.help };
    }
    if (f.name === 'model.llm_provider_id') return { ...f, options: providers.data?.results.map((r) => ({ value: r.id, label: `${r.name} (${r.type})` })) ?? [] };
    return f;
  });
}

/** a port given without saying whether it is public is a private one */
function completePorts(body: Record<string, unknown>): Record<string, unknown> {
  const ports = body.ports as Array<Record<string, unknown>> | undefined;
  if (ports?.[0] && ports[0].internal_port !== undefined && ports[0].publicly_accessible === undefined) ports[0].publicly_accessible = false;
  if (ports?.[0] && ports[0].internal_port === undefined) delete body.ports;
  return body;
}

export function NewService(props: { envId: string; orgId: string; onCancel: () => void; onCreated: (href: string) => void }) {
  const [kind, setKind] = useState<ServiceKind | 'workflow'>('application');
  const env = useQuery({
    queryKey: ['environment', props.envId],
    queryFn: () => call(api.GET('/environment/{environmentId}', { params: { path: { environmentId: props.envId } } })),
  });
  // a service created without auto_preview takes its environment's: the box starts as that
  const fields = useOrgOptions(props.orgId, kind === 'workflow' ? WORKFLOW_FIELDS : CREATE_FIELDS[kind])
    .map((f) => (f.name === 'auto_preview' && env.data?.auto_preview ? { ...f, hint: 'true' } : f));
  return (
    <div className="card">
      <fieldset className="kinds">
        <legend>Type of service</legend>
        {[...SERVICE_KINDS, 'workflow' as const].map((k) => (
          <label key={k}>
            <input type="radio" name="kind" value={k} checked={kind === k} onChange={() => setKind(k)} /> {LABEL[k]}
          </label>
        ))}
      </fieldset>
      <ResourceForm
        key={kind} title={`New ${LABEL[kind].toLowerCase()}`} submitLabel={`Create ${LABEL[kind].toLowerCase()}`} fields={fields} onCancel={props.onCancel}
        onSubmit={async (body) => {
          if (kind === 'workflow') {
            const w = await json<{ id: string }>('POST', `/environment/${props.envId}/agenticWorkflow`, body);
            props.onCreated(`/ui/workflows/${w.id}`);
            return;
          }
          const created = await json<{ id: string }>('POST', `/environment/${props.envId}/${kind}`, completePorts(body));
          props.onCreated(`/ui/services/${kind}/${created.id}`);
        }}
      />
    </div>
  );
}
