// The acting tools of berth's MCP server: deploy, redeploy, stop, restart and roll back a service
// (optionally waiting, bounded, for its final status with progress notifications), set and delete
// variables (secret values write-only), start a workflow run. Each is the service call the REST
// route makes, recorded in the audit log, and marked for clients to ask the person first.
import { Type } from 'typebox';
import { badRequest, forbidden, notFound } from '../../lib/errors.ts';
import type { DeploymentAction, DeploymentRecord } from '../../modules/deployments/deployments.service.ts';
import { EnvironmentVariableRequest } from '../../modules/variables/variables.schemas.ts';
import { scopeOfServiceType } from '../../modules/variables/parents.ts';
import type { TargetType } from '../../modules/audit/audit.rules.ts';
import type { ServicePlace } from '../../modules/scope/names.ts';
import { findEnvironment, findService } from '../../modules/scope/names.ts';
import { labelOf } from '../places.ts';
import { EnvironmentWord, OrganizationWord, ProjectWord, ServicePlaceInput, tool, type ToolCall } from '../tool.ts';

const DEPLOYABLE = new Set(['APPLICATION', 'CONTAINER', 'DATABASE', 'JOB']);
const WAIT_MAX_SECONDS = 900;

const Wait = {
  wait: Type.Optional(Type.Boolean({ default: false, description: 'wait until the deployment is finished and answer its final status (progress is notified meanwhile)' })),
  wait_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: WAIT_MAX_SECONDS, default: 300, description: `how long to wait at most (default 300, at most ${WAIT_MAX_SECONDS}); the deployment goes on after` })),
};

async function deployable(call: ToolCall, words: Parameters<typeof findService>[2], action: DeploymentAction): Promise<ServicePlace> {
  const s = await findService(call.ctx.db, call.principal, words);
  if (!DEPLOYABLE.has(s.service_type)) {
    throw badRequest(s.service_type === 'AGENTIC_WORKFLOW' ? `${s.service_name} is an agentic workflow: start it with run_workflow` : `${s.service_type} services cannot be deployed here`);
  }
  if (action === 'RESTART' && s.service_type === 'JOB') throw badRequest('A job cannot be restarted: deploy it again');
  return s;
}

/** the deployment, followed until it is finished or the wait is over */
async function settle(call: ToolCall, d: DeploymentRecord, wait: boolean | undefined, seconds: number | undefined): Promise<{ deployment: DeploymentRecord; finished: boolean; waited_seconds?: number }> {
  if (!wait) return { deployment: d, finished: d.finished };
  const started = Date.now();
  const until = started + (seconds ?? 300) * 1000;
  let current = d;
  let reported = '';
  let step = 0;
  while (!current.finished && Date.now() < until && !call.signal.aborted) {
    if (current.status !== reported) {
      reported = current.status;
      await call.progress(++step, undefined, `${current.service_name}: ${current.status}`);
    }
    await new Promise((r) => setTimeout(r, 500));
    current = await call.ctx.services.deployments.get(call.principal, d.id);
  }
  return { deployment: current, finished: current.finished, waited_seconds: Math.round((Date.now() - started) / 1000) };
}

function actionTool(action: DeploymentAction, name: string, title: string, description: string, hints: { destructiveHint: boolean; idempotentHint: boolean }) {
  return tool({
    name, title, description, action: 'write', reach: 'environment', hints: { ...hints, openWorldHint: false },
    input: Type.Object({
      ...ServicePlaceInput, ...Wait,
      ...(action === 'DEPLOY' ? {
        git_commit_id: Type.Optional(Type.String({ minLength: 1, description: 'an application or job from git: the commit to deploy (default: the branch\'s head)' })),
        image_tag: Type.Optional(Type.String({ minLength: 1, description: 'a container or job from an image: the tag to deploy (default: the configured one)' })),
      } : {}),
    }),
    run: async (call, a: Record<string, unknown> & { service: string; wait?: boolean; wait_seconds?: number }) => {
      const s = await deployable(call, a as never, action);
      const body = { git_commit_id: (a.git_commit_id as string | undefined) ?? null, image_tag: (a.image_tag as string | undefined) ?? null };
      const d = await call.ctx.services.deployments.act(call.principal, s.service_id, s.service_type, labelOf(s.service_type), action, body);
      await call.audit(`TRIGGER_${action}`, s.service_type as TargetType, s.service_id);
      return settle(call, d, a.wait, a.wait_seconds);
    },
  });
}

const VariableOwner = {
  service: Type.Optional(Type.String({ minLength: 1, description: 'the service whose variable it is (name or id); omit it for a variable of the whole environment' })),
  environment: EnvironmentWord, project: ProjectWord, organization: OrganizationWord,
};
type OwnerWords = { service?: string | undefined; environment?: string | undefined; project?: string | undefined; organization?: string | undefined };

/** the variable scope and parent the words name: a service's own, or its environment's */
async function owner(call: ToolCall, a: OwnerWords): Promise<{ scope: string; parentId: string; targetType: TargetType; targetId: string }> {
  if (a.service) {
    const s = await findService(call.ctx.db, call.principal, { ...a, service: a.service });
    const scope = scopeOfServiceType(s.service_type);
    if (!scope) throw badRequest(`${s.service_type} services have no variables of their own`);
    return { scope, parentId: s.service_id, targetType: s.service_type as TargetType, targetId: s.service_id };
  }
  if (call.principal.kind === 'token' && call.principal.runScope) throw forbidden('A workflow run\'s credential changes only the variables of its context services');
  if (!a.environment) throw badRequest('Name the service or the environment the variable belongs to');
  const env = await findEnvironment(call.ctx.db, call.principal, { ...a, environment: a.environment });
  return { scope: 'ENVIRONMENT', parentId: env.environment_id, targetType: 'ENVIRONMENT', targetId: env.environment_id };
}

async function variableByKey(call: ToolCall, o: { scope: string; parentId: string }, key: string) {
  const all = await call.ctx.services.variables.list(call.principal, o.scope, o.parentId, 'any', { page: 1, pageSize: 0, limit: null, offset: 0 });
  return all.results.find((v) => v.key === key && v.parent_id === o.parentId) ?? null;
}

const shown = (v: { id: string; key: string; is_secret: boolean; value: string | null; scope: string }) =>
  ({ id: v.id, key: v.key, scope: v.scope, is_secret: v.is_secret, value: v.is_secret ? null : v.value });

export const actTools = [
  actionTool('DEPLOY', 'deploy_service', 'Deploy a service', 'Deploy a service with its current settings (an application or job from git builds the branch\'s head, or the commit given). The service keeps serving until the new version is ready.', { destructiveHint: false, idempotentHint: false }),
  actionTool('REDEPLOY', 'redeploy_service', 'Redeploy a service', 'Deploy a service again with the version it runs now (e.g. to apply changed variables or settings).', { destructiveHint: false, idempotentHint: false }),
  actionTool('RESTART', 'restart_service', 'Restart a service', 'Restart a running service\'s containers without building anything.', { destructiveHint: false, idempotentHint: false }),
  actionTool('STOP', 'stop_service', 'Stop a service', 'Stop a service: it stops answering until it is deployed again.', { destructiveHint: true, idempotentHint: true }),
  tool({
    name: 'rollback_service', title: 'Roll a service back', action: 'write', reach: 'environment', hints: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
    description: 'Deploy the version (git commit or image tag) a previous deployment of the service deployed. Find the deployment with list_deployments.',
    input: Type.Object({ ...ServicePlaceInput, deployment_id: Type.String({ format: 'uuid', description: 'the earlier deployment whose version to deploy again' }), ...Wait }),
    run: async (call, a) => {
      const s = await deployable(call, a, 'DEPLOY');
      const earlier = await call.ctx.services.deployments.get(call.principal, a.deployment_id);
      if (earlier.service_id !== s.service_id) throw notFound(`Deployment ${a.deployment_id} of ${s.service_name}`);
      if (!earlier.git_commit_id && !earlier.image_tag) throw badRequest('That deployment recorded no version (git commit or image tag) to go back to');
      const d = await call.ctx.services.deployments.act(call.principal, s.service_id, s.service_type, labelOf(s.service_type), 'DEPLOY',
        { git_commit_id: earlier.git_commit_id, image_tag: earlier.image_tag });
      await call.audit('TRIGGER_DEPLOY', s.service_type as TargetType, s.service_id, JSON.stringify({ rollback_to: a.deployment_id }));
      return settle(call, d, a.wait, a.wait_seconds);
    },
  }),
  tool({
    name: 'set_variable', title: 'Set an environment variable or secret', action: 'write', reach: 'environment',
    hints: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description: 'Create or change an environment variable of a service or of a whole environment. A secret\'s value is stored encrypted and never shown again. Takes effect at the service\'s next deployment (redeploy_service).',
    input: Type.Object({
      ...VariableOwner, key: EnvironmentVariableRequest.properties.key, value: EnvironmentVariableRequest.properties.value,
      secret: Type.Optional(Type.Boolean({ default: false, description: 'store it as a secret (write-only)' })),
    }),
    run: async (call, a) => {
      const o = await owner(call, a);
      const existing = await variableByKey(call, o, a.key);
      const row = existing
        ? await call.ctx.services.variables.edit(call.principal, { scope: o.scope, id: o.parentId }, existing.id, 'any', { key: a.key, value: a.value })
        : await call.ctx.services.variables.create(call.principal, o.scope, o.parentId, { key: a.key, value: a.value, is_secret: a.secret ?? false });
      await call.audit(existing ? 'UPDATE' : 'CREATE', o.targetType, o.targetId, JSON.stringify({ variable: a.key }));
      return { variable: shown(row), created: !existing };
    },
  }),
  tool({
    name: 'delete_variable', title: 'Delete an environment variable or secret', action: 'write', reach: 'environment',
    hints: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    description: 'Delete an environment variable or secret of a service or of a whole environment, by its key.',
    input: Type.Object({ ...VariableOwner, key: EnvironmentVariableRequest.properties.key }),
    run: async (call, a) => {
      const o = await owner(call, a);
      const existing = await variableByKey(call, o, a.key);
      if (!existing) throw notFound(`Variable ${a.key}`);
      await call.ctx.services.variables.remove(call.principal, { scope: o.scope, id: o.parentId }, existing.id, 'any');
      await call.audit('DELETE', o.targetType, o.targetId, JSON.stringify({ variable: a.key }));
      return { deleted: a.key };
    },
  }),
  tool({
    name: 'run_workflow', title: 'Start an agentic workflow run', action: 'write', reach: 'environment',
    hints: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    description: 'Start a run of an agentic workflow now (trigger MANUAL), with an optional JSON payload the agent reads. Follow it with list_workflow_runs.',
    input: Type.Object({
      workflow: Type.String({ minLength: 1, description: 'the agentic workflow: its name (case-insensitive) or its id' }),
      environment: EnvironmentWord, project: ProjectWord, organization: OrganizationWord,
      payload: Type.Optional(Type.Unknown({ description: 'any JSON value, handed to the agent' })),
    }),
    run: async (call, a) => {
      const s = await findService(call.ctx.db, call.principal, { ...a, service: a.workflow });
      if (s.service_type !== 'AGENTIC_WORKFLOW') throw badRequest(`${s.service_name} is a ${s.service_type}, not an agentic workflow`);
      const run = await call.ctx.services.workflowRuns.start(call.principal, s.service_id, a.payload ?? null);
      await call.audit('TRIGGER_DEPLOY', 'AGENTIC_WORKFLOW', s.service_id);
      return run;
    },
  }),
];
