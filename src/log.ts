// Structured logging: one JSON object per line on stderr, so log pipelines parse it without rules.
// Every line carries `level`, `ts` (RFC 3339) and `msg`; callers add fields such as `key` (the GlooHA
// namespace/name) through child loggers instead of formatting them into the message.
//
// Logging never throws and never loses the line: field values are made JSON-safe first — Errors
// become { name, message, stack } plus client-node's ApiException `code` and the API server's Status
// `body` (its message names what was refused), `cause` chains are followed, BigInts become strings,
// circular references become "[Circular]", functions and symbols their names. A logger that threw on
// an odd value would turn a reported failure into a crash of the code that reported it.

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

const MAX_DEPTH = 8;
const MAX_STRING = 8_192;

function errorFields(err: Error, seen: WeakSet<object>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = { name: err.name, message: err.message };
  if (err.stack) out.stack = err.stack;
  const extra = err as Error & { code?: unknown; body?: unknown; statusCode?: unknown; cause?: unknown };
  if (extra.code !== undefined) out.code = safeValue(extra.code, seen, depth + 1);
  if (extra.statusCode !== undefined) out.statusCode = safeValue(extra.statusCode, seen, depth + 1);
  if (extra.body !== undefined) {
    // ApiException bodies are the API server's Status object (or its JSON text).
    let body: unknown = extra.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body) as unknown;
      } catch {
        /* keep the text */
      }
    }
    out.body = safeValue(body, seen, depth + 1);
  }
  if (extra.cause !== undefined) out.cause = safeValue(extra.cause, seen, depth + 1);
  return out;
}

/** A JSON-safe copy of `value` (see the module comment). */
export function safeValue(value: unknown, seen = new WeakSet<object>(), depth = 0): unknown {
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'function':
      return `[Function ${value.name || 'anonymous'}]`;
    case 'symbol':
      return value.toString();
    case 'string':
      return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'object':
      break;
    default:
      return value;
  }
  if (value === null) return null;
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  seen.add(value);
  try {
    if (value instanceof Error) return errorFields(value, seen, depth);
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
    if (value instanceof Map) return safeValue(Object.fromEntries(value), seen, depth + 1);
    if (value instanceof Set) return safeValue([...value], seen, depth + 1);
    if (Array.isArray(value)) return value.map((v) => safeValue(v, seen, depth + 1));
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) {
      let v: unknown;
      try {
        v = (value as Record<string, unknown>)[k];
      } catch (err) {
        v = `[getter threw: ${(err as Error)?.message ?? String(err)}]`;
      }
      out[k] = safeValue(v, seen, depth + 1);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

export function createLogger(
  level: LogLevel = 'info',
  base: LogFields = {},
  write: (line: string) => void = (line) => process.stderr.write(line + '\n'),
): Logger {
  const emit = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (order[lvl] < order[level]) return;
    let line: string;
    try {
      line = JSON.stringify(safeValue({ level: lvl, ts: new Date().toISOString(), msg, ...base, ...fields }));
    } catch (err) {
      // Unreachable by construction; kept so a logging bug can never become a crash.
      line = JSON.stringify({ level: lvl, ts: new Date().toISOString(), msg, logError: String(err) });
    }
    try {
      write(line);
    } catch {
      /* a closed stderr must not take the operator down */
    }
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
