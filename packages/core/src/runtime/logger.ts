// The logging surface the runtime needs. A pino Logger satisfies it; so does silentLogger.
/**
 * The structured-logging surface the runtime uses; a pino Logger satisfies it. Fields go in the
 * object, the message second.
 */
export interface RuntimeLogger {
  /** Detail for debugging, off in production. */
  debug(obj: object, msg?: string): void;
  /** Normal operation worth a line. */
  info(obj: object, msg?: string): void;
  /** Something unexpected the process recovers from. */
  warn(obj: object, msg?: string): void;
  /** A failure that needs attention. */
  error(obj: object, msg?: string): void;
  /** A logger that adds the bindings to every line it writes. */
  child(bindings: Record<string, unknown>): RuntimeLogger;
}

/** A logger that writes nothing; the default wherever a logger is optional. */
export const silentLogger: RuntimeLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};

/**
 * Error fields safe to log: `error` (the message, e.g. the API server's), `errorType` (the
 * class name) and the HTTP `code` — never request bodies. The message is not under `msg`:
 * pino writes the log call's own message as `msg` too, and a line with two `msg` keys loses
 * the first to `JSON.parse` (the apiserver's message was lost that way).
 */
export function errorFields(e: unknown): Record<string, unknown> {
  if (e instanceof Error) {
    const o: Record<string, unknown> = { error: e.message, errorType: e.name };
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') o['code'] = code;
    return o;
  }
  return { error: String(e) };
}
