// One request deadline for every HTTP client of the packages (the OpenStack transport, the
// Webhook ladder step): a real timer, tied to the caller's signal.

/**
 * The request's deadline and the caller's signal as one signal, held by a real timer. Not
 * `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: on Node 20 a timeout signal inside a
 * composite can be garbage collected before it fires (nodejs/node#57736), and a request that
 * never gets a reply then hangs for ever; transport.gc.test.ts shows it with forced GCs.
 */
export function deadlineSignal(
  ms: number,
  caller?: AbortSignal,
): { signal: AbortSignal; clear: () => void } {
  const ac = new AbortController();
  const onCallerAbort = () => {
    clear();
    ac.abort(caller?.reason);
  };
  const clear = () => {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onCallerAbort);
  };
  // The timer list holds the timer, the timer holds the controller: nothing here is weak.
  // unref: a deadline alone never keeps the process alive (the open socket does).
  const timer = setTimeout(() => {
    clear();
    ac.abort(new DOMException(`no reply within ${ms} ms`, 'TimeoutError'));
  }, ms);
  timer.unref();
  if (caller?.aborted) ac.abort(caller.reason);
  else caller?.addEventListener('abort', onCallerAbort, { once: true });
  return { signal: ac.signal, clear };
}
