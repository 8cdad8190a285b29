// The APPLY step of an agentic workflow's deployment: the run's agent, through the engine's
// runAgent. Keeps the deployment's heartbeat while the agent works quietly (a model can think for
// minutes without a log line; without it the sweep would take the run for abandoned and start it
// twice) and picks up a cancel requested through another process. The harness's figures are
// recorded on the run; a failure is the deployment's (and so the run's) message. The run's berth
// credential is revoked when the agent stops, whatever stopped it.
import type { AppContext } from '../context.ts';
import { EngineFailure, type DriverService, type LogSink } from '../engine/engine.ts';
import * as deploymentsRepo from '../modules/deployments/deployments.repo.ts';
import { prepareAgentRun, recordAgentOutcome } from '../modules/workflows/agent-run.ts';
import { revokeRunCredentials } from '../modules/run-credentials/run-credentials.repo.ts';

type Ctx = Pick<AppContext, 'db' | 'config' | 'engine' | 'sealer'>;

export const agentRunSettings = { heartbeatMs: 5000 };

export async function runWorkflowAgent(ctx: Ctx, target: DriverService, log: LogSink, signal: AbortSignal): Promise<void> {
  const deploymentId = target.deploymentId;
  if (!deploymentId) throw new EngineFailure('deploy', 'The workflow deployment has no id (internal error)');
  const prepared = await prepareAgentRun({
    db: ctx.db, sealer: ctx.sealer, ingress: { domain: ctx.config.ingressDomain, port: ctx.config.ingressPort }, requireCredential: ctx.engine.real,
    berthUrl: ctx.engine.real ? ctx.config.agentBerthUrl : ctx.config.publicUrl,
  }, deploymentId, target.id);
  if (!prepared) {
    await log('DEPLOY', 'This deployment carries no run of the workflow: there is no agent to start');
    return;
  }
  if ('problem' in prepared) throw new EngineFailure('deploy', prepared.problem);
  // the simulated engine marks every line of a run it stands in for
  for (const note of prepared.notes) await log('DEPLOY', `${ctx.engine.real ? '' : '[simulated] '}${note}`);
  const own = new AbortController();
  const beat = setInterval(() => {
    void (async () => {
      await deploymentsRepo.heartbeat(ctx.db, deploymentId);
      const d = await deploymentsRepo.findDeployment(ctx.db, deploymentId);
      if (!d || d.cancel_requested) own.abort(new Error('canceled'));
    })().catch(() => {});
  }, agentRunSettings.heartbeatMs);
  let outcome;
  try {
    outcome = await ctx.engine.runAgent(prepared.spec, log, AbortSignal.any([signal, own.signal]));
  } finally {
    clearInterval(beat);
    // the run's berth credential stops working with the run, whatever ended it
    await revokeRunCredentials(ctx.db, prepared.runId).catch(() => {});
  }
  await recordAgentOutcome(ctx.db, prepared.runId, outcome);
  if (outcome.status === 'FAILED') throw new EngineFailure('deploy', outcome.message ?? 'The agent failed');
}
