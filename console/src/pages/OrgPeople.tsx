// Members of an organization, invitations, and its API tokens (a new token's value is shown
// once, never again).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../api.ts';
import { ResourceForm } from '../form.tsx';
import { ConfirmButton, Empty, ErrorNote, Loading, When } from '../ui.tsx';

const ROLES = ['VIEWER', 'DEVOPS', 'ADMIN', 'OWNER'] as const;

export function Members(props: { orgId: string; canManage: boolean }) {
  const members = useQuery({
    queryKey: ['members', props.orgId],
    queryFn: () => call(api.GET('/organization/{organizationId}/member', { params: { path: { organizationId: props.orgId } } })),
  });
  return (
    <section aria-label="Members">
      <h2>Members</h2>
      <ErrorNote error={members.error} />
      {members.isPending && <Loading />}
      {members.data?.results.length === 0 && <Empty>No member has signed in through OIDC yet; API tokens are listed under API tokens.</Empty>}
      {members.data && members.data.results.length > 0 && (
        <table>
          <thead><tr><th>Name</th><th>Email</th><th>Role</th><th>Last activity</th></tr></thead>
          <tbody>
            {members.data.results.map((m) => (
              <tr key={m.id}><td>{m.name ?? m.nickname ?? '—'}</td><td>{m.email}</td><td>{m.role_name}</td><td><When at={m.last_activity_at} /></td></tr>
            ))}
          </tbody>
        </table>
      )}
      {props.canManage && <Invitations orgId={props.orgId} />}
    </section>
  );
}

/** inviting people by email (they accept by signing in through OIDC), and the pending invitations */
function Invitations(props: { orgId: string }) {
  const qc = useQueryClient();
  const [adding, setAdding] = useState(false);
  const key = ['invitations', props.orgId];
  const invites = useQuery({
    queryKey: key,
    queryFn: () => call(api.GET('/organization/{organizationId}/inviteMember', { params: { path: { organizationId: props.orgId } } })),
  });
  return (
    <>
      <div className="row spread">
        <h3>Invitations</h3>
        {!adding && <button type="button" onClick={() => setAdding(true)}>Invite someone</button>}
      </div>
      {adding && (
        <ResourceForm
          title="Invite a member" submitLabel="Send invitation" onCancel={() => setAdding(false)}
          fields={[
            { name: 'email', label: 'Email', required: true },
            { name: 'role', label: 'Role', kind: 'select', options: ROLES, hint: 'the API\'s default' },
          ]}
          onSubmit={async (body) => {
            await call(api.POST('/organization/{organizationId}/inviteMember', { params: { path: { organizationId: props.orgId } }, body: body as never }));
            setAdding(false);
            await qc.invalidateQueries({ queryKey: key });
          }}
        />
      )}
      <ErrorNote error={invites.error} />
      {invites.data?.results.length === 0 && <Empty>No pending invitation.</Empty>}
      {invites.data && invites.data.results.length > 0 && (
        <table>
          <thead><tr><th>Email</th><th>Role</th><th>Status</th><th>Invited by</th><th><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {invites.data.results.map((i) => (
              <tr key={i.id}>
                <td>{i.email}</td><td>{i.role_name}</td><td>{i.invitation_status.toLowerCase()}</td><td>{i.inviter}</td>
                <td>
                  <ConfirmButton
                    label="Withdraw" danger question={`Withdraw the invitation of ${i.email}?`}
                    onConfirm={async () => {
                      await call(api.DELETE('/organization/{organizationId}/inviteMember/{inviteId}', { params: { path: { organizationId: props.orgId, inviteId: i.id } } }));
                      await qc.invalidateQueries({ queryKey: key });
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

export function Tokens(props: { orgId: string; canManage: boolean }) {
  const qc = useQueryClient();
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const key = ['tokens', props.orgId];
  const tokens = useQuery({
    queryKey: key, enabled: props.canManage,
    queryFn: () => call(api.GET('/organization/{organizationId}/apiToken', { params: { path: { organizationId: props.orgId } } })),
  });
  if (!props.canManage) return <section aria-label="API tokens"><h2>API tokens</h2><Empty>Only admins and owners can see and make API tokens.</Empty></section>;
  return (
    <section aria-label="API tokens">
      <div className="row spread">
        <h2>API tokens</h2>
        {!adding && <button type="button" className="primary" onClick={() => { setAdding(true); setCreated(null); }}>New API token</button>}
      </div>
      {created && (
        <div className="card note" role="status">
          <p>Token <strong>{created.name}</strong> was created. Copy it now: it is not shown again.</p>
          <code className="secret-once">{created.token}</code>
          <button type="button" onClick={() => setCreated(null)}>I have copied it</button>
        </div>
      )}
      {adding && (
        <ResourceForm
          title="New API token" submitLabel="Create token" onCancel={() => setAdding(false)}
          fields={[
            { name: 'name', label: 'Name', required: true },
            { name: 'description', label: 'Description' },
            { name: 'role', label: 'Role', kind: 'select', options: ROLES, required: true },
          ]}
          onSubmit={async (body) => {
            const t = await call(api.POST('/organization/{organizationId}/apiToken', { params: { path: { organizationId: props.orgId } }, body: body as never }));
            setAdding(false);
            setCreated({ name: t.name, token: t.token });
            await qc.invalidateQueries({ queryKey: key });
          }}
        />
      )}
      <ErrorNote error={tokens.error} />
      {tokens.isPending && <Loading />}
      {tokens.data && (
        <table>
          <thead><tr><th>Name</th><th>Role</th><th>Created by</th><th>Last used</th><th><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {tokens.data.results.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td><td>{t.role_name}</td><td>{t.creator_name ?? '—'}</td><td><When at={t.last_used_at} /></td>
                <td>
                  <ConfirmButton
                    label="Revoke" danger question={`Revoke the token "${t.name}"? Anything using it stops working at once.`}
                    onConfirm={async () => {
                      await call(api.DELETE('/organization/{organizationId}/apiToken/{apiTokenId}', { params: { path: { organizationId: props.orgId, apiTokenId: t.id } } }));
                      await qc.invalidateQueries({ queryKey: key });
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
