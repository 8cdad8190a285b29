// Database backups on the simulated engine (decision 0720): no database runs, so a "dump" is a
// short text document that says it is simulated (service id, name, type, time); restore and drill
// accept only such a document of the same type and do nothing else. It keeps API tests fast and
// never passes for a real backup.
import { Readable } from 'node:stream';
import type { DatabaseBackups, DriverService } from './engine.ts';

const HEADER = 'BERTH SIMULATED DUMP v1';
/** a simulated dump is a few hundred bytes: anything longer is not one */
const MAX_BYTES = 64 * 1024;

function typeOf(service: DriverService): string {
  return String(service.plan?.database?.type ?? service.spec.type ?? 'UNKNOWN').toUpperCase();
}

async function readSmall(dump: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of dump) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += b.length;
    if (size > MAX_BYTES) {
      dump.destroy();
      throw new Error('not a simulated dump (too long): the simulated engine restores only the dumps it made');
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** checks a simulated dump against the service it goes into; throws a clear Error otherwise */
async function check(service: DriverService, dump: Readable, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  const text = await readSmall(dump);
  if (!text.startsWith(`${HEADER}\n`)) throw new Error('not a simulated dump: the simulated engine restores only the dumps it made');
  const type = /^type: (\S+)$/m.exec(text)?.[1];
  if (type !== typeOf(service)) throw new Error(`a simulated dump of a ${type ?? 'unknown'} database cannot be restored into a ${typeOf(service)} database`);
}

export function simulatedBackups(): DatabaseBackups {
  return {
    async dump(service, signal) {
      signal.throwIfAborted();
      return Readable.from([Buffer.from([
        HEADER,
        `service_id: ${service.id}`,
        `name: ${service.name}`,
        `type: ${typeOf(service)}`,
        `taken_at: ${new Date().toISOString()}`,
        'This is not a database dump: the simulated engine runs no database, so there is nothing to back up.',
        '',
      ].join('\n'))]);
    },
    async restore(service, dump, signal) {
      await check(service, dump, signal);
    },
    async drill(service, dump, signal) {
      await check(service, dump, signal);
      return { counts: {} };
    },
  };
}
