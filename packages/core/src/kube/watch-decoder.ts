// Turns a watch response body (newline-delimited JSON) into typed WatchEvents.
// Shared by adapters so both decode bookmarks and ERROR events identically.
import type { WatchEvent } from './client.js';
import { errorFromStatus } from './errors.js';
import { statusFromBody } from './status.js';

/**
 * A watch stream line that is not a watch event (not JSON, or no known type); the stream is broken,
 * not the server's answer.
 */
export class WatchDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WatchDecodeError';
  }
}

/**
 * Decodes one line of a watch stream; ERROR events carry the typed KubeApiError of their Status.
 * Throws a WatchDecodeError on a malformed line.
 */
export function decodeWatchLine<T>(line: string): WatchEvent<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new WatchDecodeError(`watch event is not JSON: ${line.slice(0, 80)}`);
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw new WatchDecodeError('watch event must be an object');
  const { type, object } = parsed as { type?: unknown; object?: unknown };
  if (type === 'ERROR') {
    const status = statusFromBody(500, object);
    return { type, status, error: errorFromStatus(status, 'watch') };
  }
  if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED' && type !== 'BOOKMARK') {
    throw new WatchDecodeError(`watch event has unknown type ${JSON.stringify(type)}`);
  }
  if (typeof object !== 'object' || object === null)
    throw new WatchDecodeError(`${type} event has no object`);
  return { type, object: object as T };
}

/** Splits chunks on newlines without joining the whole body (watches are endless). */
export async function* decodeWatchStream<T>(
  chunks: AsyncIterable<Uint8Array | string>,
): AsyncGenerator<WatchEvent<T>> {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of chunks) {
    buf += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) yield decodeWatchLine<T>(line);
    }
  }
  const rest = buf.trim();
  if (rest) yield decodeWatchLine<T>(rest);
}
