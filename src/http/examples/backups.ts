// Request examples of the backup operations (decision 0407): a backup taken by hand, a restore
// into a new database, a nightly policy and an S3-compatible storage.
export const backupExamples = Object.freeze({
  addBackupDatabase: { name: 'before-migration', message: 'taken before the v2 schema migration' },
  restoreDatabaseBackup: { mode: 'NEW_DATABASE', name: 'orders-restored' },
  editDatabaseBackupPolicy: { enabled: true, schedule: '0 3 * * *', keep_daily: 7, keep_weekly: 4, keep_monthly: 6, drill_schedule: '0 4 * * 0' },
  editBackupStorage: {
    kind: 'S3',
    s3: { endpoint: 'https://s3.eu-west-1.example', region: 'eu-west-1', bucket: 'acme-backups', prefix: 'berth', access_key_id: 'AKIAEXAMPLE', secret_access_key: 'example-secret', force_path_style: true },
  },
});
