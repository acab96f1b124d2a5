// The Reconciler contract (controller-runtime's reconcile.Reconciler): given the key of an
// object, read the world and converge. Return when to look again; throw to retry with
// rate-limited backoff.
import type { RuntimeLogger } from '../logger.js';

export interface ReconcileRequest {
  name: string;
  namespace?: string;
}

export interface ReconcileResult {
  /** reconcile this key again after this many milliseconds (resets the failure backoff). */
  requeueAfter?: number;
  /** requeue through the rate limiter (as after an error, but without logging one). */
  requeue?: boolean;
}

export interface ReconcileContext {
  /** aborted when the controller stops (shutdown or lost leadership). */
  signal: AbortSignal;
  log: RuntimeLogger;
  /** consecutive failed attempts for this key so far. */
  retries: number;
}

export type Reconciler = (
  req: ReconcileRequest,
  ctx: ReconcileContext,
) => Promise<ReconcileResult | void>;

export function requestKey(req: ReconcileRequest): string {
  return req.namespace ? `${req.namespace}/${req.name}` : req.name;
}

export function requestFromKey(key: string): ReconcileRequest {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
