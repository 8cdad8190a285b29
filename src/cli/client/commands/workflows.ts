// What `berth status` says about the environment's agentic workflows: each with its last run
// (status, trigger, when it started, the first line of its result, as `berth runs` shows a run:
// transcript.ts runCells), or that it has never run.
import { ok, type Api } from '../api.ts';
import { color, printTable } from '../output.ts';
import type { Run, ServiceRef } from '../resolve.ts';
import { runCells } from '../transcript.ts';

export interface WorkflowFacts extends ServiceRef { last_run: Run | null }

/** the workflows with their newest run (one call each, in parallel) */
export function workflowFacts(api: Api, workflows: ServiceRef[]): Promise<WorkflowFacts[]> {
  return Promise.all(workflows.map(async (wf) => {
    const page = await ok(api.GET('/agenticWorkflow/{agenticWorkflowId}/run', { params: { path: { agenticWorkflowId: wf.id }, query: { page_size: 1 } } }));
    return { ...wf, last_run: page.results[0] ?? null };
  }));
}

/** the table of workflows after the services (nothing when there are none) */
export function printWorkflows(rows: WorkflowFacts[]): void {
  if (rows.length === 0) return;
  process.stdout.write('\n');
  printTable(['WORKFLOW', 'LAST RUN', 'TRIGGER', 'STARTED', 'RESULT'], rows.map((w) => {
    if (!w.last_run) return [w.name, color.dim('no runs'), '', '', ''];
    const c = runCells(w.last_run);
    return [w.name, c.status, c.trigger, c.started, c.result];
  }));
}
