// waitFor retries a failing check until its deadline, but a check that knows the wait is
// hopeless (the process it waits for exited) ends it at once: an etcd that cannot bind its
// port used to cost the whole start timeout (120 s in the chaos suite) before saying so.
import { describe, expect, it } from 'vitest';
import { GaveUp, waitFor } from './wait.js';

describe('waitFor', () => {
  it('retries a throwing check and returns its first value', async () => {
    let n = 0;
    const v = await waitFor(
      'three tries',
      async () => {
        n++;
        if (n < 3) throw new Error('not yet');
        return 'up';
      },
      5_000,
      1,
    );
    expect([v, n]).toEqual(['up', 3]);
  });

  it('reports the last error at the deadline', async () => {
    await expect(
      waitFor('never', async () => Promise.reject(new Error('connection refused')), 30, 5),
    ).rejects.toThrow(/timed out after 30 ms waiting for never: connection refused/);
  });

  it('ends at once on GaveUp, long before the deadline', async () => {
    let n = 0;
    await expect(
      waitFor(
        'etcd',
        async () => {
          n++;
          throw new GaveUp('etcd exited (code 1)');
        },
        60_000,
        10,
      ),
    ).rejects.toThrow('etcd exited (code 1)');
    // One call: the 60 s deadline was not waited for.
    expect(n).toBe(1);
  });
});
