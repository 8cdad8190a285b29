// A service's custom domains (issue 38, decision 0349): each with its status and berth's words
// (where DNS points, the certificate's expiry, the CA's refusal and when berth tries again), the
// DNS record to create while berth waits for DNS, "Check now" (GET …/checkCustomDomain) with each
// domain's verdict, add (the API's 400/409 under the form) and delete. Re-read every 5 s while a
// domain is on its way. Text only: nothing from the API is rendered as HTML.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { json } from './api.ts';
import { ResourceForm } from './form.tsx';
import { ConfirmButton, Empty, ErrorNote, Loading, Status, When } from './ui.tsx';

interface DnsRecord { type: string; name: string; value: string }
interface CustomDomain {
  id: string; domain: string; status: string; message: string | null; dns_record: DnsRecord; validation_domain: string;
  generate_certificate: boolean; use_cdn: boolean; certificate_expires_at: string | null; retry_at: string | null; checked_at: string | null;
}
interface Checked { domain_name: string; status: string; error_details?: string | null }

const SETTLED = new Set(['ACTIVE', 'FAILED']);

export function Domains(props: { kind: 'application' | 'container'; id: string; canWrite: boolean }) {
  const qc = useQueryClient();
  const [adding, setAdding] = useState(false);
  const [checked, setChecked] = useState<Checked[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const base = `/${props.kind}/${props.id}`;
  const key = ['domains', props.kind, props.id];
  const list = useQuery({
    queryKey: key,
    queryFn: async () => (await json<{ results: CustomDomain[] }>('GET', `${base}/customDomain`)).results,
    refetchInterval: (q) => (q.state.data?.some((d) => !SETTLED.has(d.status)) ? 5000 : false),
  });
  const check = async () => {
    setError(null);
    try {
      setChecked((await json<{ results: Checked[] }>('GET', `${base}/checkCustomDomain`)).results);
      await qc.invalidateQueries({ queryKey: key });
    } catch (err) { setError(err); }
  };
  return (
    <section aria-label="Domains">
      <div className="row spread">
        <h2>Domains</h2>
        <div className="row">
          {list.data && list.data.length > 0 && <button type="button" onClick={() => void check()}>Check now</button>}
          {props.canWrite && !adding && <button type="button" className="primary" onClick={() => setAdding(true)}>Add domain</button>}
        </div>
      </div>
      {adding && (
        <ResourceForm
          title="New domain" submitLabel="Add" onCancel={() => setAdding(false)}
          fields={[
            { name: 'domain', label: 'Domain', required: true, hint: 'www.shop.example' },
            { name: 'generate_certificate', label: 'berth orders its HTTPS certificate (off: a CDN or proxy terminates TLS)', kind: 'checkbox', hint: 'true' },
            { name: 'use_cdn', label: 'Behind a CDN (DNS only has to resolve)', kind: 'checkbox' },
          ]}
          onSubmit={async (body) => {
            await json('POST', `${base}/customDomain`, body);
            setAdding(false);
            await qc.invalidateQueries({ queryKey: key });
          }}
        />
      )}
      <ErrorNote error={list.error ?? error} />
      {list.isPending && <Loading />}
      {list.data?.length === 0 && <Empty>No custom domain.{props.canWrite ? ' Add one: berth tells you the DNS record to create, then serves it over HTTPS.' : ''}</Empty>}
      {list.data && list.data.length > 0 && (
        <table>
          <thead><tr><th>Domain</th><th>Status</th><th>What berth says</th><th><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {list.data.map((d) => {
              const verdict = checked?.find((c) => c.domain_name === d.domain);
              return (
                <tr key={d.id} data-domain={d.domain}>
                  <td><code>{d.domain}</code>{d.use_cdn && <span className="badge muted">CDN</span>}</td>
                  <td><Status value={d.status} /></td>
                  <td>
                    {d.message && <p className="small">{d.message}</p>}
                    {d.status === 'VALIDATION_PENDING' && (
                      <p className="small" data-testid="dns-record">Create: <code>{d.dns_record.name}</code> <code>{d.dns_record.type}</code> <code>{d.dns_record.value}</code></p>
                    )}
                    {d.status === 'ACTIVE' && d.certificate_expires_at && <p className="small muted">Certificate valid until <When at={d.certificate_expires_at} /></p>}
                    {d.retry_at && <p className="small muted">Tried again <When at={d.retry_at} /></p>}
                    {verdict && <p className="small" data-testid="dns-verdict">DNS now: <Status value={verdict.status} />{verdict.error_details ? ` ${verdict.error_details}` : ''}</p>}
                  </td>
                  <td>
                    {props.canWrite && (
                      <ConfirmButton
                        label="Delete" danger question={`Remove ${d.domain}? Its route and certificate leave the ingress.`}
                        onConfirm={async () => {
                          await json('DELETE', `${base}/customDomain/${d.id}`);
                          await qc.invalidateQueries({ queryKey: key });
                        }}
                      />
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
