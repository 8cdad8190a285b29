// `berth ingress status|stop`: the HAProxy that serves public URLs keeps running while berth is
// stopped (by design), as a host process or as a container on the Docker host (INGRESS_RUNTIME,
// decision 0348), so the operator needs a way to see it, which of the two runs, and to stop it.
import type { Config } from '../config/config.ts';
import { loadIngressProcess } from '../engine/index.ts';

export async function ingressStatus(config: Config): Promise<void> {
  const { createHaproxyIngress, findHaproxy, ingressLaunchers, ingressPaths, probe } = await loadIngressProcess();
  const paths = ingressPaths(config.dataDir);
  const found = await probe(paths);
  const out = (line: string): void => { process.stdout.write(`${line}\n`); };
  out(`haproxy binary: ${findHaproxy() ?? 'not found (install haproxy or set HAPROXY_BIN)'}`);
  out(`runtime: INGRESS_RUNTIME=${config.ingressRuntime} (the container's image: INGRESS_IMAGE=${config.ingressImage})`);
  const runs: string[] = [];
  for (const launcher of await ingressLaunchers(config)) {
    const what = await launcher.running();
    if (what !== null) runs.push(launcher.kind === 'host' ? `${what}; ${launcher.description}` : launcher.description);
  }
  if (found.state === 'free') return out(`ingress: not running (nothing answers on ${paths.socket})${runs.length ? `; started but not answering: ${runs.join(', ')}` : ''}`);
  if (found.state === 'foreign') return out(`ingress: ${paths.socket} is held by ${found.detail}`);
  const ingress = createHaproxyIngress({
    dataDir: config.dataDir, host: config.ingressHost, port: config.ingressPort, logger: { info() {}, warn() {} },
  });
  const routes = await ingress.list();
  out(`ingress: running (${runs.join(' and ') || 'not started by berth from this data dir'}), ${routes.length} route(s), serving ${ingress.address}`);
  for (const r of routes) out(`  ${r.id}: ${r.hosts.join(', ')} -> ${r.upstreams.join(', ')}`);
}

export async function ingressStop(config: Config): Promise<void> {
  const { ingressLaunchers } = await loadIngressProcess();
  let stopped = 0;
  for (const launcher of await ingressLaunchers(config)) {
    const what = await launcher.running();
    if (!(await launcher.stop())) continue;
    stopped += 1;
    process.stdout.write(`ingress: stopped HAProxy (${launcher.kind === 'host' ? what : launcher.description}); its routes are kept and come back with the next start\n`);
  }
  if (stopped === 0) process.stdout.write(`ingress: no HAProxy started from ${config.dataDir} is running\n`);
}
