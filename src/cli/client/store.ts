// Where the client keeps its servers, tokens and contexts: one JSON file in the user's config
// directory ($BERTH_CONFIG_DIR, else $XDG_CONFIG_HOME/berth, else ~/.config/berth), mode 0600 in
// a 0700 directory. Several named servers; one is current.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError, EXIT } from './exit-codes.ts';

export interface Named { id: string; name: string }

export interface Context { organization?: Named; project?: Named; environment?: Named }

export interface Server { url: string; token: string; context: Context }

export interface ClientConfig { current: string | null; servers: Record<string, Server> }

function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BERTH_CONFIG_DIR) return env.BERTH_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'berth');
}

export function configFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'config.json');
}

export function loadConfig(): ClientConfig {
  const file = configFile();
  if (!existsSync(file)) return { current: null, servers: {} };
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<ClientConfig>;
    return { current: parsed.current ?? null, servers: parsed.servers ?? {} };
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message} (fix or delete it, then berth login)`);
  }
}

/** written to a temporary file with mode 0600 and renamed, so a token is never world-readable */
export function saveConfig(config: ClientConfig): void {
  const dir = configDir();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = configFile();
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** the server a command talks to: --server NAME, else $BERTH_SERVER, else the current one */
export function selectServer(config: ClientConfig, name: string | undefined): { name: string; server: Server } {
  const chosen = name ?? process.env.BERTH_SERVER ?? config.current;
  if (!chosen) throw new CliError('not logged in: run berth login URL', EXIT.AUTH);
  const server = config.servers[chosen];
  if (!server) {
    const known = Object.keys(config.servers);
    throw new CliError(`no server named "${chosen}"${known.length ? ` (known: ${known.join(', ')})` : ''}: run berth login URL --name ${chosen}`, EXIT.AUTH);
  }
  return { name: chosen, server };
}

/** a name for a server from its URL: host, plus the port when there is one */
export function defaultServerName(url: string): string {
  const u = new URL(url);
  return u.port ? `${u.hostname}:${u.port}` : u.hostname;
}
