// How berth's ingress HAProxy runs, behind one small interface chosen once at start (decision
// 0348): a process of this machine (the host's haproxy binary, detached, master pid in
// haproxy.pid: haproxy-process.ts) or a container on the Docker host (haproxy-container.ts). Both
// read the same files in <dataDir>/ingress and answer on the same runtime socket, so everything
// else (routes, adoption, drains, certificates: haproxy.ts) is the same for both. This file owns
// the interface and the host-process launcher.
import {
  checkConfig, findHaproxy, ingressPaths, reloadHaproxy, runningPid, startHaproxy, stopIngress,
} from './haproxy-process.ts';

export interface HaproxyLauncher {
  readonly kind: 'host' | 'container';
  /** for the startup line and `berth ingress status`: the binary, or the container and its image */
  readonly description: string;
  /** what a start needs first (the container's image, pulled when absent); called outside the data dir's lock */
  prepare(): Promise<void>;
  /** `haproxy -c` of a configuration by the HAProxy that is to load it: a bad one throws, the running proxy goes on */
  check(config: string): Promise<void>;
  /** starts the proxy from the configuration written in the ingress folder; resolves once berth's config answers on the socket, with what runs */
  start(o: { host: string; port: number }): Promise<string>;
  /** the running proxy loads the rewritten configuration (a new worker; the old one keeps its open connections) */
  reload(): Promise<void>;
  /** stops the proxy (open connections get 2 s); false when none was running */
  stop(): Promise<boolean>;
  /** what runs ("pid 1234", "container berth-ingress-…"); null: nothing this launcher started */
  running(): Promise<string | null>;
}

/** HAProxy as a detached process of this machine: `bin`, else HAPROXY_BIN, else haproxy on PATH or in /usr/sbin */
export function hostLauncher(dataDir: string, bin?: string): HaproxyLauncher {
  const paths = ingressPaths(dataDir);
  const binary = () => bin ?? findHaproxy();
  const running = async () => { const pid = runningPid(dataDir); return pid === null ? null : `pid ${pid}`; };
  return {
    kind: 'host',
    get description() { return `host binary ${binary() ?? '(not found)'}`; },
    async prepare() {
      const found = binary();
      if (!found || !findHaproxy(found)) {
        throw new Error(`ingress: no haproxy binary found (${bin ?? process.env.HAPROXY_BIN ?? 'haproxy on PATH'}): install haproxy or set HAPROXY_BIN`);
      }
    },
    async check(config) {
      const found = binary();
      if (found) await checkConfig(paths, found, config);
    },
    async start(o) {
      await this.prepare();
      return `pid ${await startHaproxy(paths, { ...o, bin: binary()! })}`;
    },
    async reload() {
      const master = runningPid(dataDir);
      if (master === null) throw new Error(`ingress: no HAProxy started from ${dataDir} runs on this machine`);
      await reloadHaproxy(paths, async () => { process.kill(master, 'SIGUSR2'); });
    },
    async stop() {
      const was = await running();
      await stopIngress({ dataDir });
      return was !== null;
    },
    running,
  };
}
