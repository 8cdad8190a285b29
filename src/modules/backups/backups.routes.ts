// HTTP routes of database backups: Qovery's BackupsApi (add, list, remove) and berth's own
// (get, restore, restores, drill, download, policy, the organization's backup storage).
import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/app-type.ts';
import { idParams } from '../../http/schemas.ts';
import {
  Backup, BackupList, BackupListQuery, BackupPolicy, BackupPolicyRequest, BackupRequest, BackupStorage, BackupStorageRequest,
  Restore, RestoreRequest, StorageCheck,
} from './backups.schemas.ts';

const tags = ['Backups'];
const Deleted = (what: string) => ({ 204: Type.Null({ description: `${what} deleted` }) });

export function backupRoutes(app: App, ctx: AppContext): void {
  const svc = ctx.services.backups;
  const storage = ctx.services.backupStorage;
  const DbParams = idParams('databaseId');
  const BackupParams = idParams('databaseId', 'backupId');
  const OrgParams = idParams('organizationId');

  app.post('/database/:databaseId/backup', {
    schema: { tags, operationId: 'addBackupDatabase', summary: 'Take a backup of the database now', params: DbParams, body: BackupRequest, response: { 201: Backup } },
  }, async (req, reply) => reply.code(201).send(await svc.take(req.principal, req.params.databaseId, req.body)));
  app.get('/database/:databaseId/backup', {
    schema: { tags, operationId: 'listDatabaseBackup', summary: 'List the database\'s backups, newest first (20 a page; startId: after that one)', params: DbParams, querystring: BackupListQuery, response: { 200: BackupList } },
  }, async (req) => svc.list(req.principal, req.params.databaseId, req.query.startId));
  app.get('/database/:databaseId/backup/:backupId', {
    schema: { tags, operationId: 'getDatabaseBackup', params: BackupParams, response: { 200: Backup } },
  }, async (req) => svc.get(req.principal, req.params.databaseId, req.params.backupId));
  app.delete('/database/:databaseId/backup/:backupId', {
    schema: { tags, operationId: 'removeDatabaseBackup', summary: 'Delete a backup (its stored object too)', params: BackupParams, response: Deleted('Backup') },
  }, async (req, reply) => { await svc.remove(req.principal, req.params.databaseId, req.params.backupId); return reply.code(204).send(null); });

  app.post('/database/:databaseId/backup/:backupId/restore', {
    schema: { tags, operationId: 'restoreDatabaseBackup', summary: 'Restore a backup into a new database beside this one (default) or in place after a safety backup', params: BackupParams, body: RestoreRequest, response: { 202: Restore } },
  }, async (req, reply) => reply.code(202).send(await svc.restore(req.principal, req.params.databaseId, req.params.backupId, req.body ?? {})));
  app.get('/database/:databaseId/backup/:backupId/restore', {
    schema: { tags, operationId: 'listDatabaseBackupRestores', params: BackupParams, response: { 200: Type.Object({ results: Type.Array(Restore) }) } },
  }, async (req) => svc.restores(req.principal, req.params.databaseId, req.params.backupId));
  app.post('/database/:databaseId/backup/:backupId/drill', {
    schema: { tags, operationId: 'drillDatabaseBackup', summary: 'Restore the backup into a throwaway database now and record what it holds', params: BackupParams, response: { 202: Backup } },
  }, async (req, reply) => reply.code(202).send(await svc.drill(req.principal, req.params.databaseId, req.params.backupId)));
  app.get('/database/:databaseId/backup/:backupId/download', {
    schema: {
      tags, operationId: 'downloadDatabaseBackup', summary: 'The native dump (pg_dump custom format, SQL, mongodump archive or RDB), decrypted; for admins', params: BackupParams,
      response: { 200: Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'the dump, streamed' }) },
    },
  }, async (req, reply) => {
    const { stream, filename } = await svc.download(req.principal, req.params.databaseId, req.params.backupId);
    return reply.type('application/octet-stream').header('content-disposition', `attachment; filename="${filename}"`).send(stream);
  });

  app.get('/database/:databaseId/backupPolicy', {
    schema: { tags, operationId: 'getDatabaseBackupPolicy', summary: 'The database\'s backup policy, or null when none is set', params: DbParams, response: { 200: Type.Union([BackupPolicy, Type.Null()]) } },
  }, async (req) => svc.policy(req.principal, req.params.databaseId));
  app.put('/database/:databaseId/backupPolicy', {
    schema: { tags, operationId: 'editDatabaseBackupPolicy', summary: 'Set the schedule, retention (daily, weekly, monthly) and drill schedule', params: DbParams, body: BackupPolicyRequest, response: { 200: BackupPolicy } },
  }, async (req) => svc.setPolicy(req.principal, req.params.databaseId, req.body));
  app.delete('/database/:databaseId/backupPolicy', {
    schema: { tags, operationId: 'deleteDatabaseBackupPolicy', summary: 'Stop scheduled backups and drills (backups already taken stay)', params: DbParams, response: Deleted('Backup policy') },
  }, async (req, reply) => { await svc.removePolicy(req.principal, req.params.databaseId); return reply.code(204).send(null); });

  app.get('/organization/:organizationId/backupStorage', {
    schema: { tags, operationId: 'getBackupStorage', params: OrgParams, response: { 200: BackupStorage } },
  }, async (req) => storage.get(req.principal, req.params.organizationId));
  app.put('/organization/:organizationId/backupStorage', {
    schema: { tags, operationId: 'editBackupStorage', summary: 'Keep backups on the berth host (LOCAL) or in an S3-compatible bucket; checked before it is saved', params: OrgParams, body: BackupStorageRequest, response: { 200: BackupStorage } },
  }, async (req) => storage.set(req.principal, req.params.organizationId, req.body));
  app.post('/organization/:organizationId/backupStorage/check', {
    schema: { tags, operationId: 'checkBackupStorage', summary: 'Write, read back and remove a probe object now', params: OrgParams, response: { 200: StorageCheck } },
  }, async (req) => storage.check(req.principal, req.params.organizationId));
}
