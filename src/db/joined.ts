// A `Db` whose every statement runs in one transaction already open: what a unit of work (an
// apply of berth.yaml, decision 0745) gives the services it calls, so that every write they make,
// through their own methods and rules, commits or rolls back together. A `transaction` asked of it
// is a savepoint inside that transaction (a failure inside rolls back to it and is rethrown, as a
// transaction of its own would be); `afterCommit` hooks wait for the outer commit.
import type { Db, Queryable } from './types.ts';

export function joinTransaction(db: Db, tx: Queryable): Db {
  let depth = 0;
  const joined: Db = {
    kind: db.kind,
    native: db.native,
    query: (text, params) => tx.query(text, params),
    exec: (sql) => tx.exec(sql),
    ...(tx.afterCommit ? { afterCommit: (fn: () => void) => tx.afterCommit!(fn) } : {}),
    async transaction(fn) {
      const name = `joined_${++depth}`;
      await tx.query(`savepoint ${name}`);
      try {
        const result = await fn(joined);
        await tx.query(`release savepoint ${name}`);
        return result;
      } catch (err) {
        await tx.query(`rollback to savepoint ${name}`);
        throw err;
      } finally {
        depth--;
      }
    },
    ping: () => db.ping(),
    close: async () => { throw new Error('a joined transaction is closed by its owner'); },
  };
  return joined;
}
