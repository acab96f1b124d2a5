// Typed API errors, one class per metav1.StatusReason a controller reacts to differently.
// Messages come from the API server's KubeStatus (never from request bodies, so secrets in
// objects we send cannot leak into logs through errors).
import { statusFromBody, type KubeStatus } from './status.js';

/**
 * An error answer of the apiserver (a metav1.Status). The message is the server's; request bodies
 * never appear in it. Subclasses name the reason.
 */
export class KubeApiError extends Error {
  /** HTTP status code, 0 when the server sent none. */
  readonly code: number;
  /** metav1.StatusReason, e.g. `NotFound`; empty when the server gave none. */
  readonly reason: string;
  /** The server's full Status object, including details such as causes. */
  readonly status: KubeStatus;
  /**
   * Builds the error from the server's Status; context (e.g. `get Node n1`) prefixes the message.
   */
  constructor(status: KubeStatus, context?: string) {
    const code = status.code ?? 0;
    const msg = status.message ?? status.reason ?? `HTTP ${code}`;
    super(context ? `${context}: ${msg} (${code} ${status.reason ?? ''})`.trimEnd() : msg);
    this.name = new.target.name;
    this.code = code;
    this.reason = status.reason ?? '';
    this.status = status;
  }
}
/** 404: the object (or its namespace) does not exist. */
export class NotFoundError extends KubeApiError {}
/**
 * 409: optimistic-concurrency failure (stale resourceVersion or precondition); re-read and retry.
 */
export class ConflictError extends KubeApiError {}
/** 409 on create: an object with that name already exists. */
export class AlreadyExistsError extends KubeApiError {}
/** 410: the resourceVersion is too old (etcd compacted); a reflector must relist. */
export class GoneError extends KubeApiError {}
/** 403: the service account lacks the RBAC permission (or admission refused). */
export class ForbiddenError extends KubeApiError {}
/** 401: the credentials are missing, expired or rejected. */
export class UnauthorizedError extends KubeApiError {}
/**
 * 429: throttled by the server or, for evictions, refused by a PodDisruptionBudget; retry later.
 */
export class TooManyRequestsError extends KubeApiError {
  /** Server's hint, from details.retryAfterSeconds (or the Retry-After header). */
  get retryAfterSeconds(): number | undefined {
    return this.status.details?.retryAfterSeconds;
  }
}
/** 422: the object failed validation; `causes` names the fields. */
export class InvalidError extends KubeApiError {
  /**
   * The fields that failed validation and why, from the Status details; empty when none were given.
   */
  get causes(): readonly { field?: string; message?: string; reason?: string }[] {
    return this.status.details?.causes ?? [];
  }
}
/**
 * 504 or a Timeout reason: the server could not finish in time; the request may still take effect.
 */
export class ServerTimeoutError extends KubeApiError {}
/** 400: the request was malformed (e.g. an invalid patch). */
export class BadRequestError extends KubeApiError {}
/** 5xx other than 504: a server-side failure. */
export class InternalError extends KubeApiError {}

/** The request never got an HTTP answer (connection refused/reset, TLS, timeout). */
export class KubeConnectionError extends Error {
  /** The message should name the request; `cause` keeps the transport's error. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KubeConnectionError';
  }
}

/**
 * The caller's signal aborted the call (shutdown, or the Lease was lost). Named 'AbortError'
 * like the platform's own, so `e.name === 'AbortError'` checks keep working. Whether the
 * server saw a write that was aborted mid-flight is unknown: treat it as "maybe done".
 */
export class RequestAbortedError extends Error {
  /**
   * Context names the request (e.g. `patch Node n1`); `cause` keeps the signal's reason or the
   * transport's error.
   */
  constructor(context: string, options?: { cause?: unknown }) {
    super(`${context}: aborted`, options);
    this.name = 'AbortError';
  }
}

/** True for any abort, ours (RequestAbortedError) or the platform's (`name === 'AbortError'`). */
export const isAbortError = (e: unknown): boolean =>
  e instanceof Error && (e.name === 'AbortError' || e instanceof RequestAbortedError);

/** Maps a KubeStatus to the matching error class, the way apimachinery's errors.ReasonForError does. */
export function errorFromStatus(status: KubeStatus, context?: string): KubeApiError {
  const code = status.code ?? 0;
  switch (status.reason) {
    case 'NotFound':
      return new NotFoundError(status, context);
    case 'AlreadyExists':
      return new AlreadyExistsError(status, context);
    case 'Conflict':
      return new ConflictError(status, context);
    case 'Gone':
    case 'Expired':
      return new GoneError(status, context);
    case 'Forbidden':
      return new ForbiddenError(status, context);
    case 'Unauthorized':
      return new UnauthorizedError(status, context);
    case 'TooManyRequests':
      return new TooManyRequestsError(status, context);
    case 'Invalid':
      return new InvalidError(status, context);
    case 'ServerTimeout':
    case 'Timeout':
      return new ServerTimeoutError(status, context);
    case 'BadRequest':
      return new BadRequestError(status, context);
    default:
      break;
  }
  switch (code) {
    case 400:
      return new BadRequestError(status, context);
    case 401:
      return new UnauthorizedError(status, context);
    case 403:
      return new ForbiddenError(status, context);
    case 404:
      return new NotFoundError(status, context);
    case 409:
      return new ConflictError(status, context);
    case 410:
      return new GoneError(status, context);
    case 422:
      return new InvalidError(status, context);
    case 429:
      return new TooManyRequestsError(status, context);
    case 504:
      return new ServerTimeoutError(status, context);
    default:
      return code >= 500 ? new InternalError(status, context) : new KubeApiError(status, context);
  }
}

/**
 * Builds the typed error for a non-2xx answer from its status code and body (parsed as a Status
 * when it is one).
 */
export function errorFromResponse(code: number, body: unknown, context?: string): KubeApiError {
  return errorFromStatus(statusFromBody(code, body), context);
}

/** True when the error is a NotFoundError (404). */
export const isNotFound = (e: unknown): e is NotFoundError => e instanceof NotFoundError;
/** True when the error is a ConflictError (409, stale resourceVersion). */
export const isConflict = (e: unknown): e is ConflictError => e instanceof ConflictError;
/** True when the error is an AlreadyExistsError (create of an existing name). */
export const isAlreadyExists = (e: unknown): e is AlreadyExistsError =>
  e instanceof AlreadyExistsError;
/** True when the error is a GoneError: the resourceVersion is too old, relist. */
export const isGone = (e: unknown): e is GoneError => e instanceof GoneError;
