// What `berth serve` tells a person at a terminal: a short banner (where the API and its docs
// are, where the initial token is, which database and engine are in use), and startup failures
// as one line that says what to do. Kept apart from the runtime so JSON logs stay as they are.
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import pg from 'pg';
import pc from 'picocolors';
import type { Config, Role } from '../config/config.ts';
import { resolveEmbeddedKind } from '../db/embedded-kind.ts';

/** where PostgreSQL is, without credentials: host:port/database */
function postgresLocation(databaseUrl: string): { host: string; port: string; database: string } {
  try {
    const u = new URL(databaseUrl);
    return { host: u.hostname || 'localhost', port: u.port || '5432', database: u.pathname.replace(/^\//, '') || '(default)' };
  } catch {
    return { host: '(unparsable DATABASE_URL)', port: '?', database: '?' };
  }
}

function embeddedKind(config: Config): string {
  try {
    return resolveEmbeddedKind(config.dataDir, config.embeddedDatabase);
  } catch {
    return config.embeddedDatabase ?? '';
  }
}

function databaseDescription(config: Config): string {
  if (!config.databaseUrl && embeddedKind(config) === 'postgres') return `embedded PostgreSQL server in ${join(resolve(config.dataDir), 'postgres')}`;
  if (!config.databaseUrl) return `embedded PostgreSQL (PGlite) in ${join(resolve(config.dataDir), 'pgdata')}`;
  const l = postgresLocation(config.databaseUrl);
  return `PostgreSQL at ${l.host}:${l.port}/${l.database}`;
}

function tokenLocation(config: Config): string {
  if (config.bootstrapToken) return 'BOOTSTRAP_TOKEN (from the environment)';
  const file = join(resolve(config.dataDir), 'initial-api-token');
  if (existsSync(file)) return `${file} (read it once, then delete the file)`;
  return `already taken; make another with: berth token create --organization ${config.bootstrapOrganization}`;
}

/** the address a person types: a wildcard host is reached through localhost */
export function localUrl(config: Config, address: AddressInfo | string | null): string {
  const port = address && typeof address === 'object' ? address.port : config.port;
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${port}`;
}

export function renderBanner(p: { version: string; role: Role; config: Config; url: string | null; engine: { name: string; description: string } }): string {
  const row = (label: string, value: string) => `  ${pc.dim(label.padEnd(9))}${value}`;
  const lines = [``, `  ${pc.bold('berth')} ${p.version} ${pc.green('ready')} ${pc.dim(`(role ${p.role})`)}`];
  if (p.url) {
    lines.push(row('API', pc.cyan(p.url)));
    lines.push(row('Docs', pc.cyan(`${p.url}/docs`)));
    if (p.config.publicUrl !== p.url) lines.push(row('Public', p.config.publicUrl));
  }
  lines.push(row('Token', tokenLocation(p.config)));
  lines.push(row('Database', databaseDescription(p.config)));
  lines.push(row('Engine', p.engine.name === 'simulated' ? pc.yellow(p.engine.description) : p.engine.description));
  lines.push(row('Client', `berth login ${p.url ?? p.config.publicUrl}`), '');
  return lines.join('\n') + '\n';
}

interface SystemError { code?: string; message?: string; errors?: Array<{ message?: string }> }

/** the driver's own words for why PostgreSQL cannot be reached, by connecting once more */
async function postgresReason(databaseUrl: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return null;
  } catch (err) {
    const e = err as SystemError;
    return e.message || e.errors?.[0]?.message || e.code || String(err);
  } finally {
    await client.end().catch(() => {});
  }
}

/** one line that says what failed and what to do, or null for an error with no advice */
export async function describeStartupError(err: unknown, config: Config): Promise<string | null> {
  const e = err as SystemError;
  if (e.code === 'EADDRINUSE') {
    return `port ${config.port} is already in use on ${config.host}: stop what listens there, or set PORT to a free port`;
  }
  if (e.code === 'EACCES' && /listen/.test(e.message ?? '')) {
    return `not allowed to listen on port ${config.port}: set PORT to a port above 1023`;
  }
  if (config.databaseUrl) {
    const reason = await postgresReason(config.databaseUrl);
    if (reason) {
      const l = postgresLocation(config.databaseUrl);
      return `cannot connect to PostgreSQL at ${l.host}:${l.port} (database ${l.database}, from DATABASE_URL): ${reason}`;
    }
  }
  return null;
}
