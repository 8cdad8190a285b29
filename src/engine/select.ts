// Choosing the engine at start: ENGINE=docker needs a daemon answering at DOCKER_HOST (else the
// start fails with one line saying so), ENGINE=auto takes Docker when it answers and the
// simulated engine otherwise, ENGINE=swarm needs a Swarm manager there (decision 0343), ENGINE=kubernetes is refused until a driver exists. With Docker,
// the ingress proxy (HAProxy) is adopted or started: the host's haproxy, or a container on the
// daemon (INGRESS_RUNTIME, decision 0348); without either the engine still deploys and says
// public URLs are unavailable. The Docker client, driver and ingress modules are loaded only
// when Docker is tried (about 30 MiB a simulated-engine process does not carry).
import type Docker from 'dockerode';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { ConfigError } from '../config/config.ts';
import type { EngineDriver } from './engine.ts';
import { createSimulatedDriver } from './simulated.ts';
import { reachableAddress } from './ingress/routes.ts';

export interface SelectedEngine {
  driver: EngineDriver;
  /** one line for the startup log and banner: which engine, and why */
  description: string;
}

/** a dockerode client for DOCKER_HOST (unix:///path, tcp://host:port, or a bare socket path) */
async function dockerClient(dockerHost: string): Promise<Docker> {
  const { default: DockerClient } = await import('dockerode');
  if (dockerHost.startsWith('unix://')) return new DockerClient({ socketPath: dockerHost.slice('unix://'.length) });
  if (dockerHost.startsWith('/')) return new DockerClient({ socketPath: dockerHost });
  const url = new URL(dockerHost.replace(/^tcp:/, 'http:'));
  return new DockerClient({ host: url.hostname, port: Number(url.port || 2375), protocol: 'http' });
}

async function answers(docker: Docker, timeoutMs: number): Promise<string | null> {
  try {
    await Promise.race([
      docker.ping(),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref()),
    ]);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** `berth ingress status|stop`: every way this data dir's ingress may be running (the host process; the container when a daemon answers) */
export async function ingressLaunchers(config: Config) {
  const docker = await dockerClient(config.dockerHost);
  const { possibleLaunchers } = await import('./ingress/launcher-choice.ts');
  return possibleLaunchers(config, (await answers(docker, 1500)) === null ? docker : null);
}

export async function selectEngine(config: Config, logger: Pick<Logger, 'info' | 'warn'>, options: { startIngress?: boolean } = {}): Promise<SelectedEngine> {
  if (config.engine === 'kubernetes') {
    throw new ConfigError('ENGINE=kubernetes is not available yet: use ENGINE=docker (a Docker daemon at DOCKER_HOST), ENGINE=auto or ENGINE=simulated');
  }
  if (config.engine === 'simulated') {
    return { driver: createSimulatedDriver(), description: 'simulated (ENGINE=simulated): deployments run nothing' };
  }
  const docker = await dockerClient(config.dockerHost);
  const problem = await answers(docker, config.engine === 'auto' ? 1500 : 5000);
  if (problem) {
    if (config.engine === 'swarm') {
      throw new ConfigError(`ENGINE=swarm but no Docker daemon answers at DOCKER_HOST=${config.dockerHost} (${problem}); point DOCKER_HOST at a Swarm manager`);
    }
    if (config.engine === 'docker') {
      throw new ConfigError(`ENGINE=docker but no Docker daemon answers at DOCKER_HOST=${config.dockerHost} (${problem}); start dockerd or set DOCKER_HOST`);
    }
    // the ingress container was asked for: that needs the daemon too (a ConfigError naming DOCKER_HOST)
    if (config.ingressRuntime === 'container') {
      (await import('./ingress/launcher-choice.ts')).chooseLauncher('container', { haproxyBin: undefined, binary: null, dockerHost: config.dockerHost, dockerAnswers: false });
    }
    return { driver: createSimulatedDriver(), description: `simulated: no Docker daemon answers at DOCKER_HOST=${config.dockerHost}, so deployments run nothing (install Docker or set DOCKER_HOST for real ones)` };
  }
  const { createHaproxyIngress, findHaproxy } = await import('./ingress/haproxy.ts');
  const { IngressImageUnavailable, chooseLauncher, launcherFor } = await import('./ingress/launcher-choice.ts');
  const { createDockerDriver } = await import('./docker/driver.ts');
  let ingress = null;
  let ingressNote = '';
  // ENGINE=swarm: the nodes' addresses, which the ingress may dial (the swarm driver keeps the set current)
  const nodeAddresses = new Set<string>();
  if (process.env.CADDY_BIN) logger.warn('CADDY_BIN is no longer read: the ingress proxy is HAProxy (HAPROXY_BIN, decision 0334)');
  // INGRESS_RUNTIME (decision 0348): the host's haproxy, else a container on this daemon, else none
  const choice = chooseLauncher(config.ingressRuntime, {
    haproxyBin: process.env.HAPROXY_BIN, binary: findHaproxy(process.env.HAPROXY_BIN), dockerHost: config.dockerHost, dockerAnswers: true,
    dockerRootless: config.ingressRuntime === 'host' ? false : ((await docker.info()) as { SecurityOptions?: string[] }).SecurityOptions?.includes('name=rootless') ?? false,
  });
  const noIngress = (reason: string) => {
    ingressNote = `; public URLs unavailable: ${reason}`;
    logger.warn(`${reason}: deployments run, but services get no public URL; their links say so`);
  };
  if (choice.runtime === null) noIngress(choice.reason);
  else {
    const launcher = launcherFor(choice, config, docker, logger);
    ingress = createHaproxyIngress({
      dataDir: config.dataDir, host: config.ingressHost, port: config.ingressPort, launcher, logger, domain: config.ingressDomain,
      // ACME HTTP-01 challenges reach berth's API through the ingress (any berth process answers them)
      tls: { httpsPort: config.https.port, acmeUpstream: reachableAddress(config.host, config.port) },
      ...(config.engine === 'swarm' ? { upstreamHosts: nodeAddresses } : {}),
    });
    ingressNote = `; public URLs at http://*.${config.ingressDomain}${config.ingressPort === 80 ? '' : `:${config.ingressPort}`} (HAProxy: ${launcher.description})`;
    try {
      if (options.startIngress !== false) await ingress.ensure();
    } catch (err) {
      // INGRESS_RUNTIME=auto on a machine whose daemon cannot get the image (no registry): berth runs without ingress, as without haproxy
      if (!(err instanceof IngressImageUnavailable) || config.ingressRuntime !== 'auto') throw err;
      ingress = null;
      noIngress(`haproxy is not installed and ${err.message.replace(/^ingress: /, '')}`);
    }
  }
  if (config.engine === 'swarm') {
    const info = await docker.info() as { Swarm?: { LocalNodeState?: string; ControlAvailable?: boolean; Nodes?: number } };
    if (info.Swarm?.LocalNodeState !== 'active' || !info.Swarm.ControlAvailable) {
      throw new ConfigError(`ENGINE=swarm but the Docker daemon at DOCKER_HOST=${config.dockerHost} is not a Swarm manager (swarm state: ${info.Swarm?.LocalNodeState ?? 'unknown'}); run \`docker swarm init\` there or point DOCKER_HOST at a manager`);
    }
    const { createSwarmDriver } = await import('./swarm/driver.ts');
    const nodes = await Promise.all(config.swarmNodeDockerHosts.map((h) => dockerClient(h)));
    const driver = createSwarmDriver({
      docker, nodes, registry: config.swarmRegistry, ingress, ingressSettings: { domain: config.ingressDomain, port: config.ingressPort },
      allowLocalGit: config.engineAllowLocalGit, agentBaseImage: config.agentBaseImage, nodeAddresses,
    });
    const images = config.swarmRegistry ? `built images through ${config.swarmRegistry}` : `built images copied to ${config.swarmNodeDockerHosts.length} node daemon(s)`;
    driver.domainIngress = ingress;
    return { driver, description: `swarm: manager at ${config.dockerHost}, ${info.Swarm.Nodes ?? '?'} node(s), ${images}${ingressNote}` };
  }
  const driver = createDockerDriver({
    docker, ingress, ingressSettings: { domain: config.ingressDomain, port: config.ingressPort }, publicHost: config.ingressHost, allowLocalGit: config.engineAllowLocalGit,
    agentBaseImage: config.agentBaseImage, drainMs: config.ingressDrainSeconds * 1000,
  });
  driver.domainIngress = ingress;
  return { driver, description: `docker at ${config.dockerHost}${ingressNote}` };
}

