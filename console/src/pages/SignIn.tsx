// Sign-in with an API token: kept in sessionStorage only (gone when the tab closes or on sign-out)
// and checked against the API before the console opens.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, call, session } from '../api.ts';
import type { OidcConfig } from '../oidc-config.ts';

// the OIDC client is fetched only by those who sign in that way
const oidcClient = () => import('../oidc.ts');
import { ErrorNote } from '../ui.tsx';

/** the provider sent the browser back here: exchange the code, then open the console */
export function OidcCallback(props: { oidc: OidcConfig | null | undefined; onSignedIn: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const done = useRef(false);
  useEffect(() => {
    if (props.oidc === undefined || done.current) return;
    done.current = true;
    (async () => {
      if (!props.oidc) throw new Error('Sign-in through OIDC is not configured on this berth.');
      const token = await (await oidcClient()).finishOidcSignIn(props.oidc);
      session.signIn(`Bearer ${token}`);
      await call(api.GET('/organization'));
      history.replaceState(null, '', '/ui');
      props.onSignedIn();
    })().catch((err) => {
      session.signOut();
      setError(err);
    });
  }, [props.oidc, props]);
  return (
    <main className="signin">
      <h1>berth</h1>
      {error ? <><ErrorNote error={error} /><p><a href="/ui">Back to sign-in</a></p></> : <p aria-live="polite">Signing you in…</p>}
    </main>
  );
}

export function SignIn(props: { version?: string; oidc?: OidcConfig | null; onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!token.trim()) {
      setError(new Error('Paste an API token first.'));
      return;
    }
    setBusy(true);
    setError(null);
    session.signIn(token);
    try {
      await call(api.GET('/organization'));
      props.onSignedIn();
    } catch (err) {
      session.signOut();
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="signin">
      <h1>berth</h1>
      <form className="card form" onSubmit={submit} aria-label="Sign in">
        <h2>Sign in</h2>
        <div className="field">
          <label htmlFor="token">API token</label>
          <input id="token" name="token" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} autoFocus />
          <small className="muted">
            On a new berth the first token is in <code>data/initial-api-token</code>; more are made under an organization's API tokens.
            It is kept for this browser tab only.
          </small>
        </div>
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={busy}>{busy ? 'Checking…' : 'Sign in'}</button>
      </form>
      {props.oidc && (
        <div className="card">
          <p>Or sign in with your account at {new URL(props.oidc.issuer).host}.</p>
          <button type="button" onClick={() => { setError(null); oidcClient().then((c) => c.startOidcSignIn(props.oidc!)).catch(setError); }}>Sign in with OIDC</button>
        </div>
      )}
      {props.version && <p className="muted">berth {props.version}</p>}
    </main>
  );
}
