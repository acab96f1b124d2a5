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

/** Error fields safe to log: name, message, HTTP code/reason — never request bodies. */
export function errorFields(e: unknown): Record<string, unknown> {
  if (e instanceof Error) {
    const o: Record<string, unknown> = { err: e.name, msg: e.message };
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') o['code'] = code;
    return o;
  }
  return { err: String(e) };
}
