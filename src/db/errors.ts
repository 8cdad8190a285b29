// Driver-error translation, done once for both drivers: a violated constraint named in the
// database's table of messages → that status and message (e.g. a name clash → 409), other unique
// violations → 409, foreign key → 404, malformed values → 400, connection loss → 503. Anything
// else stays an unexpected error (500, details only in the log).
import { AppError } from '../lib/errors.ts';

/** what a violation of one constraint tells the user */
interface ConstraintMessage { status: number; message: string }

/** constraint name → its message: each module's repo declares its own, src/modules/constraints.ts
 * composes them and whoever opens the database for the app gives it to the driver (openDb) */
export type ConstraintMessages = Readonly<Record<string, ConstraintMessage>>;

export const NO_CONSTRAINT_MESSAGES: ConstraintMessages = Object.freeze({});

const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300',
]);

interface DriverError { code?: string; constraint?: string; message?: string }

export function translateDbError(err: unknown, constraints: ConstraintMessages): unknown {
  if (err instanceof AppError || typeof err !== 'object' || err === null) return err;
  const e = err as DriverError;
  const code = e.code;
  if (code === undefined) {
    if (/Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e.message ?? '')) {
      return new AppError(503, 'database_unavailable', 'The database is unavailable; retry shortly');
    }
    return err;
  }
  const registered = e.constraint && Object.hasOwn(constraints, e.constraint) ? constraints[e.constraint] : undefined;
  if (registered) return new AppError(registered.status, registered.status === 409 ? 'conflict' : 'bad_request', registered.message);
  switch (code) {
    case '23505':
      return new AppError(409, 'conflict', 'A resource with the same unique value already exists');
    case '23503':
      return new AppError(404, 'not_found', 'A referenced resource does not exist');
    case '22P02':
    case '22007':
    case '22008':
    case '22003':
    case '22001':
    case '22021':
    case '22P05':
      return new AppError(400, 'bad_request', 'A value has an invalid format or is out of range');
    case '23514':
    case '23502':
      return new AppError(400, 'bad_request', 'A value violates a constraint');
    case '40001':
    case '40P01':
      return new AppError(409, 'conflict', 'A concurrent change conflicted with this request; retry it');
    default:
      if (CONNECTION_CODES.has(code)) return new AppError(503, 'database_unavailable', 'The database is unavailable; retry shortly');
      return err;
  }
}
