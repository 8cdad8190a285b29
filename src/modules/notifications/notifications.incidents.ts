// The incidents of berth's own failure sources, as pure mappings the composition root calls
// (src/services.ts): a failed deployment is its service's incident (resolved by the service's next
// successful deployment action), a failed agent run its workflow's (resolved by the next
// successful run). Backups raise theirs from the backups module.
import type { IncidentInput } from './notifications.rules.ts';

/** one incident per service */
export const deploymentIncidentKey = (serviceId: string) => `deployment:${serviceId}`;
/** one incident per agentic workflow */
export const agentRunIncidentKey = (workflowId: string) => `agent-run:${workflowId}`;

export function deploymentFailedIncident(d: {
  id: string; service_id: string; service_name: string; service_type: string; status: string; action: string; message: string | null;
}): IncidentInput {
  const what = d.service_type.toLowerCase().replaceAll('_', ' ');
  return {
    key: deploymentIncidentKey(d.service_id), kind: 'DEPLOYMENT_FAILED',
    title: `${d.service_name || d.service_id} (${what}): ${d.action} ended ${d.status}`,
    text: [`The ${d.action} of ${what} ${d.service_name || d.service_id} failed with status ${d.status}.`,
      d.message ? `Reason: ${d.message}` : null,
      `Deployment ${d.id}. No further message is sent while it keeps failing; its next successful deployment closes the incident.`]
      .filter(Boolean).join('\n'),
  };
}

export function agentRunFailedIncident(run: { id: string; workflowId: string; workflowName: string; message: string | null }): IncidentInput {
  return {
    key: agentRunIncidentKey(run.workflowId), kind: 'AGENT_RUN_FAILED',
    title: `agentic workflow ${run.workflowName}: a run failed`,
    text: [`Run ${run.id} of agentic workflow ${run.workflowName} failed.`, run.message ? `Reason: ${run.message}` : null,
      'No further message is sent while its runs keep failing; its next successful run closes the incident.'].filter(Boolean).join('\n'),
  };
}
