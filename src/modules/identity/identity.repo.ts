// SQL for users: the people berth has seen sign in with a JWT, recorded (and their name and
// email refreshed) on each verified token. Other modules read users' names through joins.
import type { Queryable } from '../../db/db.ts';

/** the user of this OIDC subject, recorded or refreshed; its id */
export async function upsertUser(db: Queryable, sub: string, email: string | null, name: string | null): Promise<string> {
  const rows = await db.query<{ id: string }>(
    `insert into users (sub, email, name, last_activity_at) values ($1, $2, $3, now())
     on conflict (sub) do update set email = excluded.email, name = excluded.name,
       last_activity_at = now(), updated_at = now()
     returning id`,
    [sub, email, name],
  );
  return rows[0]!.id;
}
