// Where an organization's backups go and with which key (decision 0735): its backup_storages row,
// made on first use (LOCAL under BACKUP_DIR, a fresh archive key sealed with berth's key), the
// store it names (a directory or an S3-compatible bucket: storage.ts) and the location string a
// backup records, so a backup is only read from the store it was written to.
import type { Db, Queryable } from '../../db/db.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { conflict } from '../../lib/errors.ts';
import { newArchiveKey } from './archive.ts';
import * as repo from './backups.repo.ts';
import { localStore, s3Store, type BackupStore } from './storage.ts';

export interface OrganizationStore {
  store: BackupStore;
  /** the archive key (32 bytes) every backup of the organization is sealed with */
  key: Buffer;
  kind: 'LOCAL' | 'S3';
  /** LOCAL, or s3://bucket/prefix at endpoint: what a backup records */
  location: string;
}

export interface Stores {
  /** the organization's storage row (made LOCAL on first use) */
  row(db: Queryable, organizationId: string): Promise<repo.StorageRow>;
  /** the organization's store as it is configured now */
  current(organizationId: string): Promise<OrganizationStore>;
  /** the store holding `backup`: refused when the organization's storage moved elsewhere since */
  holding(backup: Pick<repo.BackupRow, 'organization_id' | 'location'>): Promise<OrganizationStore>;
  /** the store a storage row (saved or about to be) names */
  open(row: repo.StorageRow): BackupStore;
}

export function locationOf(row: Pick<repo.StorageRow, 'kind' | 's3_bucket' | 's3_prefix' | 's3_endpoint'>): string {
  if (row.kind === 'LOCAL') return 'LOCAL';
  const prefix = row.s3_prefix ? `/${row.s3_prefix.replace(/^\/+|\/+$/g, '')}` : '';
  return `s3://${row.s3_bucket}${prefix}${row.s3_endpoint ? ` at ${row.s3_endpoint}` : ''}`;
}

export function createStores(deps: { db: Db; sealer: Sealer; backupDir: string; allowPrivateEndpoints: boolean }): Stores {
  const { db, sealer } = deps;

  async function row(q: Queryable, organizationId: string): Promise<repo.StorageRow> {
    return (await repo.findStorage(q, organizationId))
      ?? repo.ensureStorage(q, organizationId, sealer.seal(newArchiveKey().toString('base64')));
  }

  function open(r: repo.StorageRow): BackupStore {
    if (r.kind === 'LOCAL') return localStore(deps.backupDir);
    return s3Store({
      endpoint: r.s3_endpoint, region: r.s3_region ?? 'us-east-1', bucket: r.s3_bucket!, prefix: r.s3_prefix,
      accessKeyId: r.s3_access_key_id!, secretAccessKey: r.s3_secret_sealed ? sealer.open(r.s3_secret_sealed) : '',
      forcePathStyle: r.s3_force_path_style, allowPrivateEndpoint: deps.allowPrivateEndpoints,
    });
  }

  async function current(organizationId: string): Promise<OrganizationStore> {
    const r = await row(db, organizationId);
    return { store: open(r), key: Buffer.from(sealer.open(r.archive_key_sealed), 'base64'), kind: r.kind, location: locationOf(r) };
  }

  return {
    row, open, current,
    async holding(backup) {
      const now = await current(backup.organization_id);
      if (now.location !== backup.location) {
        throw conflict(`This backup is kept in ${backup.location}; the organization's backup storage is now ${now.location}. Set the storage back to reach it`);
      }
      return now;
    },
  };
}
