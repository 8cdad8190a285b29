// A refusal of one step of an apply (a 4xx of the service it called) as the file's problem: its
// message and its errors entry carry the file, line and column of the path it came from.
import { AppError } from '../../lib/errors.ts';
import type { ManifestProblem } from './manifest.schemas.ts';

export function located(locate: (path: string) => ManifestProblem, path: string, err: unknown): unknown {
  if (!(err instanceof AppError) || err.status >= 500) return err;
  const at = locate(path);
  const message = `${at.file}:${at.line}:${at.column}: ${path}: ${err.message}`;
  return new AppError(err.status, err.code, message, err.headers, [{ ...at, message }]);
}
