/** The levels `logLevel` (and `LOG_LEVEL`) accepts, most severe first; `silent` writes nothing. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];
