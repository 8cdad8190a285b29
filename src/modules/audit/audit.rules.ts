// What a mutating request means for the organization audit log, pure: from the method and the
// route pattern, the event type (CREATE, UPDATE, DELETE, TRIGGER_DEPLOY, CLONE, ACCEPT…), the
// target type (Qovery's OrganizationEventTargetType), the sub-target (VARIABLE, SECRET,
// DEPLOYMENT_RULE, ADVANCED_SETTINGS, API_TOKEN…) and where the target's id comes from: a path
// parameter, a resource to look up (variable, provider, deployment), or the created resource.

export type TargetType =
  | 'ORGANIZATION' | 'PROJECT' | 'ENVIRONMENT' | 'APPLICATION' | 'CONTAINER' | 'DATABASE' | 'JOB' | 'AGENTIC_WORKFLOW'
  | 'CLUSTER' | 'CONTAINER_REGISTRY' | 'WEBHOOK' | 'MEMBERS_AND_ROLES';

/** resources reached by their own id that are not target types: the target is found through them */
export type LookupKind = 'variable' | 'llmProvider' | 'mcpServer' | 'deployment';

export interface AuditClass {
  eventType: string;
  targetType: TargetType;
  subTargetType: string | null;
  /** where the target's id is: a path parameter, or the created resource (response body) */
  target: { param: string } | { created: true; parentType: TargetType | null; parentParam: string | null } | { lookup: LookupKind; param: string | null };
}

const KINDS: Record<string, TargetType> = {
  organization: 'ORGANIZATION', project: 'PROJECT', environment: 'ENVIRONMENT', application: 'APPLICATION',
  container: 'CONTAINER', database: 'DATABASE', job: 'JOB', agenticWorkflow: 'AGENTIC_WORKFLOW', cluster: 'CLUSTER',
  containerRegistry: 'CONTAINER_REGISTRY', webhook: 'WEBHOOK',
};

const SUBS: Record<string, string> = {
  environmentVariable: 'VARIABLE', secret: 'SECRET', deploymentRule: 'DEPLOYMENT_RULE', advancedSettings: 'ADVANCED_SETTINGS',
  apiToken: 'API_TOKEN', member: 'MEMBER_ROLE', inviteMember: 'INVITATION', annotationsGroup: 'ANNOTATIONS_GROUP',
  labelsGroup: 'LABELS_GROUP', transferOwnership: 'TRANSFER_OWNERSHIP', llmProvider: 'CONFIG', mcpServer: 'MCP_SERVER', gitToken: 'GIT_TOKEN',
  gitWebhook: 'GIT_WEBHOOK', customDomain: 'CUSTOM_DOMAIN', preview: 'PREVIEW',
};

const LOOKUPS: Record<string, LookupKind> = { variable: 'variable', llmProvider: 'llmProvider', mcpServer: 'mcpServer', deployment: 'deployment', deploymentQueue: 'deployment' };

const VERBS: Record<string, string> = {
  deploy: 'TRIGGER_DEPLOY', redeploy: 'TRIGGER_REDEPLOY', stop: 'TRIGGER_STOP', 'restart-service': 'TRIGGER_RESTART',
  uninstall: 'TRIGGER_UNINSTALL', cancelDeployment: 'TRIGGER_CANCEL', cancel: 'TRIGGER_CANCEL', clone: 'CLONE', import: 'IMPORT',
  approve: 'ACCEPT',
};

/** requests that change nothing an auditor asks about (a test ping, a redelivery), or are not mutations */
const SKIPPED_LAST = new Set(['test', 'redeliver', 'hook']);

const isParam = (s: string | undefined) => s !== undefined && s.startsWith(':');

export function classify(method: string, routeUrl: string): AuditClass | null {
  if (method !== 'POST' && method !== 'PUT' && method !== 'DELETE') return null;
  const segs = routeUrl.replace(/^\/api\/v1/, '').split('/').filter(Boolean);
  if (segs.length === 0 || segs.some((s) => SKIPPED_LAST.has(s))) return null;
  let target: AuditClass['target'] | null = null;
  let targetType: TargetType | null = null;
  let sub: string | null = null;
  let verb: string | null = null;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    const next = segs[i + 1];
    if (KINDS[seg] && (isParam(next) || (i === segs.length - 1 && method === 'POST' && sub === null))) {
      if (isParam(next)) {
        targetType = KINDS[seg]!;
        target = { param: next!.slice(1) };
        sub = null;
        i += 1;
      } else {
        const parentParam: string | null = target && 'param' in target && !('lookup' in target) ? target.param : null;
        target = { created: true, parentType: targetType, parentParam };
        targetType = KINDS[seg]!;
      }
      continue;
    }
    if (LOOKUPS[seg] && i === 0) {
      target = { lookup: LOOKUPS[seg]!, param: isParam(next) ? next!.slice(1) : null };
      targetType = 'ORGANIZATION';
      sub = SUBS[seg] ?? (seg === 'variable' ? 'VARIABLE' : null);
      if (isParam(next)) i += 1;
      continue;
    }
    if (SUBS[seg]) {
      sub = SUBS[seg]!;
      if (seg === 'inviteMember' && isParam(next) && method === 'POST' && i + 1 === segs.length - 1) verb = 'ACCEPT';
      if (seg === 'transferOwnership') verb = 'UPDATE';
      if (isParam(next)) i += 1;
      continue;
    }
    if (VERBS[seg] && i === segs.length - 1) verb = VERBS[seg]!;
  }
  if (!target || !targetType) return null;
  if ('lookup' in target && target.lookup === 'deployment') return { eventType: verb ?? 'TRIGGER_CANCEL', targetType: 'ENVIRONMENT', subTargetType: null, target };
  if (sub === 'MEMBER_ROLE' || sub === 'INVITATION') targetType = 'MEMBERS_AND_ROLES';
  const eventType = verb ?? (method === 'POST' ? 'CREATE' : method === 'PUT' ? 'UPDATE' : 'DELETE');
  return { eventType, targetType, subTargetType: sub, target };
}
