// What every command that talks to a server starts from: the saved configuration, the chosen
// server (--server, $BERTH_SERVER or the current one; or $BERTH_URL + $BERTH_TOKEN without any
// login, for CI), and an API client over it.
import { apiClient, type Api, type Connection } from './api.ts';
import { loadConfig, saveConfig, selectServer, type ClientConfig, type Context, type Server } from './store.ts';

export interface GlobalOptions { server?: string; json?: boolean }

export interface Session {
  config: ClientConfig;
  name: string;
  server: Server;
  conn: Connection;
  api: Api;
  /** saves a changed context of this server (not for $BERTH_URL sessions) */
  saveContext(context: Context): void;
}

export function openSession(opts: GlobalOptions): Session {
  const config = loadConfig();
  if (process.env.BERTH_URL && process.env.BERTH_TOKEN && !opts.server) {
    const server: Server = { url: process.env.BERTH_URL, token: process.env.BERTH_TOKEN, context: {} };
    return { config, name: 'BERTH_URL', server, conn: server, api: apiClient(server), saveContext: () => {} };
  }
  const { name, server } = selectServer(config, opts.server);
  return {
    config, name, server, conn: server, api: apiClient(server),
    saveContext(context) {
      config.servers[name] = { ...server, context };
      saveConfig(config);
    },
  };
}
