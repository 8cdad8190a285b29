// Pure rules of environments: which cluster field a request used, re-sealing a service's
// sealed secrets for a clone (each sealed string opened and sealed again, so a clone never
// shares ciphertext with its source), and the one rule that nothing in an environment being
// deleted changes. No I/O.
import { conflict } from '../../lib/errors.ts';
import type { Sealer } from '../../lib/crypto.ts';

/**
 * An environment being deleted takes no change (409): no new or edited service, variable,
 * deployment or clone, in it or its services. Every write path asks this one rule, with the
 * environment's `deleting` as it read it (locked, where the write must not race the deletion).
 */
export function refuseWhileDeleting(environment: { readonly deleting: boolean }): void {
  if (environment.deleting) throw conflict('The environment is being deleted: nothing in it can change');
}

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
