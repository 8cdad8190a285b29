// What the caller may do in an organization, learned from the API itself: berth has no route
// that names the caller's own role (nor does the public API it follows), so the console asks a
// read that needs the managing level (the organization's API tokens: ADMIN and OWNER) and shows
// mutate buttons only when that answers. The server still checks every request.
import { useQuery } from '@tanstack/react-query';
import { ApiError, api, call } from './api.ts';

export interface Caps { known: boolean; canWrite: boolean; canManage: boolean }

export function useCaps(orgId: string | undefined): Caps {
  const q = useQuery({
    queryKey: ['caps', orgId],
    enabled: Boolean(orgId),
    staleTime: 60_000,
    queryFn: async () => {
      try {
        await call(api.GET('/organization/{organizationId}/apiToken', { params: { path: { organizationId: orgId! }, query: { page: 1, page_size: 1 } } }));
        return true;
      } catch (err) {
        if (err instanceof ApiError && err.status === 403) return false;
        throw err;
      }
    },
  });
  const manage = q.data === true;
  return { known: q.data !== undefined, canWrite: manage, canManage: manage };
}
