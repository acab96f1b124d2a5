// The logging surface the runtime needs. A pino Logger satisfies it; so does silentLogger.
export interface RuntimeLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): RuntimeLogger;
}

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
