// GET /metrics in Prometheus text format: request durations by route and status (recorded in
// this process), queue depth and age per task kind, the collectors the app hands it (deployments
// and webhook deliveries by outcome, from the deployments module), and the standard process and
// Node.js metrics (prom-client's default collectors: CPU, memory, event loop lag, GC, handles).
// Protected: with METRICS_TOKEN set it needs `Authorization: Bearer <METRICS_TOKEN>`; otherwise
// only loopback clients may read it.
// prom-client is loaded on the first scrape, not at start (with @opentelemetry/api it is 83
// modules, ~50 ms of start and memory a berth nobody scrapes never uses; decision 0705): its
// counters (GC, CPU seconds are absolute) and the event-loop-lag histogram start there, as after a
// restart, which Prometheus' rate() already handles.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import type { Platform } from '../platform.ts';
import { safeEqual } from '../lib/crypto.ts';
import { AppError } from '../lib/errors.ts';
import { TASK_KINDS, type TaskKind } from '../queue/tasks.ts';
import type { RouteHooks } from './route-hooks.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** a collector returns Prometheus text lines (with their # HELP / # TYPE) */
export type MetricsCollector = () => Promise<string>;

interface Series { buckets: number[]; count: number; sum: number }

/** one registry per process for the default metrics (collectDefaultMetrics may run only once per registry) */
let processRegistry: Promise<Registry> | undefined;
function processMetrics(): Promise<Registry> {
  processRegistry ??= import('prom-client').then(({ Registry, collectDefaultMetrics }) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    return registry;
  });
  return processRegistry;
}

export function installMetrics(app: FastifyInstance, ctx: Pick<Platform, 'config' | 'db'>, hooks: RouteHooks, collectors: readonly MetricsCollector[]): void {
  const series = new Map<string, Series>();

  /** the series of a method, route and status, made on first use */
  function seriesOf(method: string, route: string, status: number): Series {
    const key = `${method}\u0000${route}\u0000${status}`;
    let s = series.get(key);
    if (!s) {
      s = { buckets: BUCKETS.map(() => 0), count: 0, sum: 0 };
      series.set(key, s);
    }
    return s;
  }

  function observe(s: Series, elapsedMs: number): void {
    const seconds = elapsedMs / 1000;
    s.count += 1;
    s.sum += seconds;
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) s.buckets[i]! += 1;
  }

  // each route records through a hook of its own that knows the route and keeps its series by
  // method and status: nothing is looked up by name per request (issue 15)
  hooks.add('onResponse', (route) => {
    if (route.url === '/metrics' || route.url === '/api/v1/metrics') return undefined;
    const url = route.url;
    const byMethod = new Map<string, Map<number, Series>>();
    return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      let byStatus = byMethod.get(request.method);
      if (!byStatus) byMethod.set(request.method, (byStatus = new Map()));
      let s = byStatus.get(reply.statusCode);
      if (!s) byStatus.set(reply.statusCode, (s = seriesOf(request.method, url, reply.statusCode)));
      observe(s, reply.elapsedTime);
      done();
    };
  });
  // requests no route matched (a callback hook, not an async one: it runs on every request)
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) observe(seriesOf(request.method, 'unmatched', reply.statusCode), reply.elapsedTime);
    done();
  });

  for (const path of ['/metrics', '/api/v1/metrics']) app.get(path, { config: { public: true, hidden: true } }, async (request, reply) => {
    const token = ctx.config.metricsToken;
    if (token) {
      const given = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
      if (!safeEqual(given, token)) throw new AppError(401, 'unauthorized', 'Metrics need Authorization: Bearer <METRICS_TOKEN>');
    } else if (!/^(127\.|::1$|::ffff:127\.)/.test(request.socket.remoteAddress ?? '')) {
      throw new AppError(403, 'forbidden', 'Metrics are served to loopback clients only unless METRICS_TOKEN is set');
    }
    const lines: string[] = [
      '# HELP berth_http_request_duration_seconds HTTP request durations by route and status',
      '# TYPE berth_http_request_duration_seconds histogram',
    ];
    for (const [key, s] of series) {
      const [method, route, status] = key.split('\u0000');
      const labels = `method="${method}",route="${escapeLabel(route!)}",status="${status}"`;
      BUCKETS.forEach((b, i) => lines.push(`berth_http_request_duration_seconds_bucket{${labels},le="${b}"} ${s.buckets[i]}`));
      lines.push(`berth_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${s.count}`);
      lines.push(`berth_http_request_duration_seconds_sum{${labels}} ${s.sum}`);
      lines.push(`berth_http_request_duration_seconds_count{${labels}} ${s.count}`);
    }
    lines.push(...(await queueMetrics(ctx)));
    for (const collect of collectors) lines.push((await collect().catch(() => '')).trimEnd());
    lines.push((await (await processMetrics()).metrics()).trimEnd());
    return reply.type('text/plain; version=0.0.4').send(lines.filter(Boolean).join('\n') + '\n');
  });
}

async function queueMetrics(ctx: Pick<Platform, 'db'>): Promise<string[]> {
  const lines = [
    '# HELP berth_queue_tasks Tasks per kind and state',
    '# TYPE berth_queue_tasks gauge',
    '# HELP berth_queue_oldest_queued_seconds Age of the oldest queued task per kind',
    '# TYPE berth_queue_oldest_queued_seconds gauge',
  ];
  const rows = await ctx.db.query<{ name: string; state: string; n: number; oldest: number | null }>(
    `select name, state::text as state, count(*)::int as n,
            extract(epoch from (now() - min(created_on)))::float8 as oldest
       from pgboss.job where name = any($1::text[]) and state in ('created', 'retry', 'active')
      group by name, state`, [Object.keys(TASK_KINDS)]).catch(() => []);
  for (const kind of Object.keys(TASK_KINDS) as TaskKind[]) {
    for (const state of ['created', 'retry', 'active']) {
      const r = rows.find((x) => x.name === kind && x.state === state);
      lines.push(`berth_queue_tasks{kind="${kind}",state="${state}"} ${r?.n ?? 0}`);
    }
    const oldest = rows.filter((x) => x.name === kind && x.state !== 'active').reduce((m, x) => Math.max(m, x.oldest ?? 0), 0);
    lines.push(`berth_queue_oldest_queued_seconds{kind="${kind}"} ${oldest}`);
  }
  return lines;
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
