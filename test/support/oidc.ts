// A real OIDC provider on loopback for tests: serves a JWKS and a discovery document, signs
// access tokens with its current key, and can rotate to a new key.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

export interface TestOidc {
  issuer: string;
  jwksUrl: string;
  audience: string;
  sign(claims: { sub: string; email?: string; name?: string; email_verified?: boolean }, options?: {
    expiresIn?: string | number; audience?: string; issuer?: string; useOldKey?: boolean; notYetValid?: boolean;
  }): Promise<string>;
  rotate(): Promise<void>;
  close(): Promise<void>;
}

type KeyPair = { kid: string; privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"]; jwk: JWK };

async function newKey(n: number): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = `test-key-${n}-${Math.random().toString(36).slice(2, 6)}`;
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

export async function startTestOidc(audience = 'berth-test'): Promise<TestOidc> {
  let keys: KeyPair[] = [await newKey(1)];
  let retired: KeyPair | undefined;
  let base = '';
  const server: Server = createServer((req, res) => {
    if (req.url === '/.well-known/openid-configuration') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks` }));
    } else if (req.url === '/jwks') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: keys.map((k) => k.jwk) }));
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let counter = 1;
  return {
    issuer: base,
    jwksUrl: `${base}/jwks`,
    audience,
    async sign(claims, options = {}) {
      const key = options.useOldKey && retired ? retired : keys[0]!;
      const now = Math.floor(Date.now() / 1000);
      let jwt = new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid })
        .setIssuer(options.issuer ?? base)
        .setAudience(options.audience ?? audience)
        .setSubject(claims.sub)
        .setIssuedAt(now);
      jwt = typeof options.expiresIn === 'number' ? jwt.setExpirationTime(now + options.expiresIn) : jwt.setExpirationTime(options.expiresIn ?? '10m');
      if (options.notYetValid) jwt = jwt.setNotBefore(now + 3600);
      return jwt.sign(key.privateKey);
    },
    async rotate() {
      retired = keys[0];
      keys = [await newKey(++counter)];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
