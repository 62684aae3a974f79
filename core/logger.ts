import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';

/**
 * Structured one-line JSON logs on stderr, so stdout stays free for CLI output (`--json`).
 * `debug` and `child` are optional so a test can still stand a plain object in for a logger.
 */
export interface Logger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `bindings` to every line it writes. */
  child?(bindings: Record<string, unknown>): Logger;
}

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/**
 * Fields every line logged inside `withLogFields` carries (a request's id, a job's id), whichever
 * logger writes it: a service or a plugin logs the request id without being handed it.
 */
const logFields = new AsyncLocalStorage<Record<string, unknown>>();

/** Runs `work` with `fields` added to every line logged until it settles, nested scopes adding theirs. */
export function withLogFields<T>(fields: Record<string, unknown>, work: () => T): T {
  const outer = logFields.getStore();
  return logFields.run(outer ? { ...outer, ...fields } : fields, work);
}

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
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (bindings) => wrap(logger.child(bindings)) };
}

/**
 * A pino logger behind the Logger interface: `{"level":"info","time":"…","pid":…,"hostname":"…",
 * "requestId":"…","message":"…",…fields}`. Writes are synchronous, so the last lines before an
 * exit are not lost and lines keep their order with the CLI's own stderr output.
 */
export function createLogger(options: LoggerOptions | LoggerOptions['write'] = {}): Logger {
  const { level, write } = typeof options === 'function' ? { write: options } : options;
  const destination: DestinationStream = write ? { write: (chunk: string) => write(chunk.replace(/\n$/, '')) } : pino.destination({ fd: 2, sync: true });
  const environmentLevel = process.env.LOG_LEVEL?.trim().toLowerCase();
  const logger = pino(
    {
      level: level ?? (isLevel(environmentLevel) ? environmentLevel : 'info'),
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // A copy: pino merges the line's own fields into the object the mixin returns.
      mixin: () => ({ ...logFields.getStore() }),
    },
    destination,
  );
  return wrap(logger);
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silentLogger };
