// The console's data cache (console/src/queries.ts), without a browser: a query whose key holds a
// part not known yet (an id another query has yet to bring) does not run, even when its own
// `enabled` says it may, nor on an invalidation; it runs once the id is there; and a query's own
// `enabled: false` still holds with a complete key.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

// computed specifiers: the console is type-checked on its own (tsconfig in console/), and React's
// types (through TanStack Query's) would bring the DOM's into the server's type check
const { ConsoleQueryClient, keyHasUnknownPart } = await import(new URL('../../console/src/queries.ts', import.meta.url).href);
const { QueryObserver } = await import(['@tanstack', 'react-query'].join('/'));

const tick = () => new Promise((r) => setTimeout(r, 20));

/** an observer of `key`, as useQuery makes one, and the ids its fetches were made with */
function observe(client: any, key: unknown[], enabled?: boolean) {
  const asked: unknown[] = [];
  const options = (k: unknown[]) => ({
    queryKey: k, retry: false, ...(enabled !== undefined ? { enabled } : {}),
    queryFn: async () => { asked.push(k[1]); return { results: [] }; },
  });
  const observer = new QueryObserver(client, options(key));
  const stop = observer.subscribe(() => {});
  return { asked, observer, stop, rekey: (k: unknown[]) => observer.setOptions(options(k)) };
}

describe('the console\'s queries wait for the ids their key holds', () => {
  test('a part not known yet: undefined, null or an empty string', () => {
    assert.equal(keyHasUnknownPart(['llm', undefined]), true);
    assert.equal(keyHasUnknownPart(['previews', null]), true);
    assert.equal(keyHasUnknownPart(['llm', '']), true);
    assert.equal(keyHasUnknownPart(['llm', 'b1f0']), false);
    assert.equal(keyHasUnknownPart(['runs', 'b1f0', 1]), false);
    assert.equal(keyHasUnknownPart(['console-config']), false);
  });

  test('no fetch until the id is known, even when the query says it is enabled; then one with the id', async () => {
    const client = new ConsoleQueryClient();
    const q = observe(client, ['llm', ''], true);
    await tick();
    assert.deepEqual(q.asked, []);
    assert.equal(q.observer.getCurrentResult().fetchStatus, 'idle');
    await client.invalidateQueries({ queryKey: ['llm'] });
    await client.refetchQueries({ queryKey: ['llm'] });
    await tick();
    assert.deepEqual(q.asked, [], 'nor on an invalidation or a refetch of every matching query');
    q.rekey(['llm', 'org-1']);
    await tick();
    assert.deepEqual(q.asked, ['org-1']);
    assert.equal(q.observer.getCurrentResult().status, 'success');
    q.stop();
    client.clear();
  });

  test('an undefined id waits too; a query\'s own enabled: false holds with a complete key', async () => {
    const client = new ConsoleQueryClient();
    const waiting = observe(client, ['caps', undefined]);
    const off = observe(client, ['webhooks', 'org-1'], false);
    const on = observe(client, ['members', 'org-1']);
    await tick();
    assert.deepEqual([waiting.asked, off.asked, on.asked], [[], [], ['org-1']]);
    for (const q of [waiting, off, on]) q.stop();
    client.clear();
  });
});
