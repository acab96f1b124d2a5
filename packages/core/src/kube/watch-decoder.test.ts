import { describe, expect, it } from 'vitest';
import { GoneError } from './errors.js';
import { decodeWatchStream, WatchDecodeError } from './watch-decoder.js';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield new TextEncoder().encode(p);
}

describe('decodeWatchStream', () => {
  it('splits events across arbitrary chunk boundaries', async () => {
    const a = JSON.stringify({
      type: 'ADDED',
      object: { metadata: { name: 'a', resourceVersion: '5' } },
    });
    const b = JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } });
    const body = `${a}\n${b}\n`;
    const evs = await collect(
      decodeWatchStream(chunks(body.slice(0, 7), body.slice(7, 50), body.slice(50))),
    );
    expect(evs.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
  });

  it('turns an ERROR event into a typed error', async () => {
    const err = JSON.stringify({
      type: 'ERROR',
      object: {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 410,
        reason: 'Expired',
        message: 'too old resource version',
      },
    });
    const [ev] = await collect(decodeWatchStream(chunks(err)));
    expect(ev?.type).toBe('ERROR');
    if (ev?.type !== 'ERROR') throw new Error('unreachable');
    expect(ev.error).toBeInstanceOf(GoneError);
    expect(ev.status.code).toBe(410);
  });

  it('fails clearly on garbage', async () => {
    await expect(
      collect(decodeWatchStream(chunks('{"type":"WHAT","object":{}}\n'))),
    ).rejects.toThrow(/unknown type "WHAT"/);
    await expect(collect(decodeWatchStream(chunks('not json\n')))).rejects.toBeInstanceOf(
      WatchDecodeError,
    );
  });
});
