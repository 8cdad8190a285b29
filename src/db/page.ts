// One page of a list and the total count, as two statements: `count(*) over ()` would make the
// database build every joined row before applying the limit (6.5 ms against 0.04 ms + 2.2 ms
// for a page of 20 among 10,000 environments, measured). With no limit (a configuration list
// asked without page parameters) the count is the number of rows and no count query runs.
import type { Queryable } from './db.ts';

/** `pageSql` must end with `limit $n offset $n+1`, its last two parameters */
export async function selectPage<R>(
  db: Queryable, pageSql: string, params: readonly unknown[], countSql: string, limit: number | null, offset: number,
): Promise<{ rows: R[]; total: number }> {
  if (limit === null) {
    const rows = await db.query<R>(pageSql, [...params, null, offset]);
    return { rows, total: offset === 0 ? rows.length : rows.length + offset };
  }
  const [rows, count] = await Promise.all([
    db.query<R>(pageSql, [...params, limit, offset]),
    db.query<{ n: number }>(countSql, params),
  ]);
  return { rows, total: Number(count[0]?.n ?? 0) };
}
