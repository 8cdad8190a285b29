// A small OpenID provider on loopback for the console's sign-in test: discovery, JWKS, an
// authorization endpoint that signs the user in at once (no consent page) and a token endpoint
// that checks the PKCE verifier against the challenge before it issues tokens. CORS is open, as
// a provider serving browser-based public clients must be.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export interface TestProvider {
  issuer: string;
  clientId: string;
  audience: string;
  /** token requests whose verifier matched their challenge */
  exchanges: number;
  /** token requests refused (wrong verifier, unknown code…) */
  refusals: string[];
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.on('data', (c) => { data += c; });
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

export async function startTestProvider(user: { sub: string; email: string; name: string }): Promise<TestProvider> {
  const clientId = 'berth-console';
  const audience = 'berth-console-test';
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'console-test', alg: 'ES256', use: 'sig' };
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  let issuer = '';
  const provider: TestProvider = { issuer: '', clientId, audience, exchanges: 0, refusals: [], close: async () => {} };
  const sign = (claims: Record<string, unknown>, aud: string) => new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: jwk.kid }).setIssuer(issuer).setAudience(aud).setSubject(user.sub)
    .setIssuedAt().setExpirationTime('10m').sign(privateKey);

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', '*');
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(value));
    };
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(200, {
        issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'], code_challenge_methods_supported: ['S256'], id_token_signing_alg_values_supported: ['ES256'],
        token_endpoint_auth_methods_supported: ['none'],
      });
    }
    if (url.pathname === '/jwks') return json(200, { keys: [jwk] });
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      const redirectUri = q.get('redirect_uri') ?? '';
      if (q.get('client_id') !== clientId || q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) {
        return json(400, { error: 'invalid_request' });
      }
      const code = randomBytes(16).toString('base64url');
      codes.set(code, { challenge: q.get('code_challenge')!, redirectUri });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      res.writeHead(302, { location: back.href });
      return void res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(await body(req));
      const pending = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const problem = !pending ? 'unknown code'
        : form.get('grant_type') !== 'authorization_code' ? 'grant_type'
        : form.get('client_id') !== clientId ? 'client_id'
        : form.get('redirect_uri') !== pending.redirectUri ? 'redirect_uri'
        : createHash('sha256').update(verifier).digest('base64url') !== pending.challenge ? 'code_verifier does not match the challenge'
        : null;
      if (problem) {
        provider.refusals.push(problem);
        return json(400, { error: 'invalid_grant', error_description: problem });
      }
      provider.exchanges += 1;
      return json(200, {
        token_type: 'Bearer', expires_in: 600,
        access_token: await sign({ email: user.email, email_verified: true, name: user.name }, audience),
        id_token: await sign({ email: user.email, name: user.name }, clientId),
      });
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider.issuer = issuer;
  provider.close = () => new Promise((r) => server.close(() => r()));
  return provider;
}
