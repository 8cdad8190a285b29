// Variables and secrets of one scope (project, environment or service). Secret values are
// write-only: the API never returns them and the console has no place that could show one.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { json, type Page } from './api.ts';
import { ResourceForm } from './form.tsx';
import type { VariableScope } from './specs.ts';
import { ConfirmButton, Empty, ErrorNote, Loading } from './ui.tsx';

interface Variable { id: string; key: string; value?: string | null; scope: string; variable_type?: string; description?: string | null }

export function Variables(props: { scope: VariableScope; parentId: string; canWrite: boolean }) {
  const qc = useQueryClient();
  const [adding, setAdding] = useState(false);
  const base = `/${props.scope}/${props.parentId}`;
  const key = ['variables', props.scope, props.parentId];
  const list = useQuery({
    queryKey: key,
    queryFn: async () => {
      const [vars, secrets] = await Promise.all([
        json<Page<Variable>>('GET', `${base}/environmentVariable`),
        json<Page<Variable>>('GET', `${base}/secret`),
      ]);
      return [...vars.results.map((v) => ({ ...v, secret: false })), ...secrets.results.map((v) => ({ ...v, secret: true }))]
        .sort((a, b) => a.key.localeCompare(b.key));
    },
  });
  return (
    <section aria-label="Variables and secrets">
      <div className="row spread">
        <h2>Variables and secrets</h2>
        {props.canWrite && !adding && <button type="button" className="primary" onClick={() => setAdding(true)}>Add variable</button>}
      </div>
      {adding && (
        <ResourceForm
          title="New variable" submitLabel="Add" onCancel={() => setAdding(false)}
          fields={[
            { name: 'key', label: 'Key', required: true, hint: 'DATABASE_URL' },
            { name: 'value', label: 'Value', required: true },
            { name: 'secret', label: 'Secret (write-only: the value is never shown again)', kind: 'checkbox' },
            { name: 'description', label: 'Description' },
          ]}
          onSubmit={async (body) => {
            const { secret, ...rest } = body;
            await json('POST', `${base}/${secret === true ? 'secret' : 'environmentVariable'}`, rest);
            setAdding(false);
            await qc.invalidateQueries({ queryKey: key });
          }}
        />
      )}
      <ErrorNote error={list.error} />
      {list.isPending && <Loading />}
      {list.data?.length === 0 && <Empty>No variable here yet.{props.canWrite ? ' Add one; services see it as an environment variable.' : ''}</Empty>}
      {list.data && list.data.length > 0 && (
        <table>
          <thead><tr><th>Key</th><th>Value</th><th>Defined on</th><th><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {list.data.map((v) => (
              <tr key={v.id} data-variable={v.key}>
                <td><code>{v.key}</code>{v.secret && <span className="badge muted">secret</span>}</td>
                <td>{v.secret ? <span className="muted">hidden (write-only)</span> : <code>{v.value ?? ''}</code>}</td>
                <td className="muted">{v.scope.toLowerCase()}</td>
                <td>
                  {props.canWrite && v.scope.toLowerCase() === props.scope && (
                    <ConfirmButton
                      label="Delete" danger question={`Delete ${v.secret ? 'the secret' : 'the variable'} ${v.key}? Services get it no more after their next deployment.`}
                      onConfirm={async () => {
                        await json('DELETE', `${base}/${v.secret ? 'secret' : 'environmentVariable'}/${v.id}`);
                        await qc.invalidateQueries({ queryKey: key });
                      }}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
