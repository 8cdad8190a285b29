// The deployments part of bench/scale.ts, all through berth's public API: seed environments each
// holding one container (the simulated engine deploys a container in two steps, no build), queue
// deployments (each environment's requests sent one after another, many environments at once,
// so the order each environment's deployments were queued in is the order of the 202 answers),
// wait until /metrics counts them all finished, then read every environment's history and check
// the queue rule: FIFO per environment, no overlap, every one DEPLOYED.
import { inParallel, type Api, type ApiAnswer } from './api.ts';

export interface Fleet { organizationId: string; environmentIds: string[]; containerIds: string[] }

function describe(a: ApiAnswer): string {
  return `${a.status} ${a.text.slice(0, 300)}`;
}

async function must(answer: Promise<ApiAnswer>, what: string): Promise<any> {
  const a = await answer;
  if (a.status >= 300) throw new Error(`${what}: ${describe(a)}`);
  return a.body;
}

/** one project, `count` environments, one container in each (a Docker Hub registry made if none) */
export async function seedFleet(api: Api, count: number, concurrency = 10): Promise<Fleet> {
  const organizationId = (await must(api('GET', '/organization'), 'list organizations')).results[0].id as string;
  const clusterId = (await must(api('GET', `/organization/${organizationId}/cluster`), 'list clusters')).results[0].id as string;
  const registries = await must(api('GET', `/organization/${organizationId}/containerRegistry`), 'list registries');
  const registryId = (registries.results[0]?.id as string | undefined)
    ?? (await must(api('POST', `/organization/${organizationId}/containerRegistry`, { name: 'bench-hub', kind: 'DOCKER_HUB', url: 'https://docker.io' }), 'create registry')).id as string;
  const project = await must(api('POST', `/organization/${organizationId}/project`, { name: `scale-${Date.now().toString(36)}` }), 'create project');
  const environmentIds: string[] = new Array(count);
  const containerIds: string[] = new Array(count);
  await inParallel(count, concurrency, async (i) => {
    const name = `scale-${String(i).padStart(4, '0')}`;
    const env = await must(api('POST', `/project/${project.id}/environment`, { name, mode: 'STAGING', cluster_id: clusterId }), `create environment ${i}`);
    const ctr = await must(api('POST', `/environment/${env.id}/container`, { name: `web-${i}`, registry_id: registryId, image_name: 'library/nginx', tag: '1.27' }), `create container ${i}`);
    environmentIds[i] = env.id;
    containerIds[i] = ctr.id;
  });
  return { organizationId, environmentIds, containerIds };
}

export interface Queued { perEnvironment: string[][]; seconds: number }

/**
 * `total` deploy requests, request i to environment i mod n; at most `concurrency` in flight and
 * never two at once for one environment, so each environment's queue order is known
 */
export async function queueDeployments(api: Api, fleet: Fleet, total: number, concurrency = 20): Promise<Queued> {
  const n = fleet.environmentIds.length;
  const perEnvironment: string[][] = fleet.environmentIds.map(() => []);
  const tails: Array<Promise<void>> = fleet.environmentIds.map(() => Promise.resolve());
  const started = performance.now();
  await inParallel(total, concurrency, async (i) => {
    const e = i % n;
    const previous = tails[e]!;
    const mine = previous.then(async () => {
      const d = await must(api('POST', `/container/${fleet.containerIds[e]}/deploy`, {}), `deploy ${i}`);
      perEnvironment[e]!.push(d.id as string);
    });
    tails[e] = mine.catch(() => {});
    await mine;
  });
  return { perEnvironment, seconds: (performance.now() - started) / 1000 };
}

/** finished deployments counted by berth (the counter berth_deployments_total, all labels) */
export async function finishedDeployments(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  let sum = 0;
  for (const m of text.matchAll(/^berth_deployments_total\{[^}]*\} (\d+(?:\.\d+)?)$/gm)) sum += Number(m[1]);
  return sum;
}

/** polls until `target` deployments finished; returns seconds waited, throws after `limitMs` without progress */
export async function waitFinished(metricsUrl: string, target: number, progress: (done: number) => void, stallMs = 120_000): Promise<void> {
  let last = -1;
  let lastChange = performance.now();
  let lastLog = 0;
  for (;;) {
    const done = await finishedDeployments(metricsUrl);
    if (done !== last) { last = done; lastChange = performance.now(); }
    if (performance.now() - lastLog > 10_000) { progress(done); lastLog = performance.now(); }
    if (done >= target) return;
    if (performance.now() - lastChange > stallMs) throw new Error(`deployments stalled at ${done}/${target} for ${stallMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

interface HistoryRecord { id: string; status: string; started_at: string | null; finished_at: string | null; created_at: string }

export interface OrderCheck {
  checked: number;
  /** environments whose deployments ran out of queue order */
  outOfOrder: string[];
  /** environments where a deployment started before the previous one finished */
  overlapping: string[];
  notDeployed: Array<{ id: string; status: string }>;
  /** the first and last finish of all, for the drain time */
  firstStartedAt: number;
  lastFinishedAt: number;
}

/** reads each environment's history and checks FIFO and no overlap against the queue order */
export async function checkOrder(api: Api, fleet: Fleet, queued: Queued, concurrency = 10): Promise<OrderCheck> {
  const check: OrderCheck = { checked: 0, outOfOrder: [], overlapping: [], notDeployed: [], firstStartedAt: Infinity, lastFinishedAt: 0 };
  await inParallel(fleet.environmentIds.length, concurrency, async (e) => {
    const envId = fleet.environmentIds[e]!;
    const wanted = queued.perEnvironment[e]!;
    const byId = new Map<string, HistoryRecord>();
    for (let page = 1; byId.size < wanted.length; page++) {
      const body = await must(api('GET', `/environment/${envId}/deploymentHistoryV2?page=${page}&page_size=100`), `history of ${envId}`);
      for (const r of body.results as HistoryRecord[]) byId.set(r.id, r);
      if ((body.results as unknown[]).length < 100) break;
    }
    const runs = wanted.map((id) => byId.get(id)).filter((r): r is HistoryRecord => r !== undefined);
    for (const id of wanted) if (!byId.has(id)) check.notDeployed.push({ id, status: 'missing from the history' });
    for (const r of runs) {
      check.checked++;
      if (r.status !== 'DEPLOYED' || !r.started_at || !r.finished_at) { check.notDeployed.push({ id: r.id, status: r.status }); continue; }
      check.firstStartedAt = Math.min(check.firstStartedAt, Date.parse(r.started_at));
      check.lastFinishedAt = Math.max(check.lastFinishedAt, Date.parse(r.finished_at));
    }
    const timed = runs.filter((r) => r.started_at && r.finished_at);
    const starts = timed.map((r) => Date.parse(r.started_at!));
    if (starts.some((s, k) => k > 0 && s < starts[k - 1]!)) check.outOfOrder.push(envId);
    if (timed.some((r, k) => k > 0 && Date.parse(r.started_at!) < Date.parse(timed[k - 1]!.finished_at!))) check.overlapping.push(envId);
  });
  return check;
}

/** which worker process ran each deployment, from the workers' `deployment claimed` log lines */
export class ClaimLog {
  readonly byProcess = new Map<string, Set<string>>();
  /** the line listener for one process (startBerth's onLine) */
  listener(processName: string): (line: string) => void {
    const mine = new Set<string>();
    this.byProcess.set(processName, mine);
    return (line) => {
      if (!line.includes('"deployment claimed"')) return;
      try {
        const entry = JSON.parse(line) as { deploymentId?: string; resumed?: boolean };
        if (entry.deploymentId) mine.add(entry.deploymentId);
      } catch { /* not a JSON log line */ }
    };
  }
  /** deployments of `ids` each process claimed */
  shares(ids: Iterable<string>): Record<string, number> {
    const wanted = new Set(ids);
    const out: Record<string, number> = {};
    for (const [name, claimed] of this.byProcess) out[name] = [...claimed].filter((id) => wanted.has(id)).length;
    return out;
  }
}
