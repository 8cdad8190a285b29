// `berth serve`: a banner and readable logs at a terminal (JSON lines otherwise); runs until
// SIGTERM/SIGINT, then shuts down gracefully: stop accepting, finish in-flight requests and
// tasks (bounded), close the database, release the lock, exit 0.
import type { Config, Role } from '../config/config.ts';
import { startRuntime, VERSION } from '../runtime.ts';
import { localUrl, renderBanner } from './banner.ts';

// beyond the drain period, in-flight work gets this long before the process gives up
const SHUTDOWN_LIMIT_MS = 25_000;

export async function serve(config: Config, role: Role): Promise<void> {
  const tty = process.stdout.isTTY === true;
  // handlers before starting: /readyz answers before the workers have started, and a SIGTERM
  // then must stop berth in order (after the start), not kill it; a second signal exits at once
  let pendingSignal: string | undefined;
  let onSignal = (signal: string) => {
    if (pendingSignal) process.exit(signal === 'SIGINT' ? 130 : 143);
    pendingSignal = signal;
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  const runtime = await startRuntime({ config, role, prettyLogs: tty });
  const { logger } = runtime.ctx;
  const url = runtime.app ? localUrl(config, runtime.app.server.address()) : null;
  if (tty) process.stdout.write(renderBanner({ version: VERSION, role, config, url, engine: runtime.engine }));
  logger.info({ role, url: url ?? undefined, port: role === 'worker' ? undefined : config.port, database: runtime.ctx.db.kind, engine: runtime.engine.name }, 'berth started');
  let shuttingDown = false;
  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownDrainMs + SHUTDOWN_LIMIT_MS);
    timer.unref();
    runtime.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  onSignal = shutdown;
  if (pendingSignal) shutdown(pendingSignal);
}
