// A service's public addresses (GET /{application,container}/{id}/link): read once per service and
// kept for a minute, apart from the status refreshes (which never re-read them), shown one anchor
// per address with the port it serves, the default address first. Only http(s) URLs become links.
import { useQuery } from '@tanstack/react-query';
import { raw } from './api.ts';

export interface ServiceLink { url: string; internal_port: number | null; is_default: boolean }

/** the service types that have public ports, hence a link route */
const LINKED_KINDS: ReadonlySet<string> = new Set(['application', 'container']);

/** links change only when a service's ports do (its settings form invalidates them); not on every status poll */
const LINKS_STALE_MS = 60_000;

/** the answer's links, whatever its shape (`{results}` or a bare list, objects or strings), default first */
function parseLinks(body: unknown): ServiceLink[] {
  const items: unknown[] = Array.isArray(body) ? body : Array.isArray((body as { results?: unknown } | null)?.results) ? (body as { results: unknown[] }).results : [];
  const links: ServiceLink[] = [];
  for (const x of items) {
    const o = (typeof x === 'string' ? { url: x } : x ?? {}) as { url?: unknown; internal_port?: unknown; is_default?: unknown };
    if (typeof o.url !== 'string' || !/^https?:\/\/[^\s]+$/.test(o.url)) continue;
    links.push({ url: o.url, internal_port: typeof o.internal_port === 'number' ? o.internal_port : null, is_default: o.is_default === true });
  }
  // stable: the default one first, then the order the API gave
  return links.filter((l) => l.is_default).concat(links.filter((l) => !l.is_default));
}

/** why the addresses do not answer (no ingress proxy on a docker engine, the simulated engine), or null */
function unavailableReason(body: unknown): string | null {
  const r = (body as { public_urls_unavailable_reason?: unknown } | null)?.public_urls_unavailable_reason;
  return typeof r === 'string' && r.trim() ? r : null;
}

export interface Links { links: ServiceLink[]; reason: string | null }

/** a service's public links, or none (no public port, no link route, or a type without ports), and why they do not answer */
export function useLinks(kind: string | undefined, id: string) {
  const enabled = Boolean(kind && LINKED_KINDS.has(kind));
  return useQuery({
    queryKey: ['links', kind, id], enabled, staleTime: LINKS_STALE_MS,
    queryFn: async () => {
      const res = await raw(`/${kind}/${id}/link`);
      if (!res.ok) return { links: [], reason: null } satisfies Links;
      const body = await res.json() as unknown;
      return { links: parseLinks(body), reason: unavailableReason(body) } satisfies Links;
    },
  });
}

function ExternalLink({ url }: { url: string }) {
  return <a href={url} target="_blank" rel="noopener noreferrer">{url}</a>;
}

/** the service page's list: one item per address, "url → port 8080", the default one marked */
export function LinkList({ links, reason }: Links) {
  if (links.length === 0 && !reason) return null;
  return (
    <section aria-label="Public URLs" className="links">
      <h2 className="small">Public URLs</h2>
      {reason && <p className="muted" data-testid="links-unavailable">{links.length ? 'These addresses do not answer: ' : 'None: '}{reason}</p>}
      <ul>
        {links.map((l) => (
          <li key={l.url} data-port={l.internal_port ?? undefined}>
            <ExternalLink url={l.url} />
            {l.internal_port !== null && <span className="muted"> → port {l.internal_port}</span>}
            {l.is_default && <span className="badge muted">default</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** the services table's cell: the default address as an anchor, or a dash */
export function DefaultLink({ kind, id }: { kind: string | undefined; id: string }) {
  const links = useLinks(kind, id);
  const first = links.data?.links[0];
  return first ? <ExternalLink url={first.url} /> : <span className="muted" title="no public URL">—</span>;
}
