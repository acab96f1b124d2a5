// The Webhook site step: POSTs the repair to the site's endpoint and turns the answer into a
// provider outcome. The body is JSON {node, providerID, action, actionId, replay, issuedAt};
// the Idempotency-Key header is the actionId. A lost answer (5xx, 408, 429, network, timeout)
// is waited out and the request is sent again with `replay: true` and the SAME key: the
// receiver must deduplicate on that key (an attempt is one job, however often it arrives).
// 401, 403 and 404 say "I could not ask" (credentials expired or refused, the route or the
// receiver not there, a proxy in front answering): they wait like an outage, never use an
// attempt, and are sent again with the same key once someone has fixed the URL or the token.
//
// The URL may carry credentials (user:password@, which become a Basic Authorization header,
// or a token in the query): messages only ever show its origin and path.
import { formatDuration } from '../health/time.js';
import { parseRetryAfter } from '../runtime/backoff.js';
import { deadlineSignal } from '../runtime/deadline.js';
import type { ProviderOutcome } from './port.js';
import { headExcerpt } from './site-text.js';

/** Bytes of a reply body read for the message; the rest is not read. */
const BODY_BYTES = 2048;

export interface SiteWebhookCall {
  readonly url: string;
  readonly body: Readonly<Record<string, unknown>>;
  readonly idempotencyKey: string;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

/** How the call ended (the I/O half; webhookOutcome is the decision). */
export type SiteWebhookEnd =
  | {
      readonly kind: 'Answered';
      readonly status: number;
      readonly body: string;
      readonly retryAfterMs?: number;
    }
  | { readonly kind: 'TimedOut' }
  | { readonly kind: 'Aborted' }
  /** No HTTP answer: refused, reset, DNS, TLS; `code` is the system's code, never a message. */
  | { readonly kind: 'NetworkError'; readonly code: string };

/** The URL to send to, its Authorization from the userinfo, what messages may show, and what they must not. */
export interface WebhookTarget {
  readonly href: string;
  readonly authorization?: string;
  /** Origin and path: no userinfo, no query, no fragment. */
  readonly shown: string;
  readonly secrets: readonly string[];
}

export function webhookTarget(url: string): WebhookTarget {
  const u = new URL(url);
  const user = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  const secrets = [user, password, u.username, u.password, u.search.slice(1)];
  for (const v of u.searchParams.values()) secrets.push(v);
  const shown = `${u.origin}${u.pathname}`;
  const authorization =
    user !== '' || password !== ''
      ? `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
      : undefined;
  u.username = '';
  u.password = '';
  return {
    href: u.href,
    ...(authorization !== undefined ? { authorization } : {}),
    shown,
    secrets: secrets.filter((s) => s.length >= 4),
  };
}

async function readSome(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < BODY_BYTES) {
      const r = await reader.read();
      if (r.done) break;
      chunks.push(r.value);
      size += r.value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, BODY_BYTES).toString('utf8');
}

function systemCode(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === 'string' ? cause.code : 'ERROR';
}

/** Sends the request once and reports how it ended. Never throws. */
export async function callSiteWebhook(call: SiteWebhookCall): Promise<SiteWebhookEnd> {
  if (call.signal.aborted) return { kind: 'Aborted' };
  const target = webhookTarget(call.url);
  // deadlineSignal: a real timer (AbortSignal.timeout inside AbortSignal.any can be garbage
  // collected on Node 20 before it fires, and the call would hang).
  const deadline = deadlineSignal(call.timeoutMs, call.signal);
  // Timed out: the deadline fired, not the caller (whose reason the deadline would carry).
  const timedOut = () =>
    deadline.signal.aborted &&
    !(call.signal.aborted && deadline.signal.reason === call.signal.reason);
  try {
    const res = await fetch(target.href, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': call.idempotencyKey,
        'user-agent': 'noderepair',
        ...(target.authorization !== undefined ? { authorization: target.authorization } : {}),
      },
      body: JSON.stringify(call.body),
      // A redirected POST may become a GET elsewhere: the policy names the final address.
      redirect: 'manual',
      signal: deadline.signal,
    });
    const body = await readSome(res);
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), Date.now());
    return {
      kind: 'Answered',
      status: res.status,
      body,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  } catch (e) {
    if (timedOut()) return { kind: 'TimedOut' };
    if (call.signal.aborted) return { kind: 'Aborted' };
    return { kind: 'NetworkError', code: systemCode(e) };
  } finally {
    deadline.clear();
  }
}

/** Statuses that say "not now" rather than "no": 408 Request Timeout, 429 Too Many Requests. */
const RETRYABLE_4XX = new Set([408, 429]);

/**
 * Statuses that say the request did not reach a receiver that would take it: the port's
 * promise 2 counts authentication as "could not ask", and a 404 on a POST endpoint is the
 * route, the receiver or a proxy in front, not an answer about this node. An expired token
 * must not walk the ladder to Replace: these wait, and name what a person should check.
 */
const NOT_REACHED: ReadonlyMap<number, string> = new Map([
  [401, 'authentication failed: check the credentials in the url (user:password@ or its query)'],
  [
    403,
    'forbidden: check that the credentials in the url may call this endpoint, and any proxy or firewall in front of it',
  ],
  [
    404,
    'not found: check the url (host and path), that the receiver runs, and that any proxy in front of it routes there',
  ],
]);

/** What the repair makes of the answer. Pure. */
export function webhookOutcome(
  shown: string,
  end: SiteWebhookEnd,
  timeoutMs: number,
  secrets: readonly string[],
): ProviderOutcome {
  const where = `POST ${shown}`;
  switch (end.kind) {
    case 'Aborted':
      return {
        kind: 'Unavailable',
        message: `${where} stopped: the controller is stopping`,
        maybeSent: true,
      };
    case 'TimedOut':
      return {
        kind: 'Unavailable',
        message: `${where}: no answer within ${formatDuration(timeoutMs)}`,
        maybeSent: true,
      };
    case 'NetworkError':
      return { kind: 'Unavailable', message: `${where}: ${end.code}`, maybeSent: true };
    case 'Answered': {
      const said = headExcerpt(end.body, secrets);
      const text = `${where} answered ${end.status}${said === '' ? '' : `: ${said}`}`;
      if (end.status >= 200 && end.status < 300) return { kind: 'Accepted', message: text };
      if (end.status >= 500 || RETRYABLE_4XX.has(end.status))
        return {
          kind: 'Unavailable',
          message: text,
          maybeSent: true,
          ...(end.retryAfterMs !== undefined ? { retryAfterMs: end.retryAfterMs } : {}),
        };
      const check = NOT_REACHED.get(end.status);
      if (check !== undefined)
        return {
          kind: 'Unavailable',
          message: `${text} (${check})`,
          // The answer says it was not taken; the next call is a replay with the same key anyway.
          maybeSent: false,
          ...(end.retryAfterMs !== undefined ? { retryAfterMs: end.retryAfterMs } : {}),
        };
      if (end.status >= 300 && end.status < 400)
        return {
          kind: 'Rejected',
          message: `${text} (redirects are not followed: set url to the final address)`,
        };
      return { kind: 'Rejected', message: text };
    }
  }
}
