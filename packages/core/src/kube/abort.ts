// One request's cancellation, linked to a caller's long-lived signal (a controller's term
// lasts for hours and crosses thousands of requests). The link is removed when the request
// ends, so the caller's signal does not collect a listener per request (Node warns past ten,
// and each would keep its request alive).

export interface RequestAbort {
  readonly signal: AbortSignal;
  /** Aborts the request itself (e.g. its own timeout). */
  abort(reason: unknown): void;
  /** Unlinks from the caller's signal and cancels the timeout; call when the request ends. */
  done(): void;
}

export function requestAbort(
  caller: AbortSignal | undefined,
  timeout?: { ms: number; error: () => Error },
): RequestAbort {
  const own = new AbortController();
  const onCaller = () => own.abort(caller?.reason);
  if (caller?.aborted) own.abort(caller.reason);
  else caller?.addEventListener('abort', onCaller, { once: true });
  const timer =
    timeout === undefined ? undefined : setTimeout(() => own.abort(timeout.error()), timeout.ms);
  return {
    signal: own.signal,
    abort: (reason) => own.abort(reason),
    done: () => {
      caller?.removeEventListener('abort', onCaller);
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
