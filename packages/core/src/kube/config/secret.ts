// A value that must never reach a log, an event or an error: JSON.stringify, util.inspect and
// string conversion show a placeholder; only the transport calls reveal().
import { inspect } from 'node:util';

const REDACTED = '<redacted>';

export class Secret<T = string> {
  readonly #value: T;
  constructor(value: T) {
    this.#value = value;
  }
  reveal(): T {
    return this.#value;
  }
  toJSON(): string {
    return REDACTED;
  }
  toString(): string {
    return REDACTED;
  }
  [inspect.custom](): string {
    return REDACTED;
  }
}
