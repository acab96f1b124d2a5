// Typed API errors, one class per metav1.StatusReason a controller reacts to differently.
// Messages come from the API server's KubeStatus (never from request bodies, so secrets in
// objects we send cannot leak into logs through errors).
import { statusFromBody, type KubeStatus } from './status.js';

export class KubeApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly status: KubeStatus;
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
export class NotFoundError extends KubeApiError {}
export class ConflictError extends KubeApiError {}
export class AlreadyExistsError extends KubeApiError {}
/** 410: the resourceVersion is too old (etcd compacted); a reflector must relist. */
export class GoneError extends KubeApiError {}
export class ForbiddenError extends KubeApiError {}
export class UnauthorizedError extends KubeApiError {}
export class TooManyRequestsError extends KubeApiError {
  /** Server's hint, from details.retryAfterSeconds (or the Retry-After header). */
  get retryAfterSeconds(): number | undefined {
    return this.status.details?.retryAfterSeconds;
  }
}
export class InvalidError extends KubeApiError {
  get causes(): readonly { field?: string; message?: string; reason?: string }[] {
    return this.status.details?.causes ?? [];
  }
}
export class ServerTimeoutError extends KubeApiError {}
export class BadRequestError extends KubeApiError {}
export class InternalError extends KubeApiError {}

/** The request never got an HTTP answer (connection refused/reset, TLS, timeout). */
export class KubeConnectionError extends Error {
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
  constructor(context: string, options?: { cause?: unknown }) {
    super(`${context}: aborted`, options);
    this.name = 'AbortError';
  }
}

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

export function errorFromResponse(code: number, body: unknown, context?: string): KubeApiError {
  return errorFromStatus(statusFromBody(code, body), context);
}

export const isNotFound = (e: unknown): e is NotFoundError => e instanceof NotFoundError;
export const isConflict = (e: unknown): e is ConflictError => e instanceof ConflictError;
export const isAlreadyExists = (e: unknown): e is AlreadyExistsError =>
  e instanceof AlreadyExistsError;
export const isGone = (e: unknown): e is GoneError => e instanceof GoneError;
