// What runs once a transaction has committed (Queryable.afterCommit): the task queue wakes this
// process's workers there, when the task they are woken for can be seen, instead of after a guess.
import type { Queryable } from './types.ts';

/** a transaction's handle: its statements, and what runs once it committed */
export function withCommitHooks(tx: Queryable): { tx: Queryable; committed: () => void } {
  const hooks: Array<() => void> = [];
  return {
    tx: { query: tx.query.bind(tx), exec: tx.exec.bind(tx), afterCommit: (fn) => { hooks.push(fn); } },
    committed: () => {
      for (const fn of hooks) {
        try { fn(); } catch { /* a hook's failure is its own; the transaction has committed */ }
      }
    },
  };
}
