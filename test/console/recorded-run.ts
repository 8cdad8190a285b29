// Support for the console's run tests: a finished agentic workflow run written straight into the
// database as the Docker engine's runner leaves it (a settled deployment of the workflow, its log
// lines as src/engine/agent/transcript.ts words them, the run with its result and figures), so the
// run view can be shown what the simulated engine never produces: assistant text, tool calls and
// results, refused egress, errors, a cost. Its deliveries to the outputs are queued as when a run
// settles.
import { enqueueOutputDeliveries } from '../../src/modules/workflows/outputs.service.ts';
import type { SeededEnvironment } from '../support/factories.ts';
import type { TestApp } from '../support/harness.ts';

export interface RecordedRun {
  status: 'SUCCEEDED' | 'FAILED';
  result: string | null;
  message?: string | null;
  payload?: unknown;
  lines: Array<['BUILD' | 'DEPLOY' | 'RUNTIME', string]>;
  figures?: { numTurns: number | null; inputTokens: number | null; outputTokens: number | null; costUsd: number | null; durationMs: number };
}

/** inserts the run (newest of its workflow) and returns its id */
export async function recordRun(t: TestApp, env: SeededEnvironment, workflowId: string, run: RecordedRun): Promise<string> {
  const f = run.figures ?? { numTurns: 1, inputTokens: 10, outputTokens: 5, costUsd: 0.0001, durationMs: 1500 };
  const seconds = Math.max(1, Math.round(f.durationMs / 1000));
  const dep = await t.ctx.db.query<{ id: string }>(
    `insert into deployments (organization_id, project_id, environment_id, service_id, service_type, action, status, finished, origin, triggered_by,
       message, created_at, started_at, finished_at)
     values ($1, $2, $3, $4, 'AGENTIC_WORKFLOW', 'DEPLOY', $5, true, 'WEBHOOK', 'agentic workflow webhook', $6,
       now() - make_interval(secs => $7), now() - make_interval(secs => $7), now()) returning id`,
    [env.organizationId, env.projectId, env.id, workflowId, run.status === 'SUCCEEDED' ? 'DEPLOYED' : 'DEPLOYMENT_ERROR', run.message ?? null, seconds]);
  const deploymentId = dep[0]!.id;
  await t.ctx.db.transaction(async (tx) => {
    for (const [i, [kind, message]] of run.lines.entries()) {
      await tx.query(
        `insert into deployment_logs (deployment_id, service_id, kind, message, created_at)
         values ($1, $2, $3, $4, now() - make_interval(secs => $5))`,
        [deploymentId, workflowId, kind, message, seconds * (1 - i / run.lines.length)]);
    }
  });
  const rows = await t.ctx.db.query<{ id: string }>(
    `insert into agentic_workflow_runs (workflow_id, organization_id, trigger, payload, status, message, result, num_turns, input_tokens, output_tokens,
       cost_usd, duration_ms, deployment_id, created_at, started_at, finished_at)
     values ($1, $2, 'WEBHOOK', $3::jsonb, $4, $5, $6, $7, $8, $9, $10, $11, $12,
       now() - make_interval(secs => $13), now() - make_interval(secs => $13), now()) returning id`,
    [workflowId, env.organizationId, run.payload === undefined ? null : JSON.stringify(run.payload), run.status, run.message ?? null, run.result,
      f.numTurns, f.inputTokens, f.outputTokens, f.costUsd, f.durationMs, deploymentId, seconds]);
  const runId = rows[0]!.id;
  await t.ctx.db.transaction((tx) => enqueueOutputDeliveries(tx, { queue: t.ctx.queue, sealer: t.ctx.sealer }, runId));
  return runId;
}

/** a triage agent's run on the Docker engine: the transcript the docs picture shows */
export const TRIAGE_RUN: RecordedRun = {
  status: 'SUCCEEDED',
  payload: { alert: 'disk full on db-1', severity: 'critical', incident: 'PX4N2' },
  result: [
    'db-1: /var/lib/postgresql is 97% full, driven by WAL kept for the stalled replication slot replica_2.',
    '',
    'Next steps:',
    '1. Check why replica-2 stopped streaming (its host was rebooted at 03:12).',
    "2. If it is gone for good, drop the slot: SELECT pg_drop_replication_slot('replica_2');",
    '',
    'Posted to incident PX4N2.',
  ].join('\n'),
  figures: { numTurns: 6, inputTokens: 18432, outputTokens: 1206, costUsd: 0.0724, durationMs: 48213 },
  lines: [
    ['DEPLOY', 'Egress through the proxy only, to: api.anthropic.com, github.com, api.pagerduty.com'],
    ['DEPLOY', 'Cloning https://github.com/acme/ops-runbooks.git (branch main) into /workspace/ops-runbooks'],
    ['DEPLOY', 'Starting the agent (max 20 turns, timeout 900 s, 1000 mCPU, 1024 MiB)'],
    ['RUNTIME', 'Agent started: model claude-sonnet-4-5, 17 tools, MCP servers: pagerduty (connected)'],
    ['RUNTIME', 'egress allowed: api.anthropic.com'],
    ['RUNTIME', "assistant: I'll read the runbook for a full disk on a database host, then look at the incident."],
    ['RUNTIME', 'tool call: Read {"file_path":"/workspace/ops-runbooks/db/disk-full.md"}'],
    ['RUNTIME', 'tool result (Read): # Disk full on a database host 1. Find what grows under /var/lib/postgresql 2. Check replication slots…'],
    ['RUNTIME', 'tool call: mcp__pagerduty__get_incident {"incident_id":"PX4N2"}'],
    ['RUNTIME', 'tool result (mcp__pagerduty__get_incident): {"id":"PX4N2","status":"triggered","service":"db-1","title":"disk full on db-1"}'],
    ['RUNTIME', 'tool call: WebFetch {"url":"https://metrics.internal.example.net/d/db-1"}'],
    ['RUNTIME', 'egress refused: metrics.internal.example.net is not in governance.host_allowlist'],
    ['RUNTIME', 'tool error (WebFetch): Request failed with status code 403'],
    ['RUNTIME', 'assistant: The metrics host is not allowed from here; the runbook and the incident are enough to triage.'],
    ['RUNTIME', 'tool call: mcp__pagerduty__add_note {"incident_id":"PX4N2","note":"db-1: WAL kept for replica_2…"}'],
    ['RUNTIME', 'tool result (mcp__pagerduty__add_note): {"ok":true}'],
    ['RUNTIME', 'Agent finished (success): 6 turns, 18432 tokens in, 1206 out, $0.0724'],
    ['RUNTIME', 'result: db-1: /var/lib/postgresql is 97% full, driven by WAL kept for the stalled replication slot replica_2.'],
  ],
};
