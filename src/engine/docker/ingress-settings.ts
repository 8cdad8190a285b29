// The docker engine's side of a service's ingress settings (network.ingress.*, decision 0337):
// at a deployment, the settings read from the service's advanced settings and its variables go
// with every route the rollout switches (an ingress handle that adds them to each upsert), and the
// deployment log says what could not be applied; after an edit of those settings, the running
// service's routes take them at once, without a redeploy (applyIngressSettings). The value of
// the basic-auth variable is never logged.
import type Docker from 'dockerode';
import type { IngressSettingsTarget, LogSink } from '../engine.ts';
import type { RuntimePlan } from '../plan.ts';
import { routeSettingsOf, type RouteSettings } from '../ingress/settings.ts';
import { parseRoutes } from './naming.ts';
import { listReplicas } from './replicas.ts';
import type { IngressLike } from './rollout.ts';

/** one line on what the ingress enforces for the service beyond routing, or null when nothing */
function describeSettings(s: RouteSettings): string | null {
  const parts = [
    s.allow !== null ? (s.allow.length > 0 ? `clients from ${s.allow.join(', ')} only` : 'no client (no valid range in whitelist_source_range)') : null,
    s.deny.length > 0 ? `clients from ${s.deny.join(', ')} refused` : null,
    s.users ? `basic auth (${s.users.length} login(s))` : null,
    s.cors ? `CORS for ${s.cors.origins.join(', ') || 'no origin'}` : null,
    s.sticky ? 'sticky sessions' : null,
    s.headers.length > 0 ? `${s.headers.length} extra response header(s)` : null,
  ].filter((p): p is string => p !== null);
  return parts.length > 0 ? `The ingress applies: ${parts.join('; ')}` : null;
}

/** the ingress as the rollout uses it: every route it creates or switches carries the service's settings */
export async function ingressWithSettings(ingress: IngressLike | null, advanced: Readonly<Record<string, unknown>>, plan: Pick<RuntimePlan, 'env' | 'ports'>, log: LogSink): Promise<IngressLike | null> {
  if (!ingress) return null;
  const { settings, notes } = routeSettingsOf(advanced, plan.env);
  if (plan.ports.some((p) => p.publiclyAccessible)) {
    for (const note of notes) await log('DEPLOY', `Ingress setting not applied as given: ${note}`);
    const summary = describeSettings(settings);
    if (summary) await log('DEPLOY', summary);
  }
  return {
    upsert: (route) => ingress.upsert({ ...route, settings }),
    updateSettings: (id, s) => ingress.updateSettings(id, s),
    remove: (id) => ingress.remove(id),
    drain: (upstreams, timeoutMs, signal) => ingress.drain(upstreams, timeoutMs, signal),
  };
}

/** a service's edited ingress settings on its running routes (those its replicas carry); notes on what was not applied */
export async function applyIngressSettings(docker: Docker, ingress: IngressLike | null, service: IngressSettingsTarget): Promise<string[]> {
  if (!ingress) return [];
  const replicas = await listReplicas(docker, service.id, false);
  const routes = new Set(replicas.flatMap((c) => parseRoutes(c.Labels['berth.routes']).map((r) => r.id)));
  if (routes.size === 0) return [];
  const { settings, notes } = routeSettingsOf(service.advancedSettings, service.env);
  for (const id of routes) await ingress.updateSettings(id, settings);
  return notes;
}
