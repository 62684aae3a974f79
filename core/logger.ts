import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import { logLevels, type LogLevel } from '../config/log-levels.ts';

/**
 * Structured one-line JSON logs on stderr, so stdout stays free for CLI output (`--json`).
 * `debug` and `child` are optional so a test can still stand a plain object in for a logger.
 *
 * Context travels explicitly: a request's lines come from its request logger (`requestLogger`
 * in core/http/context.ts) and a job run's from its context's (`JobRunContext.logger`), children
 * that add the request's or the job's id. No AsyncLocalStorage: on Node 20 it runs a hook on every
 * promise the process makes, whoever makes it (docs/benchmarks.md, The November 2026 loss).
 */
export interface Logger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `bindings` to every line it writes. */
  child?(bindings: Record<string, unknown>): Logger;
}

export { logLevels, type LogLevel };

export interface LoggerOptions {
  /** Lines below this level are dropped. Default: `LOG_LEVEL`, else `info`. */
  level?: LogLevel;
  /** Receives each line without its newline, instead of stderr (tests capture lines this way). */
  write?: (line: string) => void;
}

const isLevel = (value: string | undefined): value is LogLevel => logLevels.includes(value as LogLevel);

function wrap(logger: PinoLogger): Logger {
  const at = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string, fields?: Record<string, unknown>) =>
    fields ? logger[level](fields, message) : logger[level](message);
  // No `debug` below that level: `logger.debug?.(…)` then skips building the line's fields too.
  const debug = logger.isLevelEnabled('debug') ? at('debug') : undefined;
  return {
    ...(debug ? { debug } : {}),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (bindings) => wrap(logger.child(bindings)),
  };
}

/**
 * A pino logger behind the Logger interface: `{"level":"info","time":"…","pid":…,"hostname":"…",
 * "requestId":"…","message":"…",…fields}`. Writes are synchronous, so the last lines before an
 * exit are not lost and lines keep their order with the CLI's own stderr output.
 */
export function createLogger(options: LoggerOptions | LoggerOptions['write'] = {}): Logger {
  const { level, write } = typeof options === 'function' ? { write: options } : options;
  const destination: DestinationStream = write
    ? { write: (chunk: string) => write(chunk.replace(/\n$/, '')) }
    : pino.destination({ fd: 2, sync: true });
  const environmentLevel = process.env.LOG_LEVEL?.trim().toLowerCase();
  const logger = pino(
    {
      level: level ?? (isLevel(environmentLevel) ? environmentLevel : 'info'),
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return wrap(logger);
}

/** `logger` with `bindings` on every line (itself, for a stand-in without `child`). */
export const childLogger = (logger: Logger, bindings: Record<string, unknown>): Logger =>
  logger.child?.(bindings) ?? logger;

// No `child`: a stand-in spread from it keeps receiving its children's lines (`childLogger`).
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
