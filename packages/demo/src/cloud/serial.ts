// One request at a time. The test bed's nova-api runs under uwsgi with threads, and on this
// 2-core machine six concurrent server creates wedged it (eventlet: "cannot switch to a
// different thread", then every POST /servers hung for minutes). The demo's traffic to the
// test bed is small (a few reboots, a few reads a second), so it all goes through one queue.
export type Serial = <T>(fn: () => Promise<T>) => Promise<T>;

export function serial(): Serial {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
}
