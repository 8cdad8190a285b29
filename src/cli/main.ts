// The `berth` command. Server commands: serve (what `npm start` runs), migrate, token create,
// openapi, rotate-key, backup, restore, ingress (they read the server's environment). Everything else,
// and --help, goes to the client commands (src/cli/client/program.ts), which talk to a berth over
// its public API and never read the server's configuration.
import './compile-cache.ts';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Role } from '../config/config.ts';
import { LockHeldError } from '../db/lock.ts';
import { EmbeddedDatabaseError } from '../db/embedded-kind.ts';

const USAGE = `usage: berth <command>
  serve [--role all|api|worker]                      run the API and/or the workers (default all)
  migrate                                            apply database migrations and exit
  token create --organization NAME [--role ROLE] [--name NAME]
                                                     create an API token (organization created if missing); prints it once
  openapi                                            print the OpenAPI document
  rotate-key                                         re-encrypt every secret with NEW_ENCRYPTION_KEY
                                                     (embedded mode: generated when unset, written to DATA_DIR)
  backup --out FILE                                  embedded mode: write the database to FILE (server stopped)
  restore --from FILE                                embedded mode: load FILE into an empty DATA_DIR
  ingress status|stop                                the HAProxy serving public URLs (it outlives berth): show or stop it`;

/** `.env` in the working directory (see .env.example); the real environment wins over it */
function loadDotEnv(): void {
  if (!existsSync('.env')) return;
  try {
    process.loadEnvFile('.env');
  } catch (err) {
    fail(`cannot read .env: ${(err as Error).message}`);
  }
}

function fail(message: string, code = 1): never {
  process.stderr.write(`berth: ${message}\n`);
  process.exit(code);
}

const SERVER_COMMANDS = new Set(['serve', 'migrate', 'token', 'openapi', 'rotate-key', 'backup', 'restore', 'ingress']);

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (!command || !SERVER_COMMANDS.has(command) || rest.includes('--help') || rest.includes('-h')) {
    if (command && SERVER_COMMANDS.has(command)) {
      process.stdout.write(USAGE + '\n');
      process.exit(0);
    }
    const { runClient } = await import('./client/program.ts');
    process.exitCode = await runClient(argv);
    return;
  }
  loadDotEnv();
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(`configuration error: ${err.message}`);
    throw err;
  }
  switch (command) {
    case 'serve': {
      const { values } = parseArgs({ args: rest, options: { role: { type: 'string', default: 'all' } } });
      if (!['all', 'api', 'worker'].includes(values.role!)) fail(`--role must be all, api or worker, got "${values.role}"`);
      const { serve } = await import('./serve.ts');
      try {
        return await serve(config, values.role as Role);
      } catch (err) {
        const { describeStartupError } = await import('./banner.ts');
        const line = await describeStartupError(err, config);
        if (line) fail(line);
        throw err;
      }
    }
    case 'migrate': {
      const { runMigrate } = await import('./commands.ts');
      return runMigrate(config);
    }
    case 'token': {
      const { values, positionals } = parseArgs({
        args: rest, allowPositionals: true,
        options: { organization: { type: 'string' }, role: { type: 'string', default: 'OWNER' }, name: { type: 'string' } },
      });
      if (positionals[0] !== 'create') fail(USAGE, 2);
      if (!values.organization) fail('token create needs --organization NAME', 2);
      const { createToken } = await import('./commands.ts');
      return createToken(config, values.organization, values.role!, values.name);
    }
    case 'openapi': {
      const { printOpenApi } = await import('./commands.ts');
      return printOpenApi(config);
    }
    case 'rotate-key': {
      const { rotateKey } = await import('./commands.ts');
      return rotateKey(config, process.env.NEW_ENCRYPTION_KEY);
    }
    case 'backup':
    case 'restore': {
      const { values } = parseArgs({ args: rest, options: { out: { type: 'string' }, from: { type: 'string' } } });
      const file = command === 'backup' ? values.out : values.from;
      if (!file) fail(`${command} needs ${command === 'backup' ? '--out' : '--from'} FILE`, 2);
      const { backup, restore } = await import('./backup.ts');
      return command === 'backup' ? backup(config, file) : restore(config, file);
    }
    case 'ingress': {
      const { ingressStatus, ingressStop } = await import('./ingress.ts');
      if (rest[0] === 'status') return ingressStatus(config);
      if (rest[0] === 'stop') return ingressStop(config);
      return fail(USAGE, 2);
    }
    default:
      fail(USAGE, command ? 2 : 0);
  }
}

// `berth … | head`: a reader that goes away ends the command quietly
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof LockHeldError || err instanceof ConfigError || err instanceof EmbeddedDatabaseError) fail(err.message);
  process.stderr.write(`berth: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
