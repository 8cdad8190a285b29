// Sign-in through the OIDC provider berth trusts (when it is configured): the authorization code
// flow with PKCE for a public client, by oauth4webapi. The verifier and state wait in
// sessionStorage during the round trip; the access token obtained becomes the session's Bearer
// credential, which berth verifies like any other client's. Loaded only when used (its own chunk).
import * as oauth from 'oauth4webapi';

import { CALLBACK_PATH, type OidcConfig } from './oidc-config.ts';

const PENDING = 'berth.oidc.pending';

function redirectUri(): string {
  return `${location.origin}${CALLBACK_PATH}`;
}

/** plain http is accepted only for a provider on this machine (development, tests) */
function options(issuer: URL): { [oauth.allowInsecureRequests]?: boolean } {
  const loopback = issuer.hostname === 'localhost' || issuer.hostname === '[::1]' || /^127\./.test(issuer.hostname);
  return issuer.protocol === 'http:' && loopback ? { [oauth.allowInsecureRequests]: true } : {};
}

async function discover(cfg: OidcConfig): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(cfg.issuer);
  const res = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...options(issuer) });
  return oauth.processDiscoveryResponse(issuer, res);
}

/** leaves for the provider's sign-in page */
export async function startOidcSignIn(cfg: OidcConfig): Promise<void> {
  const as = await discover(cfg);
  if (!as.authorization_endpoint) throw new Error('The OIDC provider announces no authorization endpoint.');
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state }));
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set('client_id', cfg.client_id);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', 'openid profile email');
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', state);
  if (cfg.audience) url.searchParams.set('audience', cfg.audience);
  location.assign(url.href);
}

/** back from the provider: the code for tokens; returns the access token */
export async function finishOidcSignIn(cfg: OidcConfig): Promise<string> {
  const raw = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  if (!raw) throw new Error('This sign-in was not started from this tab. Start again.');
  const pending = JSON.parse(raw) as { verifier: string; state: string };
  const as = await discover(cfg);
  const client: oauth.Client = { client_id: cfg.client_id };
  const params = oauth.validateAuthResponse(as, client, new URL(location.href), pending.state);
  const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri(), pending.verifier, options(new URL(cfg.issuer)));
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
  return tokens.access_token;
}
