// `berth rotate-key`: re-encrypts every secret at rest with a new key, in one transaction.
// Rather than a list of secret columns that could fall out of date, it scans every text and
// jsonb column of berth's tables for sealed values (the `v1.` format); a candidate counts only
// if it opens with the current key (AES-GCM authenticates it), so nothing else is touched.
import type { Queryable } from '../db/db.ts';
import type { Sealer } from '../lib/crypto.ts';

const SEALED = /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

function reseal(value: unknown, from: Sealer, to: Sealer, counter: { n: number }): unknown {
  if (typeof value === 'string') {
    if (!SEALED.test(value)) return value;
    let plain: string;
    try {
      plain = from.open(value);
    } catch {
      return value;
    }
    counter.n++;
    return to.seal(plain);
  }
  if (Array.isArray(value)) return value.map((v) => reseal(v, from, to, counter));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reseal(v, from, to, counter)]));
  }
  return value;
}

/** returns how many sealed values were re-encrypted */
export async function rotateSecrets(tx: Queryable, from: Sealer, to: Sealer): Promise<number> {
  const columns = await tx.query<{ table_name: string; column_name: string; data_type: string }>(
    `select c.table_name, c.column_name, c.data_type from information_schema.columns c
       join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = 'public' and t.table_type = 'BASE TABLE' and c.data_type in ('text', 'jsonb', 'character varying')
        and c.table_name <> 'schema_migrations'
      order by c.table_name, c.column_name`);
  const counter = { n: 0 };
  for (const col of columns) {
    const table = `"${col.table_name.replace(/"/g, '""')}"`;
    const column = `"${col.column_name.replace(/"/g, '""')}"`;
    const isJson = col.data_type === 'jsonb';
    const rows = await tx.query<{ rid: string; v: unknown }>(
      `select ctid::text as rid, ${column} as v from ${table} where ${column}${isJson ? '::text' : ''} like $1`,
      [isJson ? '%"v1.%' : 'v1.%']);
    for (const row of rows) {
      const before = counter.n;
      const next = reseal(row.v, from, to, counter);
      if (counter.n === before) continue;
      await tx.query(`update ${table} set ${column} = $1${isJson ? '::jsonb' : ''} where ctid = $2::tid`,
        [isJson ? JSON.stringify(next) : next, row.rid]);
    }
  }
  return counter.n;
}
