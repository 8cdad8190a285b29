// The prompt an agent run receives (pure): the workflow's agent_prompt, then what started the run
// (the webhook's JSON body, the schedule occurrence, or a person), where its final answer goes
// (each output's instructions), the platform services it was given as context, and the
// repositories cloned into its workspace.
import type { AgentContextService } from '../../engine/index.ts';
import type { OutputSpec } from './workflows.rules.ts';

export const PAYLOAD_PROMPT_LIMIT = 64 * 1024;

export interface PromptInput {
  agentPrompt: string;
  trigger: string;
  triggeredBy: string | null;
  payload: unknown;
  scheduledFor: string | null;
  outputs: OutputSpec[];
  services: AgentContextService[];
  repositories: Array<{ dir: string; url: string; branch: string; commit?: string | null }>;
  cloneEnvironment: boolean;
}

function describeTrigger(p: PromptInput): string {
  if (p.trigger === 'SCHEDULE') return `This run was started by the workflow's schedule, for the occurrence of ${p.scheduledFor ?? 'now'}.`;
  if (p.trigger === 'PULL_REQUEST') {
    return `This run was started by ${p.triggeredBy ?? 'a pull request'} once its preview environment was deployed and healthy at the head commit: `
      + 'the payload names the pull request and the preview\'s services with their URLs; your final answer is posted to the pull request as the verdict.';
  }
  if (p.trigger === 'MANUAL') return `This run was started by hand${p.triggeredBy ? ` by ${p.triggeredBy}` : ''}.`;
  return "This run was started by a call to the workflow's webhook.";
}

export function composePrompt(p: PromptInput): string {
  const parts: string[] = [p.agentPrompt.trim() || 'Carry out the task this workflow was triggered for.'];
  const trigger = [describeTrigger(p)];
  if (p.payload !== null && p.payload !== undefined) {
    const json = JSON.stringify(p.payload, null, 2);
    trigger.push('Its payload (JSON):', '```json', json.length > PAYLOAD_PROMPT_LIMIT ? `${json.slice(0, PAYLOAD_PROMPT_LIMIT)}\n… (truncated)` : json, '```');
  }
  parts.push(`## Trigger\n${trigger.join('\n')}`);
  const outputs = p.outputs.filter((o) => o.url || o.instructions.trim());
  if (outputs.length) {
    parts.push(['## Outputs', 'Your final answer is delivered to each of these outputs when the run ends:',
      ...outputs.map((o) => `- ${o.name}${o.instructions.trim() ? `: ${o.instructions.trim()}` : ''}`)].join('\n'));
  }
  if (p.services.length) {
    const where = p.trigger === 'PULL_REQUEST'
      ? 'They run in the pull request\'s preview environment (a copy of the workflow\'s environment running the pull request\'s code): work on these copies, never the original.'
      : p.cloneEnvironment
      ? 'They run in a throwaway copy of the environment made for this run: work on these copies, never the original.'
      : 'They run in the workflow\'s own environment.';
    parts.push(['## Platform services', `${where} Also in /berth/context.json and the BERTH_SERVICE_<NAME>_* environment variables.`,
      ...p.services.map((s) => `- ${s.name} (${s.type}): host ${s.host}${s.ports.length ? `, ports ${s.ports.join(', ')}` : ''}`
        + `${s.public_url ? `, public URL ${s.public_url}` : ''}, status ${s.status}`)].join('\n'));
  }
  if (p.repositories.length) {
    parts.push(['## Repositories', 'Cloned into your workspace:', ...p.repositories.map((r) => `- /workspace/${r.dir}: ${r.url} (branch ${r.branch}${r.commit ? `, at commit ${r.commit}` : ''})`)].join('\n'));
  }
  return `${parts.join('\n\n')}\n`;
}
