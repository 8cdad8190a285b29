// `berth ingress status|stop`: the detached HAProxy that serves public URLs keeps running while
// berth is stopped (by design), so the operator needs a way to see it and to stop it.
import type { Config } from '../config/config.ts';
import { loadIngressProcess } from '../engine/index.ts';

export async function ingressStatus(config: Config): Promise<void> {
  const { createHaproxyIngress, findHaproxy, ingressPaths, probe, runningPid } = await loadIngressProcess();
  const paths = ingressPaths(config.dataDir);
  const found = await probe(paths);
  const pid = runningPid(config.dataDir);
  const out = (line: string): void => { process.stdout.write(`${line}\n`); };
  out(`haproxy binary: ${findHaproxy() ?? 'not found (install haproxy or set HAPROXY_BIN)'}`);
  if (found.state === 'free') return out(`ingress: not running (nothing answers on ${paths.socket})`);
  if (found.state === 'foreign') return out(`ingress: ${paths.socket} is held by ${found.detail}`);
  const ingress = createHaproxyIngress({
    dataDir: config.dataDir, host: config.ingressHost, port: config.ingressPort, logger: { info() {}, warn() {} },
  });
  const routes = await ingress.list();
  out(`ingress: running${pid ? ` (pid ${pid})` : ''}, ${routes.length} route(s), serving ${ingress.address}`);
  for (const r of routes) out(`  ${r.id}: ${r.hosts.join(', ')} -> ${r.upstreams.join(', ')}`);
}

export async function ingressStop(config: Config): Promise<void> {
  const { runningPid, stopIngress } = await loadIngressProcess();
  const pid = runningPid(config.dataDir);
  if (pid === null) {
    process.stdout.write(`ingress: no HAProxy started from ${config.dataDir} is running\n`);
    return;
  }
  await stopIngress({ dataDir: config.dataDir });
  process.stdout.write(`ingress: stopped HAProxy (pid ${pid}); its routes are kept and come back with the next start\n`);
}
