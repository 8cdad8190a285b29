// Crypto helpers with no I/O: AES-256-GCM sealing of secrets at rest, API token generation and
// hashing, constant-time comparison. Sealed values are versioned strings so keys can rotate.
import { createCipheriv, createDecipheriv, createSecretKey, hash, randomBytes, timingSafeEqual } from 'node:crypto';

const SEAL_VERSION = 'v1';

export interface Sealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

/** key: 32 raw bytes. Format: v1.<iv b64url>.<tag b64url>.<ciphertext b64url> */
export function createSealer(raw: Buffer): Sealer {
  if (raw.length !== 32) throw new Error('encryption key must be 32 bytes');
  const key = createSecretKey(raw);
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [SEAL_VERSION, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== SEAL_VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed value');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

const API_TOKEN_PREFIX = 'berth_';

/** a new API token: recognisable prefix + 32 random bytes */
export function generateApiToken(): string {
  return API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

export function randomSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

export function safeEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}
