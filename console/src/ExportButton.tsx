// "Export as berth.yaml" (issue 41): fetches an environment's or a project's export with the
// signed-in credential and saves it as berth.yaml (a Blob download: the text never enters the page).
import { useState } from 'react';
import { downloadText, fetchExport } from './manifest.ts';
import { ErrorNote } from './ui.tsx';

export function ExportButton(props: { scope: 'environment' | 'project'; id: string; label: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <>
      <button
        type="button" disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try { downloadText(await fetchExport(props.scope, props.id), 'berth.yaml'); } catch (err) { setError(err); } finally { setBusy(false); }
        }}
      >{busy ? 'Exporting…' : props.label}</button>
      <ErrorNote error={error} />
    </>
  );
}
