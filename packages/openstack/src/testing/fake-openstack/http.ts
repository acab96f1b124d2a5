// The fake's HTTP in its simplest form: a request, a reply, and Nova's and Keystone's JSON
// error bodies. Both transports (in memory and a real server) turn into these.
import type { FakeRequestLogEntry } from './options.js';

export interface RawRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: { get(name: string): string | null };
  readonly body: string;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** What a service answers: the reply and the request-log entry without its outcome. */
export interface Routed {
  readonly res: RawResponse;
  readonly entry: Omit<FakeRequestLogEntry, 'status' | 'injected' | 'at'>;
}

export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): RawResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? '' : JSON.stringify(body),
  };
}

/** An error reply: `{ [kind]: { code, message } }`, as Nova and Keystone write them. */
export function fault(
  status: number,
  kind: string,
  message: string,
  headers: Record<string, string> = {},
): RawResponse {
  return json(status, { [kind]: { code: status, message } }, headers);
}
