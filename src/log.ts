// Structured logging: one JSON object per line on stderr, so log pipelines parse it without rules.
// Every line carries `level`, `ts` (RFC 3339) and `msg`; callers add fields such as `key` (the GlooHA
// namespace/name) through child loggers instead of formatting them into the message.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export function isLogLevel(value: string): value is LogLevel {
  return Object.hasOwn(order, value);
}

export function createLogger(
  level: LogLevel = 'info',
  base: LogFields = {},
  write: (line: string) => void = (line) => process.stderr.write(line + '\n'),
): Logger {
  const emit = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (order[lvl] < order[level]) return;
    const record: LogFields = { level: lvl, ts: new Date().toISOString(), msg, ...base, ...fields };
    if (record.err instanceof Error) record.err = { message: record.err.message, stack: record.err.stack };
    write(JSON.stringify(record));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  };
}

/** A logger that drops everything: for unit tests and library callers that pass none. */
export const silentLogger: Logger = createLogger('error', {}, () => {});
