// A value that must never be printed: passwords, application-credential secrets, tokens.
// The plain string lives in a private field, so JSON.stringify, String(), template literals
// and util.inspect (and therefore loggers such as pino) only ever see the redaction marker.
// Code that really needs the value calls reveal(), which makes every use easy to audit.

/** The text printed, logged and serialised in place of every Secret. */
export const REDACTED = '[REDACTED]';

const inspect = Symbol.for('nodejs.util.inspect.custom');

/**
 * A credential (password, application-credential secret, token) that prints, serialises and
 * inspects only as REDACTED; reveal() is the single audited way to the plain value.
 */
export class Secret {
  readonly #value: string;

  /** Wraps the plain `value`; the caller must drop its own copy. */
  constructor(value: string) {
    this.#value = value;
  }

  /** The plain value; call only where it is sent to Keystone/Nova. */
  reveal(): string {
    return this.#value;
  }

  /** True when the secret is non-empty (safe to log). */
  get isSet(): boolean {
    return this.#value.length > 0;
  }

  /** Always REDACTED, so template literals and string concatenation never leak the value. */
  toString(): string {
    return REDACTED;
  }

  /** Always REDACTED, so JSON.stringify (and JSON loggers) never leak the value. */
  toJSON(): string {
    return REDACTED;
  }

  /** What util.inspect and console.log show: `Secret([REDACTED])`. */
  [inspect](): string {
    return `Secret(${REDACTED})`;
  }
}

/**
 * Replaces every occurrence of the given secrets in a text. Used on anything that came back
 * from a server before it goes into an error message: a misbehaving proxy or service could
 * echo a request body that carried a password.
 */
export function redact(text: string, secrets: Iterable<Secret>): string {
  let out = text;
  for (const s of secrets) {
    const v = s.reveal();
    // Very short values would redact ordinary words; such secrets are rejected at parse time
    // anyway, but never turn a one-letter secret into a text mangler.
    if (v.length >= 4) out = out.split(v).join(REDACTED);
  }
  return out;
}
