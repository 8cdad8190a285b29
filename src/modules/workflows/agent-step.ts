// The APPLY step of an agentic workflow's deployment: the run's agent, through the engine's
// runAgent. The deployment runner hands it the deployment's handle, whose beat keeps the
// heartbeat while the agent works quietly (a model can think for minutes without a log line;
// without it the sweep would take the run for abandoned and start it twice) and says when a
// cancel was requested through another process. The harness's figures are recorded on the run; a
// failure is the deployment's (and so the run's) message. The run's berth credential is revoked
// when the agent stops, whatever stopped it.
import { EngineFailure, type DriverService, type LogSink } from '../../engine/index.ts';
import type { Platform } from '../../platform.ts';
import type { RunningDeployment } from '../deployments/runner.ts';
import type { RunCredentialsService } from '../run-credentials/run-credentials.service.ts';
import { prepareAgentRun, recordAgentOutcome, type AgentRunDeps } from './agent-run.ts';

/** the platform's parts, and the services the run reads (context services' rows, provider, connectors) and its credential's */
export type AgentStepDeps = Pick<Platform, 'db' | 'config' | 'engine' | 'sealer'> & Pick<AgentRunDeps, 'services' | 'llmProviders' | 'mcpServers'> & {
  runCredentials: Pick<RunCredentialsService, 'mint' | 'revoke'>;
};

const agentRunSettings = { heartbeatMs: 5000 };

export async function runWorkflowAgent(ctx: AgentStepDeps, target: DriverService, log: LogSink, signal: AbortSignal, deployment: RunningDeployment): Promise<void> {
  const deploymentId = target.deploymentId;
  if (!deploymentId) throw new EngineFailure('deploy', 'The workflow deployment has no id (internal error)');
  const prepared = await prepareAgentRun({
    db: ctx.db, sealer: ctx.sealer, services: ctx.services, llmProviders: ctx.llmProviders, mcpServers: ctx.mcpServers, runCredentials: ctx.runCredentials, ingress: { domain: ctx.config.ingressDomain, port: ctx.config.ingressPort }, requireCredential: ctx.engine.real,
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
      if (await deployment.beat()) own.abort(new Error('canceled'));
    })().catch(() => {});
  }, agentRunSettings.heartbeatMs);
  let outcome;
  try {
    outcome = await ctx.engine.runAgent(prepared.spec, log, AbortSignal.any([signal, own.signal]));
  } finally {
    clearInterval(beat);
    // the run's berth credential stops working with the run, whatever ended it
    await ctx.runCredentials.revoke(prepared.runId).catch(() => {});
  }
  await recordAgentOutcome(ctx.db, prepared.runId, outcome);
  if (outcome.status === 'FAILED') throw new EngineFailure('deploy', outcome.message ?? 'The agent failed');
}
