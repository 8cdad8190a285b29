// Monotonic counters kept in the database (metric_counters): bumped in the same transaction as
// the change they count, never decremented, never deleted with the rows they count, and the same
// figure from every process (Prometheus counters that only go up, cluster-wide). A counter is
// spread over SHARDS rows (a random one bumped, their sum read) so that concurrent transactions
// bumping it do not queue on one row lock (migrations/0013_counter_shards.sql).
import type { Queryable } from './db.ts';

const SHARDS = 8;

/** adds one to the counter `name` with these labels (label values are stored in a stable order) */
export async function bumpCounter(q: Queryable, name: string, labels: Record<string, string>): Promise<void> {
  const key = JSON.stringify(Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1))));
  await q.query(
    `insert into metric_counters (name, labels, shard, value) values ($1, $2, $3, 1)
     on conflict (name, labels, shard) do update set value = metric_counters.value + 1`, [name, key, Math.floor(Math.random() * SHARDS)]);
}

export async function readCounters(q: Queryable, name: string): Promise<Array<{ labels: Record<string, string>; value: number }>> {
  const rows = await q.query<{ labels: string; value: string }>(
    'select labels, sum(value) as value from metric_counters where name = $1 group by labels order by labels', [name]);
  return rows.map((r) => ({ labels: JSON.parse(r.labels) as Record<string, string>, value: Number(r.value) }));
}
