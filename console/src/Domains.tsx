// A service's custom domains (issue 38, decision 0349): each with its status and berth's words
// (where DNS points, the certificate's expiry, the CA's refusal and when berth tries again), the
// DNS record to create while berth waits for DNS, "Check now" (GET …/checkCustomDomain) with each
// domain's verdict, add (the API's 400/409 under the form) and delete. Re-read every 5 s while a
// domain is on its way (the console's 5 s poll, decision 0603: domains have no stream). Text only:
// nothing from the API is rendered as HTML. The paths are built per kind at run time, so they go
// through `json`; the shapes are the generated ones (src/client/api-types.ts).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { json } from './api.ts';
import type { components } from '../../src/client/api-types.ts';
import { ResourceForm } from './form.tsx';
import { ConfirmButton, CopyButton, Empty, ErrorNote, Loading, Status, When } from './ui.tsx';

type Schemas = components['schemas'];
type CustomDomain = Schemas['listApplicationCustomDomain.response.200']['results'][number];
type Checked = Schemas['checkApplicationCustomDomain.response.200']['results'][number];

const SETTLED = new Set<CustomDomain['status']>(['ACTIVE', 'FAILED']);
const POLL_MS = 5000;

/** the lifecycle in words (the badge keeps the API's value in data-status) */
const STATUS_LABEL: Record<CustomDomain['status'], string> = {
  VALIDATION_PENDING: 'waiting for DNS', CERTIFICATE_PENDING: 'waiting for the certificate', ACTIVE: 'active', FAILED: 'failed',
};

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
    refetchInterval: (q) => (q.state.data?.some((d) => !SETTLED.has(d.status)) ? POLL_MS : false),
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
                  <td><Status value={d.status} label={STATUS_LABEL[d.status]} /></td>
                  <td>
                    {d.message && <p className="small">{d.message}</p>}
                    {d.status !== 'ACTIVE' && <DnsRecord domain={d} />}
                    {d.status === 'ACTIVE' && d.certificate_expires_at && <p className="small muted" data-testid="cert-expiry">Certificate valid until <When at={d.certificate_expires_at} /></p>}
                    {d.retry_at && <p className="small muted" data-testid="retry-at">berth tries again at <When at={d.retry_at} /></p>}
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

/** the record to create at the DNS provider, each part copyable */
function DnsRecord({ domain: d }: { domain: CustomDomain }) {
  const r = d.dns_record;
  return (
    <div className="small" data-testid="dns-record">
      <p>Create this DNS record:</p>
      <dl className="dns-record">
        <dt>Type</dt><dd><code>{r.type}</code></dd>
        <dt>Name</dt><dd><code>{r.name}</code> <CopyButton text={r.name} name={`Copy the record name for ${d.domain}`} /></dd>
        <dt>Value</dt><dd><code>{r.value}</code> <CopyButton text={r.value} name={`Copy the record value for ${d.domain}`} /></dd>
      </dl>
    </div>
  );
}
