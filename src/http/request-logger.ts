// Each request's logger (`request.log`): the process logger's child bound to the request id,
// made when the request first writes a line at an enabled level. Fastify's default makes the
// pino child for every request, and a pino child is costly because of the redaction rules
// (bindings serialized and redacted: ~1.6 µs and ~0.5 KiB per request, issue 15), while at the
// default level a routine request writes nothing at all. Lines that are written are the same:
// they come from the same pino child with the same bindings.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

type LogArgs = [obj: unknown, msg?: string, ...args: unknown[]];

class RequestLogger {
  #child: Logger | undefined;
  readonly #parent: Logger;
  readonly #bindings: Bindings;

  constructor(parent: Logger, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  /** the pino child, made once */
  #real(): Logger {
    return (this.#child ??= this.#parent.child(this.#bindings));
  }

  #write(level: Level, args: LogArgs): void {
    if (this.#parent.isLevelEnabled(level)) (this.#real()[level] as (...a: LogArgs) => void)(...args);
  }

  get level(): string { return this.#child?.level ?? this.#parent.level; }
  set level(level: string) { this.#real().level = level; }
  isLevelEnabled(level: string): boolean { return (this.#child ?? this.#parent).isLevelEnabled(level); }
  bindings(): Bindings { return this.#real().bindings(); }
  child(bindings: Bindings, options?: ChildLoggerOptions): Logger { return this.#real().child(bindings, options); }
  fatal(...args: LogArgs): void { this.#write('fatal', args); }
  error(...args: LogArgs): void { this.#write('error', args); }
  warn(...args: LogArgs): void { this.#write('warn', args); }
  info(...args: LogArgs): void { this.#write('info', args); }
  debug(...args: LogArgs): void { this.#write('debug', args); }
  trace(...args: LogArgs): void { this.#write('trace', args); }
  silent(): void {}
}

/** Fastify's `childLoggerFactory`: a route with its own log level or serializers gets pino's child
 * at once (none of berth's routes has either) */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (options.level || options.serializers) return logger.child(bindings, options);
  return new RequestLogger(logger as unknown as Logger, bindings) as unknown as FastifyBaseLogger;
}
