// Choosing, once at start, how berth's ingress HAProxy runs (INGRESS_RUNTIME, decision 0348):
// `host` is the haproxy binary of this machine, `container` a container on the local Docker daemon
// from INGRESS_IMAGE, `auto` the binary when installed (or when HAPROXY_BIN names one), else the
// container when a Docker daemon of this machine answers, else no ingress (berth warns; links
// say why). An explicit choice that cannot be had is a ConfigError naming what is missing. The
// rule is pure (chooseLauncher); launcherFor builds the launcher it names.
import type Docker from 'dockerode';
import { ConfigError, type Config, type IngressRuntime } from '../../config/config.ts';
import { containerLauncher, dockerIsLocal } from './haproxy-container.ts';
import { hostLauncher, type HaproxyLauncher } from './haproxy-launcher.ts';

export { IngressImageUnavailable } from './haproxy-container.ts';

export type LauncherChoice = { runtime: 'host'; binary: string } | { runtime: 'container' } | { runtime: null; reason: string };

export interface LauncherFacts {
  /** HAPROXY_BIN as set (an operator asking for that binary) */
  haproxyBin: string | undefined;
  /** the haproxy binary found (HAPROXY_BIN when executable, else on PATH or in /usr/sbin); null: none */
  binary: string | null;
  dockerHost: string;
  /** whether a Docker daemon answers at DOCKER_HOST */
  dockerAnswers: boolean;
  /** a rootless daemon: its host network is a namespace of its own, not this machine's loopback */
  dockerRootless?: boolean;
}

const missingBinary = (f: LauncherFacts) => f.haproxyBin
  ? `HAPROXY_BIN=${f.haproxyBin} is not an executable`
  : 'none on PATH or in /usr/sbin';

export function chooseLauncher(wanted: IngressRuntime, f: LauncherFacts): LauncherChoice {
  const local = dockerIsLocal(f.dockerHost) && !f.dockerRootless;
  const elsewhere = f.dockerRootless ? 'is rootless (its host network is not this machine\'s)' : 'is not on this machine';
  if (wanted === 'host') {
    if (f.binary) return { runtime: 'host', binary: f.binary };
    throw new ConfigError(`INGRESS_RUNTIME=host but no haproxy binary is installed (${missingBinary(f)}): install haproxy, set HAPROXY_BIN, or use INGRESS_RUNTIME=container`);
  }
  if (wanted === 'container') {
    if (!f.dockerAnswers) throw new ConfigError(`INGRESS_RUNTIME=container but no Docker daemon answers at DOCKER_HOST=${f.dockerHost}: start dockerd or set DOCKER_HOST`);
    if (!local) throw new ConfigError(`INGRESS_RUNTIME=container needs the Docker daemon of this machine (the container shares berth's data dir and loopback), but the one at DOCKER_HOST=${f.dockerHost} ${elsewhere}`);
    return { runtime: 'container' };
  }
  if (f.binary) return { runtime: 'host', binary: f.binary };
  // the operator named a binary: berth does not quietly run something else
  if (f.haproxyBin) return { runtime: null, reason: `haproxy is not installed (${missingBinary(f)}; unset it to let berth run HAProxy as a container)` };
  if (f.dockerAnswers && local) return { runtime: 'container' };
  return {
    runtime: null,
    reason: f.dockerAnswers
      ? `haproxy is not installed (install haproxy, or set HAPROXY_BIN), and the Docker daemon at DOCKER_HOST=${f.dockerHost} ${elsewhere}, so it cannot run it as a container`
      : 'haproxy is not installed (install haproxy, or set HAPROXY_BIN), and no Docker daemon answers to run it as a container',
  };
}

/** the launcher a choice names */
export function launcherFor(choice: { runtime: 'host'; binary: string } | { runtime: 'container' }, config: Pick<Config, 'dataDir' | 'ingressImage'>,
  docker: Docker, logger: { info(o: object | string, m?: string): void }): HaproxyLauncher {
  return choice.runtime === 'host'
    ? hostLauncher(config.dataDir, choice.binary)
    : containerLauncher({ docker, image: config.ingressImage, dataDir: config.dataDir, logger });
}

/** every way an ingress of this data dir may be running (`berth ingress status|stop`): the host process, and the container when a daemon answers */
export function possibleLaunchers(config: Pick<Config, 'dataDir' | 'ingressImage' | 'dockerHost'>, docker: Docker | null): HaproxyLauncher[] {
  const quiet = { info() {} };
  return [hostLauncher(config.dataDir), ...(docker && dockerIsLocal(config.dockerHost) ? [containerLauncher({ docker, image: config.ingressImage, dataDir: config.dataDir, logger: quiet })] : [])];
}
