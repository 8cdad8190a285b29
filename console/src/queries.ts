// The console's data cache: TanStack Query's client with one rule added for every query, so no
// page has to remember it. A query's key holds everything its request is made of (TanStack Query's
// own rule: the key names what the fetch depends on), ids included; while a part of the key is
// still unknown (undefined, null or ''), typically an id that another query has yet to bring (the
// organization of a workflow's environment), the query does not run, whatever its own `enabled`
// says, and it runs once the id is there. Without this, such a query asks for
// `/organization//llmProvider` and is answered 400 (issue 36).
import {
  QueryClient, type DefaultError, type DefaultedQueryObserverOptions, type QueryKey, type QueryObserverOptions,
} from '@tanstack/react-query';

/** whether a part of the key is not known yet */
export function keyHasUnknownPart(key: QueryKey): boolean {
  return key.some((part) => part === undefined || part === null || part === '');
}

export class ConsoleQueryClient extends QueryClient {
  // every observer (useQuery) and every refetch and invalidation takes its options from here
  override defaultQueryOptions<
    TQueryFnData = unknown, TError = DefaultError, TData = TQueryFnData, TQueryData = TQueryFnData,
    TQueryKey extends QueryKey = QueryKey, TPageParam = never,
  >(
    options:
      | QueryObserverOptions<TQueryFnData, TError, TData, TQueryData, TQueryKey, TPageParam>
      | DefaultedQueryObserverOptions<TQueryFnData, TError, TData, TQueryData, TQueryKey>,
  ): DefaultedQueryObserverOptions<TQueryFnData, TError, TData, TQueryData, TQueryKey> {
    const defaulted = super.defaultQueryOptions(options);
    return defaulted.enabled !== false && keyHasUnknownPart(defaulted.queryKey) ? { ...defaulted, enabled: false } : defaulted;
  }
}
