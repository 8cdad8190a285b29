// The engine's one public face: everything outside src/engine (modules, workers, the composition
// root, the CLI, the benches) imports the engine from this file only, so what is behind it — the
// simulated, docker and swarm drivers, agent runs, the ingress, the renderers — can move without
// touching its callers. What the engine offers the rest of berth:
// - the EngineDriver interface the deployment runner and the workflow steps call step by step
//   (build, apply, stop, restart, uninstall, status, run a job or an agent), its types, and
//   EngineFailure, the one error a step throws for the user to see;
// - choosing the driver at start from the config (selectEngine), and the simulated driver itself;
// - the runtime plan a real driver runs, which the deployments module fills from the database,
//   with the image references and registry credentials it carries;
// - public links of a service's ports, and the Kubernetes objects and YAML of the manifest endpoint;
// - the specs of agent runs the workflows module fills, and where their repositories land;
// - the engine's git policy and tool runner for the modules that ask a remote something, and
//   Docker's log timestamps as the observers store them;
// - the Docker and Swarm driver parts the engine-specific workers drive (the observers, the
//   autoscaler): they run only with their engine and hold the driver they act through;
// - on demand (loaded only when called, so a process that never needs them does not carry them):
//   the ingress proxy's process or container for `berth ingress`, and two driver internals the benches measure
//   berth against.
// Pure helpers with no engine knowledge (redacting credentials from URLs, the address a port is
// published on) are in src/lib/net.ts.

// the driver interface and its types
export { EngineFailure } from './engine.ts';
export type { BuildResult, DatabaseBackups, DomainIngress, DriverService, EngineDriver, EngineNode, LogSink } from './engine.ts';
export { selectEngine } from './select.ts';
export { createSimulatedDriver, type SimulatedDriver, type SimulatedSettings } from './simulated.ts';
export { serviceSettings } from './settings.ts';

// what a real driver runs
export type { GitPlan, JobPlan, PortPlan, ProbePlan, RegistryAuth, RuntimePlan, SourcePlan } from './plan.ts';
export { imageReference, registryAuthFor } from './registry.ts';

// links and manifests
export { publicLinks, serviceHost } from './links.ts';
export { renderService, type K8sObject } from './render.ts';
export { toYaml } from './yaml.ts';

// agent runs
export type { AgentContextService, AgentModel, AgentRepository, AgentRunOutcome, AgentRunSpec, McpServerEntry } from './agent/spec.ts';
export { repositoryDirs } from './agent/workspace.ts';

// git, tools and log times
export { checkGitUrl, gitEnv, lastErrorLine } from './git.ts';
export { runTool } from './process.ts';
export { isoOfMicros } from './log-time.ts';

// the docker driver's parts its workers drive (engine observer, autoscaler)
export type { DockerDriver } from './docker/driver.ts';
export { containerName, labelFilter, networkName, parseRoutes } from './docker/naming.ts';
export { observeDocker, type DockerObserver } from './docker/observer.ts';
export { publishedPorts, stopAndRemove } from './docker/replicas.ts';
export { livenessChecker } from './docker/liveness.ts';
export { defaultReadiness } from './docker/health.ts';
export { keptReplicas, replicaIndex, retireReplica, routeTo, sampleReplica, startReplica, versionReplicas } from './docker/autoscale.ts';

// the swarm driver's parts its observer drives
export type { SwarmDriver } from './swarm/driver.ts';
export { followServiceLogs, type LogFollow, type TaskLine } from './swarm/logs.ts';

/** `berth ingress status|stop`: the detached HAProxy that serves public URLs (a host process or a container), its files and how it runs */
export async function loadIngressProcess() {
  const [{ createHaproxyIngress }, { findHaproxy, ingressPaths, probe }, { ingressLaunchers }] = await Promise.all([
    import('./ingress/haproxy.ts'), import('./ingress/haproxy-process.ts'), import('./select.ts'),
  ]);
  return { createHaproxyIngress, findHaproxy, ingressPaths, probe, ingressLaunchers };
}

/** for the benches that compare berth with the same steps done by hand: the docker driver's image build, and the healthcheck the swarm driver gives a probe */
export async function loadDriverInternals() {
  const [{ buildImage }, { healthcheckOf }] = await Promise.all([import('./docker/build.ts'), import('./swarm/spec.ts')]);
  return { buildImage, healthcheckOf };
}
