// The 100,000-row list case (issue 15: a page with totals must cost the same at 1,000 and at
// 100,000 rows). Creating that many environments through the API would take minutes, so one is
// made through the API (cases.ts) and copied in SQL here, while berth is stopped: same columns,
// same cluster, names `bulk-N`. PGlite is opened on berth's data directory (single process: berth
// must not be running), the embedded PostgreSQL server started on it for the copy; PostgreSQL
// through `pg`.
import { join } from 'node:path';

export function bulkEnvironmentCount(): number {
  return Number(process.env.BENCH_BULK_ENVIRONMENTS ?? 100_000);
}

const COPY = `insert into environments (organization_id, project_id, cluster_id, name, mode)
  select e.organization_id, e.project_id, e.cluster_id, 'bulk-' || i, e.mode
    from environments e, generate_series(1, $2::int) i where e.id = $1`;

/** copies environment `templateId` until its project holds `total` environments */
export async function copyEnvironment(db: { dataDir: string; databaseUrl?: string; embedded?: 'postgres' | 'pglite' }, templateId: string, total: number): Promise<void> {
  const copies = total - 1;
  if (copies <= 0) return;
  if (!db.databaseUrl && db.embedded === 'postgres') {
    const { embeddedServerGone } = await import('./servers.ts');
    await embeddedServerGone(db.dataDir);
    const { startEmbeddedPostgres } = await import('../src/db/embedded-postgres.ts');
    const server = await startEmbeddedPostgres(db.dataDir);
    try {
      await copyEnvironment({ ...db, databaseUrl: server.url }, templateId, total);
    } finally {
      await server.stop();
    }
    return;
  }
  if (db.databaseUrl) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: db.databaseUrl });
    await client.connect();
    try {
      await client.query(COPY, [templateId, copies]);
      await client.query('analyze environments');
    } finally {
      await client.end();
    }
    return;
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create({ dataDir: join(db.dataDir, 'pgdata') });
  try {
    await pglite.query(COPY, [templateId, copies]);
    await pglite.exec('analyze environments');
  } finally {
    await pglite.close();
  }
}
