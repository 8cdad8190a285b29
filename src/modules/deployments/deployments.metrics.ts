// Prometheus lines for deployments and webhook deliveries by outcome: counters that only go up
// (metric_counters, bumped where the outcome is recorded, so they survive the deletion of the
// rows they count), plus the current webhook events by status (a gauge). Read from the database
// at scrape time, so every process reports the same cluster-wide figures.
import { readCounters } from '../../db/counters.ts';
import type { Db } from '../../db/db.ts';
import type { WebhooksService } from '../webhooks/webhooks.service.ts';

const COUNTERS: Array<{ name: string; help: string }> = [
  { name: 'berth_deployments_total', help: 'Finished deployments by action and final status' },
  { name: 'berth_webhook_deliveries_total', help: 'Webhook events by final delivery outcome (delivered, failed)' },
  { name: 'berth_webhook_attempts_total', help: 'Webhook delivery attempts by outcome (success, 4xx, 5xx, error)' },
];

function labelText(labels: Record<string, string>): string {
  return Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',');
}

/** the deployments and webhook deliveries collector for GET /metrics (src/http/metrics.ts) */
export async function collectDeploymentMetrics(ctx: { db: Db; services: { webhooks: Pick<WebhooksService, 'eventCountsByStatus'> } }): Promise<string> {
  const lines: string[] = [];
  for (const c of COUNTERS) {
    lines.push(`# HELP ${c.name} ${c.help}`, `# TYPE ${c.name} counter`);
    for (const r of await readCounters(ctx.db, c.name)) lines.push(`${c.name}{${labelText(r.labels)}} ${r.value}`);
  }
  lines.push('# HELP berth_webhook_events Webhook events by current delivery status', '# TYPE berth_webhook_events gauge');
  const events = await ctx.services.webhooks.eventCountsByStatus();
  for (const r of events) lines.push(`berth_webhook_events{status="${r.status}"} ${r.n}`);
  return lines.join('\n');
}

