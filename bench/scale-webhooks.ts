// The webhooks part of bench/scale.ts: a slow receiver (a plain node http server answering 200
// after a delay, counting what it got and how many requests it held at once), organization
// webhooks pointing at it subscribed to DEPLOYMENT_STARTED and DEPLOYMENT_SUCCEEDED (so every
// deployment makes 2 events × the number of webhooks deliveries), and the backlog of delivery
// tasks read from berth's /metrics.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Api } from './api.ts';

export interface Receiver {
  url: string;
  /** distinct webhook-id headers received (a retried delivery counts once) */
  readonly unique: number;
  /** every request, retries included */
  readonly requests: number;
  readonly maxInFlight: number;
  readonly firstAt: number;
  readonly lastAt: number;
  close(): Promise<void>;
}

export async function startSlowReceiver(delayMs: number): Promise<Receiver> {
  const seen = new Set<string>();
  let requests = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let firstAt = 0;
  let lastAt = 0;
  const server: Server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    req.resume();
    req.on('end', () => {
      setTimeout(() => {
        requests++;
        const id = req.headers['webhook-id'];
        if (typeof id === 'string') seen.add(id);
        firstAt ||= performance.now();
        lastAt = performance.now();
        inFlight--;
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      }, delayMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get unique() { return seen.size; },
    get requests() { return requests; },
    get maxInFlight() { return maxInFlight; },
    get firstAt() { return firstAt; },
    get lastAt() { return lastAt; },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** `count` webhooks of the organization, each at its own path of the receiver */
export async function createWebhooks(api: Api, organizationId: string, receiverUrl: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let k = 0; k < count; k++) {
    const r = await api('POST', `/organization/${organizationId}/webhook`, {
      target_url: `${receiverUrl}/hook-${k}`, events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED'], enabled: true, description: 'bench/scale.ts',
    });
    if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${r.text.slice(0, 300)}`);
    ids.push(r.body.id);
  }
  return ids;
}

/** webhooks.deliver tasks waiting (created or retry) and running, from berth_queue_tasks */
async function deliveryBacklog(metricsUrl: string): Promise<{ waiting: number; active: number }> {
  const text = await (await fetch(metricsUrl)).text();
  const read = (state: string) => Number(new RegExp(`^berth_queue_tasks\\{kind="webhooks\\.deliver",state="${state}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { waiting: read('created') + read('retry'), active: read('active') };
}

/** waits until the receiver got `target` distinct deliveries, sampling the backlog each second */
export async function waitDelivered(receiver: Receiver, target: number, metricsUrl: string, progress: (line: string) => void, stallMs = 120_000) {
  let peakBacklog = 0;
  let last = -1;
  let lastChange = performance.now();
  let lastLog = 0;
  for (;;) {
    const backlog = await deliveryBacklog(metricsUrl).catch(() => ({ waiting: 0, active: 0 }));
    peakBacklog = Math.max(peakBacklog, backlog.waiting);
    const got = receiver.unique;
    if (got !== last) { last = got; lastChange = performance.now(); }
    if (performance.now() - lastLog > 10_000) {
      progress(`${got}/${target} delivered, ${backlog.waiting} waiting, ${backlog.active} active`);
      lastLog = performance.now();
    }
    if (got >= target) return { peakBacklog };
    if (performance.now() - lastChange > stallMs) throw new Error(`deliveries stalled at ${got}/${target} for ${stallMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
