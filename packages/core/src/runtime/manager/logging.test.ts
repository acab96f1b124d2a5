// The JSON lines users read (README Troubleshooting): each has one `msg`, and an API error's
// message survives JSON.parse under `error`.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorFromResponse } from '../../kube/errors.js';
import { ManualClock } from '../clock.js';
import { Controller } from '../controller/controller.js';
import { ItemExponentialRateLimiter } from '../queue/rate-limiter.js';
import { Informer } from '../reflector/informer.js';
import { MemoryApi } from '../reflector/memory-api.test-support.js';
import { createRuntimeLogger } from './logging.js';

function captured(): { lines: string[]; write: (s: string) => void } {
  const lines: string[] = [];
  return { lines, write: (s) => lines.push(...s.split('\n').filter((l) => l !== '')) };
}

const msgKeys = (line: string): number => line.match(/"msg":/g)?.length ?? 0;

const APISERVER_MESSAGE =
  'nodes "n1" is forbidden: User "system:serviceaccount:noderepair-system:noderepair" cannot patch resource "nodes" in API group "" at the cluster scope';

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

describe('runtime log lines', () => {
  it('a failed reconcile logs one msg, and the API server message under error', async () => {
    const out = captured();
    const api = new MemoryApi();
    api.upsert('n1');
    const inf = new Informer(api, { backoff: { initialMs: 1, maxMs: 5, factor: 2, jitter: 0 } });
    // As the client builds it from the API server's 403 body.
    const forbidden = errorFromResponse(
      403,
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message: APISERVER_MESSAGE,
        reason: 'Forbidden',
        code: 403,
      }),
    );
    const c = new Controller({
      name: 'nodes',
      clock: new ManualClock(),
      rateLimiter: new ItemExponentialRateLimiter(1000, 1000),
      logger: createRuntimeLogger({ name: 't', destination: out }),
      reconcile: () => Promise.reject(forbidden),
    }).for(inf);
    const ac = new AbortController();
    stops.push(ac);
    void inf.run(ac.signal);
    const done = c.start(ac.signal);
    await vi.waitFor(() =>
      expect(out.lines.some((l) => l.includes('reconcile failed'))).toBe(true),
    );
    ac.abort();
    await done;
    const line = out.lines.find((l) => l.includes('reconcile failed'));
    if (line === undefined) throw new Error('no reconcile failed line');
    expect(msgKeys(line)).toBe(1);
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(parsed).toMatchObject({
      msg: 'reconcile failed; requeueing with backoff',
      error: APISERVER_MESSAGE,
      errorType: 'ForbiddenError',
      code: 403,
      retries: 0,
    });
    expect(parsed).not.toHaveProperty('err');
  });

  it('a msg field in the logged object is kept as detail, never a second msg', () => {
    const out = captured();
    const log = createRuntimeLogger({ destination: out });
    log.warn({ msg: 'from the object', node: 'n1' }, 'the message');
    log.warn({ msg: 'again', detail: 'kept' }, 'second');
    expect(out.lines.map(msgKeys)).toEqual([1, 1]);
    expect(out.lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      expect.objectContaining({ msg: 'the message', detail: 'from the object', node: 'n1' }),
      expect.objectContaining({ msg: 'second', detail: 'kept', msgField: 'again' }),
    ]);
  });

  it('time is an ISO 8601 string in UTC, not epoch milliseconds', () => {
    const out = captured();
    const before = Date.now();
    createRuntimeLogger({ destination: out }).info({ node: 'n1' }, 'x');
    const { time } = JSON.parse(out.lines[0] ?? '{}') as { time?: unknown };
    expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(time as string)).toBeGreaterThanOrEqual(before - 1);
  });

  it('redacts secrets by path', () => {
    const out = captured();
    createRuntimeLogger({ destination: out }).info({ req: { token: 's3cret' } }, 'x');
    expect(out.lines[0]).not.toContain('s3cret');
    expect(JSON.parse(out.lines[0] ?? '{}')).toMatchObject({ req: { token: '[redacted]' } });
  });
});
