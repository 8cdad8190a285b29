// Sign-in with an API token: kept in sessionStorage only (gone when the tab closes or on sign-out)
// and checked against the API before the console opens.
import { useState, type FormEvent } from 'react';
import { api, call, session } from '../api.ts';
import { ErrorNote } from '../ui.tsx';

export function SignIn(props: { version?: string; onSignedIn: () => void }) {
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
      {props.version && <p className="muted">berth {props.version}</p>}
    </main>
  );
}
