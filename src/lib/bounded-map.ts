// The in-process caches' one eviction rule: a cache that reaches its limit is emptied and starts
// again (the entries are cheap to read back; a full cache means a caller is cycling through more
// keys than the limit, where an LRU would not keep the right ones either).

export const CACHE_LIMIT = 10_000;

/** `map.set(key, value)`, emptying the map first when it holds `limit` entries */
export function rememberBounded<K, V>(map: Map<K, V>, key: K, value: V, limit = CACHE_LIMIT): void {
  if (map.size >= limit) map.clear();
  map.set(key, value);
}
