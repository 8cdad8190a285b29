// The organizations the credential can see; an API token sees its own.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, call } from '../api.ts';
import type { PageProps } from '../page-props.ts';
import { Empty, ErrorNote, Frame, Loading } from '../ui.tsx';

export function Organizations(p: PageProps) {
  const orgs = useQuery({ queryKey: ['organizations'], queryFn: () => call(api.GET('/organization')) });
  return (
    <Frame crumbs={[{ label: 'Organizations' }]} onSignOut={p.signOut} engine={p.engine}>
      <h1>Organizations</h1>
      <ErrorNote error={orgs.error} />
      {orgs.isPending && <Loading />}
      {orgs.data && orgs.data.results.length === 0 && <Empty>No organization is visible to this credential. Ask an owner to invite you or to make you an API token.</Empty>}
      <ul className="cards">
        {orgs.data?.results.map((o) => (
          <li key={o.id} className="card">
            <Link href={`/ui/organizations/${o.id}`}><strong>{o.name}</strong></Link>
            {o.description && <p className="muted">{o.description}</p>}
          </li>
        ))}
      </ul>
    </Frame>
  );
}
