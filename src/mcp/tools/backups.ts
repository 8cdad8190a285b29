// The database-backup tools of berth's MCP server (issue 39): list a database's backups (with
// "last verified restorable"), take one now, and restore one — into a new database beside it (the
// default; DEVOPS and up) or in place after a SAFETY backup (ADMIN and up). Each is the call the
// REST routes make (ctx.services.backups, which authorizes: a role that may not gets the API's 403,
// worded here for a model to relay), the changes recorded in the audit log.
import { Type } from 'typebox';
import { AppError, badRequest } from '../../lib/errors.ts';
import { BackupRequest, RestoreRequest } from '../../modules/backups/backups.schemas.ts';
import { findService, type ServicePlace } from '../../modules/scope/names.ts';
import { ServicePlaceInput, tool, type ToolCall } from '../tool.ts';

/** the database the words name */
async function database(call: ToolCall, words: Parameters<typeof findService>[2]): Promise<ServicePlace> {
  const s = await findService(call.ctx.db, call.principal, words);
  if (s.service_type !== 'DATABASE') throw badRequest(`${s.service_name} is a ${s.service_type}: only databases have backups`);
  return s;
}

const placeOf = (s: ServicePlace) => ({ id: s.service_id, name: s.service_name, environment: s.environment_name });
const DatabasePlaceInput = { ...ServicePlaceInput, service: Type.String({ minLength: 1, maxLength: 255, description: 'the database: its name (case-insensitive) or its id' }) };

export const backupTools = [
  tool({
    name: 'list_database_backups', title: 'List the backups of a database', action: 'read', reach: 'environment',
    description: 'A database\'s backups, newest first (20): name, status (QUEUED, RUNNING, SUCCEEDED, FAILED with the error), trigger (MANUAL, SCHEDULED, SAFETY), size, SHA-256, where it is kept, and verified_at (when a restore drill last restored it). Also when the database was last verified restorable.',
    input: Type.Object(DatabasePlaceInput),
    run: async (call, a) => {
      const s = await database(call, a);
      const { results } = await call.ctx.services.backups.list(call.principal, s.service_id);
      const verified = results.map((b) => b.verified_at).filter((v): v is string => v !== null).sort().at(-1) ?? null;
      return { database: placeOf(s), last_verified_restorable_at: verified, backups: results };
    },
  }),
  tool({
    name: 'take_database_backup', title: 'Take a backup of a database now', action: 'write', reach: 'environment',
    hints: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
    description: 'Take a backup of a running database now (a native dump, compressed, encrypted and kept in the organization\'s backup storage). Answers it QUEUED; follow it with list_database_backups until it is SUCCEEDED or FAILED.',
    input: Type.Object({ ...DatabasePlaceInput, name: BackupRequest.properties.name, message: BackupRequest.properties.message }),
    run: async (call, a) => {
      const s = await database(call, a);
      const made = await call.ctx.services.backups.take(call.principal, s.service_id, { name: a.name, ...(a.message !== undefined ? { message: a.message } : {}) });
      await call.audit('CREATE', 'DATABASE', s.service_id, JSON.stringify({ backup: made.name }));
      return { database: placeOf(s), backup: made, next: 'The backup runs in the background: list_database_backups shows when it is SUCCEEDED (with its size and checksum) or FAILED (with why).' };
    },
  }),
  tool({
    name: 'restore_database_backup', title: 'Restore a backup of a database', action: 'write', reach: 'environment',
    hints: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
    description: 'Restore a SUCCEEDED backup. mode NEW_DATABASE (the default) creates a new database beside the original and restores into it (the original is untouched; needs DEVOPS or above). mode IN_PLACE replaces the database\'s contents after a SAFETY backup of it (needs ADMIN or above): ask the person first. Find the backup id with list_database_backups.',
    input: Type.Object({
      ...DatabasePlaceInput,
      backup_id: Type.String({ format: 'uuid', description: 'the backup (its id, from list_database_backups)' }),
      mode: RestoreRequest.properties.mode,
      name: RestoreRequest.properties.name,
    }),
    run: async (call, a) => {
      const s = await database(call, a);
      const mode = a.mode ?? 'NEW_DATABASE';
      let restore;
      try {
        restore = await call.ctx.services.backups.restore(call.principal, s.service_id, a.backup_id, { mode, ...(a.name !== undefined ? { name: a.name } : {}) });
      } catch (err) {
        if (err instanceof AppError && err.status === 403) {
          const why = mode === 'IN_PLACE'
            ? 'Restoring in place needs the ADMIN or OWNER role; your role may restore into a new database instead (mode NEW_DATABASE).'
            : 'Restoring a backup needs the DEVOPS role or above.';
          throw new AppError(403, err.code, `${why} (${err.message})`);
        }
        throw err;
      }
      await call.audit('UPDATE', 'DATABASE', s.service_id, JSON.stringify({ restore: { backup_id: a.backup_id, mode, target_database_id: restore.target_database_id } }));
      return {
        database: placeOf(s), restore,
        next: mode === 'IN_PLACE' ? 'A SAFETY backup of the database is taken first, then the backup is restored into it.' : `The backup is restored into the new database ${restore.target_database_id} once it is deployed.`,
      };
    },
  }),
];
