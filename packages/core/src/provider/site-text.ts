// What a site step's output may put into an Event or a log line. A site's program and HTTP
// endpoint are written by the site: their stderr and reply bodies can print anything,
// including the secrets in the environment the controller passes on. So a message carries a
// short, single-line excerpt with the known secrets masked. Pure.

/** Longest excerpt of a program's stderr or an HTTP reply body in a message. */
export const ExcerptChars = 200;

/** Environment variable names whose values are masked wherever they appear in an excerpt. */
const SECRET_NAME = /pass|secret|token|key|credential|auth|cookie|session/i;
/** Shorter values are too likely to be ordinary words to mask. */
const MIN_SECRET_LENGTH = 4;

/** The values of the environment that look like secrets (by their variable's name). */
export function secretValuesOf(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(env)
    .filter(([k, v]) => SECRET_NAME.test(k) && v !== undefined && v.length >= MIN_SECRET_LENGTH)
    .map(([, v]) => v as string);
}

/** `text` with every occurrence of each secret replaced by `***` (longest first). */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length))
    if (s.length > 0) out = out.split(s).join('***');
  return out;
}

/** One line: control characters and runs of whitespace become one space. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
}

/** The last ExcerptChars characters of `text` as one masked line ('' when there is nothing). */
export function tailExcerpt(text: string, secrets: readonly string[]): string {
  const line = oneLine(maskSecrets(text, secrets));
  return line.length <= ExcerptChars ? line : `…${line.slice(-ExcerptChars).trimStart()}`;
}

/** The first ExcerptChars characters of `text` as one masked line. */
export function headExcerpt(text: string, secrets: readonly string[]): string {
  const line = oneLine(maskSecrets(text, secrets));
  return line.length <= ExcerptChars ? line : `${line.slice(0, ExcerptChars).trimEnd()}…`;
}

/**
 * Keeps the last `max` bytes written to it: a program that prints without end must not grow
 * the controller's memory.
 */
export class TailBuffer {
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    while (this.#size > this.max && this.#chunks.length > 0) {
      const first = this.#chunks[0] as Buffer;
      const over = this.#size - this.max;
      if (first.length <= over) {
        this.#chunks.shift();
        this.#size -= first.length;
      } else {
        this.#chunks[0] = first.subarray(over);
        this.#size -= over;
      }
    }
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}
