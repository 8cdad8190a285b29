// Upgrading from a berth whose ingress was Caddy (decision 0330, replaced by 0334): the Caddy that
// berth left running for this data dir (its pid in <dataDir>/ingress/caddy.pid) still holds
// INGRESS_PORT, and its routes are in Caddy's autosave. The first HAProxy start of that data dir
// takes the routes over (when berth has saved none of its own yet) and stops that Caddy, so an
// upgrade needs no manual step; connections through the old Caddy end with it, once.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteSpec } from './routes.ts';
import { processRunning } from '../../lib/processes.ts';

const ROUTE_PREFIX = 'berth-route-';

interface CaddyRoute { '@id'?: unknown; match?: Array<{ host?: unknown }>; handle?: Array<{ upstreams?: Array<{ dial?: unknown }> }> }

/** berth's routes in the Caddy autosave of an ingress dir (none when there is no such file) */
export function caddyRoutes(ingressDir: string): RouteSpec[] {
  try {
    const config = JSON.parse(readFileSync(join(ingressDir, 'config', 'caddy', 'autosave.json'), 'utf8'));
    const routes = config?.apps?.http?.servers?.berth?.routes as CaddyRoute[] | undefined;
    return (Array.isArray(routes) ? routes : [])
      .filter((r) => typeof r['@id'] === 'string' && r['@id'].startsWith(ROUTE_PREFIX))
      .map((r) => ({
        id: String(r['@id']).slice(ROUTE_PREFIX.length),
        hosts: (r.match ?? []).flatMap((m) => (Array.isArray(m.host) ? m.host.map(String) : [])),
        upstreams: (r.handle?.[0]?.upstreams ?? []).map((u) => String(u.dial)),
      }));
  } catch { return []; }
}

/** stops the Caddy an earlier berth started from this ingress dir, if it still runs; its pid, or null */
export async function stopEarlierCaddy(ingressDir: string): Promise<number | null> {
  const pidFile = join(ingressDir, 'caddy.pid');
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  let caddy = false;
  try { caddy = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').some((part) => /caddy$/.test(part)); } catch { /* gone */ }
  if (!Number.isInteger(pid) || pid <= 0 || !caddy || !processRunning(pid)) {
    rmSync(pidFile, { force: true });
    return null;
  }
  process.kill(pid, 'SIGTERM');
  for (let until = Date.now() + 5000; processRunning(pid) && Date.now() < until;) await new Promise((r) => setTimeout(r, 50));
  if (processRunning(pid)) process.kill(pid, 'SIGKILL');
  for (let until = Date.now() + 2000; processRunning(pid) && Date.now() < until;) await new Promise((r) => setTimeout(r, 50));
  rmSync(pidFile, { force: true });
  return pid;
}
