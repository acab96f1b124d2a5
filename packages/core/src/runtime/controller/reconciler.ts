// The Reconciler contract (controller-runtime's reconcile.Reconciler): given the key of an
// object, read the world and converge. Return when to look again; throw to retry with
// rate-limited backoff.
import type { RuntimeLogger } from '../logger.js';

/** The key a Reconciler is called with: which object to converge. */
export interface ReconcileRequest {
  /** Object name. */
  name: string;
  /** Namespace; absent for cluster-scoped objects. */
  namespace?: string;
}

/** What a Reconciler asks for next; nothing (or undefined) means done until the next change. */
export interface ReconcileResult {
  /** reconcile this key again after this many milliseconds (resets the failure backoff). */
  requeueAfter?: number;
  /** requeue through the rate limiter (as after an error, but without logging one). */
  requeue?: boolean;
}

/** What the controller passes to each reconcile call. */
export interface ReconcileContext {
  /** aborted when the controller stops (shutdown or lost leadership). */
  signal: AbortSignal;
  /** Logger with the controller and key already attached. */
  log: RuntimeLogger;
  /** consecutive failed attempts for this key so far. */
  retries: number;
}

/**
 * Reads the world for the key and converges it; resolve with when to look again, throw to retry
 * with rate-limited backoff.
 */
export type Reconciler = (
  req: ReconcileRequest,
  ctx: ReconcileContext,
) => Promise<ReconcileResult | void>;

/** The queue key of a request: `namespace/name`, or `name` when cluster-scoped. */
export function requestKey(req: ReconcileRequest): string {
  return req.namespace ? `${req.namespace}/${req.name}` : req.name;
}

/** Inverse of requestKey: the text before the first slash is the namespace. */
export function requestFromKey(key: string): ReconcileRequest {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
