// `berth ingress status|stop`: the detached Caddy that serves public URLs keeps running while
// berth is stopped (by design), so the operator needs a way to see it and to stop it.
import type { Config } from '../config/config.ts';
import { createCaddyIngress, findCaddy, stopCaddy } from '../engine/ingress/caddy.ts';
import { probeAdmin, runningPid } from '../engine/ingress/caddy-process.ts';

export async function ingressStatus(config: Config): Promise<void> {
  const probe = await probeAdmin(config.ingressAdminPort);
  const pid = runningPid(config.dataDir);
  const out = (line: string): void => { process.stdout.write(`${line}\n`); };
  out(`caddy binary: ${findCaddy() ?? 'not found (install caddy or set CADDY_BIN)'}`);
  if (probe.state === 'free') return out(`ingress: not running (admin port ${config.ingressAdminPort} free)`);
  if (probe.state === 'foreign') return out(`ingress: admin port ${config.ingressAdminPort} (INGRESS_ADMIN_PORT) is held by ${probe.detail}`);
  const ingress = createCaddyIngress({
    dataDir: config.dataDir, host: config.ingressHost, port: config.ingressPort, adminPort: config.ingressAdminPort,
    logger: { info() {}, warn() {} },
  });
  const routes = await ingress.list();
  out(`ingress: running${pid ? ` (pid ${pid})` : ''}, ${routes.length} route(s), serving ${ingress.address}`);
  for (const r of routes) out(`  ${r.id}: ${r.hosts.join(', ')} -> ${r.upstreams.join(', ')}`);
}

export async function ingressStop(config: Config): Promise<void> {
  const pid = runningPid(config.dataDir);
  if (pid === null) {
    process.stdout.write(`ingress: no Caddy started from ${config.dataDir} is running\n`);
    return;
  }
  await stopCaddy({ dataDir: config.dataDir, adminPort: config.ingressAdminPort });
  process.stdout.write(`ingress: stopped Caddy (pid ${pid}); its routes are kept and come back with the next start\n`);
}
