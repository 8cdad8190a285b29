// The opaque cursors of the live streams (the SSE `id:`): `<tx>-<line id>` for log lines, and
// for a deployment's stream `<tx>-<line id>-<STATUS>` (the last status sent rides along, so a
// resumed stream neither repeats a line nor re-announces a status the client already has).
import { badRequest } from '../../lib/errors.ts';
import { START, type LogCursor } from './streams.repo.ts';

export interface StreamCursor { log: LogCursor; status: string | null }

const PATTERN = /^(\d{1,20})-(\d{1,19})(?:-([A-Z_]{1,40}))?$/;

export function formatCursor(log: LogCursor, status?: string | null): string {
  return status ? `${log.tx}-${log.id}-${status}` : `${log.tx}-${log.id}`;
}

/** the header wins over ?cursor=; neither: the start. A cursor of another shape is a 400. */
export function parseCursor(header: string | string[] | undefined, query: string | undefined): StreamCursor {
  const raw = (Array.isArray(header) ? header[0] : header) ?? query;
  if (raw === undefined || raw === '') return { log: START, status: null };
  const m = PATTERN.exec(raw.trim());
  if (!m) throw badRequest(`cursor "${raw.slice(0, 80)}" is not a cursor of this stream (use an event id it sent)`, 'invalid_cursor');
  return { log: { tx: m[1]!, id: Number(m[2]) }, status: m[3] ?? null };
}
