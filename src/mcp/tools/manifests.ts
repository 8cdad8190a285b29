// The infrastructure-as-code tools of berth's MCP server (issue 41, decision 0745): `plan` a
// berth.yaml (what would change, field by field; nothing written) and `apply` it (one
// transaction, all or nothing). Both are the call the REST routes make
// (ctx.services.manifests, which authorizes: apply needs a role that may write).
import { Type } from 'typebox';
import { ApplyRequest } from '../../modules/manifests/manifest.schemas.ts';
import { findOrganization } from '../../modules/scope/names.ts';
import { OrganizationWord, tool, type ToolCall } from '../tool.ts';

const Input = Type.Object({
  document: ApplyRequest.properties.document,
  file: ApplyRequest.properties.file,
  prune: ApplyRequest.properties.prune,
  secret_values: ApplyRequest.properties.secret_values,
  organization: OrganizationWord,
});

async function orgOf(call: ToolCall, word: string | undefined): Promise<string> {
  return (await findOrganization(call.ctx.db, call.principal, word)).id;
}

export const manifestTools = [
  tool({
    name: 'plan', title: 'Plan a berth.yaml', action: 'read', reach: 'organization',
    description: 'Check a berth.yaml (a project and its environments as a file: services, variables, secrets by reference, deployment rules, advanced settings, custom domains) and answer what applying it would change: per resource create, update (field by field), unchanged or delete (with prune). Nothing is written. A bad file answers every problem with its line and column. Secrets are references ({ from: env:NAME } filled from secret_values, or { from: secret:NAME }), never values.',
    input: Input,
    run: async (call, a) => call.ctx.services.manifests.applyToOrganization(call.principal, await orgOf(call, a.organization), {
      document: a.document, ...(a.file ? { file: a.file } : {}), ...(a.prune !== undefined ? { prune: a.prune } : {}), ...(a.secret_values ? { secret_values: a.secret_values } : {}),
    }, true),
  }),
  tool({
    name: 'apply', title: 'Apply a berth.yaml', action: 'write', reach: 'organization',
    hints: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    description: 'Apply a berth.yaml to the organization (its project found by name, made when missing): every change in one transaction, all or nothing; applying the same file twice changes nothing. prune deletes what this file created and no longer names; deploy queues a deployment of each service that changed. Run plan first and show the person what will change.',
    input: Type.Object({ ...Input.properties, deploy: ApplyRequest.properties.deploy }),
    run: async (call, a) => {
      const result = await call.ctx.services.manifests.applyToOrganization(call.principal, await orgOf(call, a.organization), {
        document: a.document, ...(a.file ? { file: a.file } : {}), ...(a.prune !== undefined ? { prune: a.prune } : {}),
        ...(a.deploy !== undefined ? { deploy: a.deploy } : {}), ...(a.secret_values ? { secret_values: a.secret_values } : {}),
      }, false);
      if (result.project.id) await call.audit('UPDATE', 'PROJECT', result.project.id, JSON.stringify({ applied: result.file, summary: result.summary }));
      return result;
    },
  }),
];
