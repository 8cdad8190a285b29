// Resources of berth's MCP server, for what reads better as a document than as a tool answer: a
// deployment's whole log (text) and a service's rendered Kubernetes manifests (YAML). Addressed by
// id through two URI templates; read with the same authorization as the REST routes (a failure is
// a JSON-RPC error whose data is berth's error body).
import { ErrorCode, McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppContext } from '../context.ts';
import { AppError, badRequest, reasonPhrase } from '../lib/errors.ts';
import type { Principal } from '../modules/access/principal.ts';
import { renderServiceManifests } from '../modules/deployments/manifests.ts';
import { checkRunScope, loadServiceScope } from '../modules/scope/scope.service.ts';
import { toYaml } from '../engine/index.ts';
import { labelOf } from './places.ts';

export const RESOURCE_TEMPLATES = [
  { uriTemplate: 'berth://deployment/{deployment_id}/log', name: 'deployment-log', title: 'Log of a deployment', mimeType: 'text/plain',
    description: 'Every line of one deployment\'s build and deployment log (at most the last 10000)' },
  { uriTemplate: 'berth://service/{service_id}/manifests', name: 'service-manifests', title: 'Kubernetes manifests of a service', mimeType: 'application/yaml',
    description: 'The Kubernetes objects berth renders for a service (secret values blanked)' },
];

const DEPLOYMENT_LOG = /^berth:\/\/deployment\/([0-9a-f-]{36})\/log$/i;
const MANIFESTS = /^berth:\/\/service\/([0-9a-f-]{36})\/manifests$/i;

async function read(ctx: AppContext, p: Principal, uri: string): Promise<ReadResourceResult> {
  const log = DEPLOYMENT_LOG.exec(uri);
  if (log) {
    const d = await ctx.services.deployments.get(p, log[1]!);
    checkRunScope(p, d.environment_id, d.service_id);
    const lines = await ctx.services.deployments.deploymentLogs(p, d.id, { page: 1, pageSize: 10_000, limit: 10_000, offset: 0 }, 10_000);
    return { contents: [{ uri, mimeType: 'text/plain', text: lines.results.map((l) => `${l.created_at} ${l.message}`).join('\n') }] };
  }
  const manifests = MANIFESTS.exec(uri);
  if (manifests) {
    const s = await loadServiceScope(ctx.db, manifests[1]!);
    const type = s?.serviceType ?? 'APPLICATION';
    const objects = await renderServiceManifests({ db: ctx.db, sealer: ctx.sealer, scope: ctx.services.scope }, p, manifests[1]!, type, labelOf(type));
    return { contents: [{ uri, mimeType: 'application/yaml', text: toYaml(objects) }] };
  }
  throw badRequest(`Unknown resource ${uri}: berth serves ${RESOURCE_TEMPLATES.map((t) => t.uriTemplate).join(' and ')}`);
}

export async function readResource(ctx: AppContext, p: Principal, uri: string): Promise<ReadResourceResult> {
  try {
    return await read(ctx, p, uri);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const code = err.status === 404 || err.status === 400 ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest;
    throw new McpError(code, err.message, { status: err.status, error: reasonPhrase(err.status), message: err.message, code: err.code });
  }
}
