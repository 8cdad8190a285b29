// Prometheus lines for deployments by outcome, and webhook deliveries by outcome, read from the
// tables at scrape time (so every process reports the same cluster-wide figures).
import type { AppContext } from '../../context.ts';
import { metricsCollectors } from '../../http/metrics.ts';

async function collect(ctx: AppContext): Promise<string> {
  const lines: string[] = [
    '# HELP berth_deployments Deployments by status (final statuses are outcomes)',
    '# TYPE berth_deployments gauge',
  ];
  const deployments = await ctx.db.query<{ status: string; n: number }>(
    'select status, count(*)::int as n from deployments group by status order by status');
  for (const r of deployments) lines.push(`berth_deployments{status="${r.status}"} ${r.n}`);
  lines.push(
    '# HELP berth_webhook_events Webhook events by delivery status',
    '# TYPE berth_webhook_events gauge',
  );
  const events = await ctx.db.query<{ status: string; n: number }>(
    'select status, count(*)::int as n from webhook_events group by status order by status');
  for (const r of events) lines.push(`berth_webhook_events{status="${r.status}"} ${r.n}`);
  lines.push(
    '# HELP berth_webhook_attempts Webhook delivery attempts by outcome',
    '# TYPE berth_webhook_attempts gauge',
  );
  const attempts = await ctx.db.query<{ outcome: string; n: number }>(
    `select case when response_status between 200 and 299 then 'success'
                 when response_status is null then 'error'
                 else (response_status / 100)::text || 'xx' end as outcome, count(*)::int as n
       from webhook_attempts group by 1 order by 1`);
  for (const r of attempts) lines.push(`berth_webhook_attempts{outcome="${r.outcome}"} ${r.n}`);
  return lines.join('\n');
}

metricsCollectors.push(collect);
