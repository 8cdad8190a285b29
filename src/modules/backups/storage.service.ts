// An organization's backup storage as the API offers it (decision 0735): read by members, set and
// checked by admins. LOCAL keeps backups on the berth host (BACKUP_DIR); S3 names an
// S3-compatible bucket whose secret is sealed and never returned. A new setting is checked
// (write, read back, remove a probe) before it is saved, so a typo never silently breaks the
// next night's backup; the endpoint follows the webhooks' rule on private addresses (storage-base.ts).
import type { Db } from '../../db/db.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { badRequest } from '../../lib/errors.ts';
import { iso } from '../../lib/text.ts';
import type { Principal } from '../access/principal.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import * as repo from './backups.repo.ts';
import type { BackupStorage, BackupStorageRequest } from './backups.schemas.ts';
import { s3EndpointProblem } from './storage-base.ts';
import { locationOf, type Stores } from './stores.ts';

export interface BackupStorageService {
  get(p: Principal, organizationId: string): Promise<BackupStorage>;
  set(p: Principal, organizationId: string, body: BackupStorageRequest): Promise<BackupStorage>;
  check(p: Principal, organizationId: string): Promise<{ ok: boolean; message: string | null }>;
}

function present(r: repo.StorageRow): BackupStorage {
  return {
    kind: r.kind, location: locationOf(r), updated_at: iso(r.updated_at),
    s3: r.kind === 'S3' ? {
      endpoint: r.s3_endpoint, region: r.s3_region ?? 'us-east-1', bucket: r.s3_bucket!, prefix: r.s3_prefix, access_key_id: r.s3_access_key_id!,
      has_secret_access_key: r.s3_secret_sealed !== null, force_path_style: r.s3_force_path_style,
    } : null,
  };
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function createBackupStorageService(deps: { db: Db; sealer: Sealer; stores: Stores; organizations: Pick<OrganizationsService, 'authorize'>; allowPrivateEndpoints: boolean }): BackupStorageService {
  const { db, sealer, stores } = deps;

  async function probe(r: repo.StorageRow): Promise<string | null> {
    try {
      await stores.open(r).check();
      return null;
    } catch (err) {
      return (err as Error)?.message ?? String(err);
    }
  }

  return {
    async get(p, organizationId) {
      await deps.organizations.authorize(p, organizationId, 'read');
      return present(await stores.row(db, organizationId));
    },

    async set(p, organizationId, body) {
      await deps.organizations.authorize(p, organizationId, 'manage');
      const before = await stores.row(db, organizationId);
      let next: repo.StorageRow;
      if (body.kind === 'LOCAL') {
        if (body.s3) throw badRequest('s3 is for kind S3');
        next = { ...before, kind: 'LOCAL', s3_endpoint: null, s3_region: null, s3_bucket: null, s3_prefix: '', s3_access_key_id: null, s3_secret_sealed: null, s3_force_path_style: true };
      } else {
        const s3 = body.s3;
        if (!s3) throw badRequest('s3 (bucket, access_key_id, secret_access_key) is required for kind S3');
        if (!BUCKET.test(s3.bucket)) throw badRequest('s3.bucket must be a valid bucket name (3–63 lower-case letters, digits, dots and hyphens)');
        const endpointProblem = s3.endpoint ? s3EndpointProblem(s3.endpoint, deps.allowPrivateEndpoints) : null;
        if (endpointProblem) throw badRequest(`s3.endpoint: ${endpointProblem}`);
        const keptSecret = before.kind === 'S3' && before.s3_access_key_id === s3.access_key_id ? before.s3_secret_sealed : null;
        const secretSealed = s3.secret_access_key ? sealer.seal(s3.secret_access_key) : keptSecret;
        if (!secretSealed) throw badRequest('s3.secret_access_key is required (a stored one is kept only for the same access_key_id)');
        next = {
          ...before, kind: 'S3', s3_endpoint: s3.endpoint ?? null, s3_region: s3.region ?? 'us-east-1', s3_bucket: s3.bucket,
          s3_prefix: (s3.prefix ?? '').replace(/^\/+|\/+$/g, ''), s3_access_key_id: s3.access_key_id, s3_secret_sealed: secretSealed,
          s3_force_path_style: s3.force_path_style ?? true,
        };
      }
      const problem = await probe(next);
      if (problem) throw badRequest(`The backup storage does not work: ${problem}`);
      await repo.updateStorage(db, organizationId, {
        kind: next.kind, endpoint: next.s3_endpoint, region: next.s3_region, bucket: next.s3_bucket, prefix: next.s3_prefix,
        accessKeyId: next.s3_access_key_id, secretSealed: next.s3_secret_sealed, forcePathStyle: next.s3_force_path_style,
      });
      return present(await stores.row(db, organizationId));
    },

    async check(p, organizationId) {
      await deps.organizations.authorize(p, organizationId, 'manage');
      const problem = await probe(await stores.row(db, organizationId));
      return { ok: problem === null, message: problem };
    },
  };
}
