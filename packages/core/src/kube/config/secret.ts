// A value that must never reach a log, an event or an error: JSON.stringify, util.inspect and
// string conversion show a placeholder; only the transport calls reveal().
import { inspect } from 'node:util';

const REDACTED = '<redacted>';

/**
 * A value that must never reach a log, an event or an error: JSON, string conversion and
 * util.inspect show a placeholder; only reveal() gives the value.
 */
export class Secret<T = string> {
  readonly #value: T;
  constructor(value: T) {
    this.#value = value;
  }
  /** The secret value itself; only for the code that sends it (e.g. the transport). */
  reveal(): T {
    return this.#value;
  }
  /** Serialises as a placeholder, never the value. */
  toJSON(): string {
    return REDACTED;
  }
  /** Converts to a placeholder, never the value. */
  toString(): string {
    return REDACTED;
  }
  /** What console.log and util.inspect show: a placeholder, never the value. */
  [inspect.custom](): string {
    return REDACTED;
  }
}
