// metav1.Status: the body of every API error. Decoded with io-ts because it crosses the
// process boundary and may be absent or malformed (proxies, HTML error pages).
import * as t from 'io-ts';
import { isRight } from 'fp-ts/lib/Either.js';

const StatusCause = t.partial({ reason: t.string, message: t.string, field: t.string });

/**
 * io-ts codec of a metav1.Status, the body of every apiserver error answer; every field but `kind`
 * is optional.
 */
export const KubeStatusCodec = t.intersection([
  t.type({ kind: t.literal('Status') }),
  t.partial({
    apiVersion: t.string,
    status: t.string,
    message: t.string,
    reason: t.string,
    code: t.number,
    details: t.partial({
      name: t.string,
      group: t.string,
      kind: t.string,
      uid: t.string,
      causes: t.array(StatusCause),
      retryAfterSeconds: t.number,
    }),
  }),
]);

/**
 * A metav1.Status: the apiserver's error (or delete) answer with code, reason, message and details
 * such as validation causes.
 */
export type KubeStatus = t.TypeOf<typeof KubeStatusCodec>;

/** Parses a response body as a KubeStatus, or builds one from the HTTP code when it is not. */
export function statusFromBody(code: number, body: unknown): KubeStatus {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      value = undefined;
    }
  }
  const decoded = KubeStatusCodec.decode(value);
  if (isRight(decoded)) return { ...decoded.right, code: decoded.right.code ?? code };
  const text = typeof body === 'string' ? body.slice(0, 200) : '';
  return { kind: 'Status', status: 'Failure', code, message: text || `HTTP ${code}`, reason: '' };
}
