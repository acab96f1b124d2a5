import { describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  ConflictError,
  errorFromResponse,
  ForbiddenError,
  GoneError,
  InternalError,
  InvalidError,
  NotFoundError,
  ServerTimeoutError,
  TooManyRequestsError,
  UnauthorizedError,
} from './errors.js';

const status = (code: number, reason: string, extra: object = {}) =>
  JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason,
    message: `m-${reason}`,
    ...extra,
  });

describe('errorFromResponse', () => {
  it.each([
    [404, 'NotFound', NotFoundError],
    [409, 'Conflict', ConflictError],
    [409, 'AlreadyExists', AlreadyExistsError],
    [410, 'Expired', GoneError],
    [410, 'Gone', GoneError],
    [403, 'Forbidden', ForbiddenError],
    [401, 'Unauthorized', UnauthorizedError],
    [429, 'TooManyRequests', TooManyRequestsError],
    [422, 'Invalid', InvalidError],
    [504, 'Timeout', ServerTimeoutError],
    [500, 'ServerTimeout', ServerTimeoutError],
  ])('%i %s', (code, reason, cls) => {
    const e = errorFromResponse(code, status(code, reason), 'get Node n1');
    expect(e).toBeInstanceOf(cls);
    expect(e.code).toBe(code);
    expect(e.reason).toBe(reason);
    expect(e.message).toContain('get Node n1');
    expect(e.message).toContain(`m-${reason}`);
  });

  it('falls back to the HTTP code when the body is not a Status', () => {
    const e = errorFromResponse(410, '<html>gone</html>');
    expect(e).toBeInstanceOf(GoneError);
    expect(e.message).toContain('<html>gone');
    expect(errorFromResponse(503, '')).toBeInstanceOf(InternalError);
  });

  it('exposes retryAfterSeconds and causes', () => {
    const e = errorFromResponse(
      429,
      status(429, 'TooManyRequests', { details: { retryAfterSeconds: 7 } }),
    );
    expect((e as TooManyRequestsError).retryAfterSeconds).toBe(7);
    const inv = errorFromResponse(
      422,
      status(422, 'Invalid', { details: { causes: [{ field: 'spec.x', message: 'bad' }] } }),
    );
    expect((inv as InvalidError).causes[0]?.field).toBe('spec.x');
  });
});
