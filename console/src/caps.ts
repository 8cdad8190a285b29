// What the caller may do in an organization: its own role, asked of the API
// (GET /organization/{id}/currentRole, decision 0605), which also says what that role allows.
// DEVOPS may write (services, variables, workflows, deployments), ADMIN and OWNER also manage
// (projects, environments, people, integrations). The server still checks every request.
import { useQuery } from '@tanstack/react-query';
import { api, call } from './api.ts';

export interface Caps {
  known: boolean;
  /** the role's name as the API gives it ("DevOps"), null until known */
  roleName: string | null;
  canWrite: boolean;
  canManage: boolean;
}

export function useCaps(orgId: string | undefined): Caps {
  const q = useQuery({
    queryKey: ['caps', orgId],
    staleTime: 60_000,
    queryFn: () => call(api.GET('/organization/{organizationId}/currentRole', { params: { path: { organizationId: orgId! } } })),
  });
  const allowed = q.data?.permissions;
  return {
    known: q.data !== undefined, roleName: q.data?.role_name ?? null,
    canWrite: allowed?.write === true, canManage: allowed?.manage === true,
  };
}
