// Pure rules of environments: which cluster field a request used, and re-sealing a service's
// sealed secrets for a clone (each sealed string opened and sealed again, so a clone never
// shares ciphertext with its source). No I/O.
import type { Sealer } from '../../lib/crypto.ts';

/** `cluster_id` (the seed's name) or `cluster` (the public clients'): the id and the field it came in */
export function requestedCluster(body: { cluster_id?: string | undefined; cluster?: string | undefined }): { id: string; field: 'cluster_id' | 'cluster' } | null | 'conflict' {
  if (body.cluster_id && body.cluster && body.cluster_id.toLowerCase() !== body.cluster.toLowerCase()) return 'conflict';
  if (body.cluster_id) return { id: body.cluster_id, field: 'cluster_id' };
  if (body.cluster) return { id: body.cluster, field: 'cluster' };
  return null;
}

/** every string that opens with the sealer is sealed again; anything else is copied unchanged */
export function resealSecrets(value: unknown, sealer: Sealer): unknown {
  if (typeof value === 'string') {
    let plain: string;
    try {
      plain = sealer.open(value);
    } catch {
      return value;
    }
    return sealer.seal(plain);
  }
  if (Array.isArray(value)) return value.map((v) => resealSecrets(v, sealer));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resealSecrets(v, sealer)]));
  }
  return value;
}
