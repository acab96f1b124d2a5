// A Keystone v3 session: one project-scoped token, cached and renewed before it expires or
// when a service answers 401, and the HTTP plumbing every service call shares (endpoint from
// the catalog, backoff on 5xx and timeouts). Service-specific replies (Nova's 404/409) are
// left to the service client.
import { systemClock, type Clock } from '@noderepair/core/runtime';
import * as E from 'fp-ts/lib/Either.js';
import type { CloudConfig } from './clouds-yaml.js';
import { selectEndpoint } from './catalog.js';
import { OpenStackError } from './errors.js';
import { decodeTokenBody, secretsOf, tokenRequestBody } from './keystone.js';
import type { TokenInfo } from './keystone.js';
import { backoffDelay, defaultRetryPolicy, isRetriableStatus, parseRetryAfter } from './retry.js';
import type { RetryPolicy } from './retry.js';
import { REDACTED, redact, Secret } from './secret.js';
import type { HttpResponse, Transport } from './transport.js';

/** A pino-compatible subset; only method, path, status and timings are ever logged. */
export interface OpenStackLogger {
  /** Routine detail: each request and its status, token issued, a 401 answered by authenticating again. */
  debug(obj: Record<string, unknown>, msg: string): void;
  /** Something an operator should see: a failed attempt about to be retried, or a server action's 5xx that is not resent. */
  warn(obj: Record<string, unknown>, msg: string): void;
}

/** How a KeystoneSession is built; only `cloud` and `transport` are required. */
export interface SessionOptions {
  /** The cloud to authenticate to, with its credentials and endpoint choice. */
  readonly cloud: CloudConfig;
  /** The HTTP layer (createHttpTransport's, or an in-memory one in tests). */
  readonly transport: Transport;
  /** Overrides of defaultRetryPolicy, field by field. */
  readonly retry?: Partial<RetryPolicy> | undefined;
  /** Renew the token when less than this is left (default 5 minutes, at most half its life). */
  readonly refreshMarginMs?: number | undefined;
  /**
   * core's Clock: token expiry, Retry-After dates and backoff waits (default systemClock); tests
   * pass a ManualClock.
   */
  readonly clock?: Clock | undefined;
  /** Where retries and re-authentications are reported; none by default. */
  readonly logger?: OpenStackLogger | undefined;
  /** User-Agent header of every request (default `noderepair-capo-remediation`). */
  readonly userAgent?: string | undefined;
}

/** One call to a service through KeystoneSession.request. */
export interface ServiceRequest {
  /** HTTP method. */
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path below the service endpoint, starting with '/'. */
  readonly path: string;
  /** Sent as JSON (with Content-Type set) when defined. */
  readonly body?: unknown;
  /** Extra headers, such as a Nova microversion; the session sets the token header itself. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * For calls that must not run twice (server actions): when the request may have gone out
   * but no usable answer came back (timeout, connection reset, any 5xx: a proxy's 502/504
   * after forwarding), it is NOT sent again, because the service may have acted; the
   * failure is thrown (OpenStackError, status set for a 5xx) for the caller to judge. Only a
   * failure that provably left nothing (`notSent`: connection refused, DNS) is retried.
   * (Found by the chaos suite: a reboot whose reply was lost was resent after the first one
   * had finished: two reboots; issue 21: the same through a proxy's 502.)
   */
  readonly noResendWithoutReply?: boolean;
  /**
   * The caller's signal (the controller's term: a lost Lease aborts it). It aborts the HTTP
   * request in flight and any backoff wait; the call then throws OpenStackError('Aborted'),
   * never retried.
   */
  readonly signal?: AbortSignal | undefined;
}

/**
 * A service's final answer after the session's retries; every status other than a retried one is
 * returned, not thrown.
 */
export interface ServiceResponse {
  /** HTTP status of the last attempt. */
  readonly status: number;
  /** Headers of the last attempt, looked up case-insensitively. */
  readonly headers: { get(name: string): string | null };
  /** Body text with every known secret redacted. */
  readonly text: string;
  /** How many attempts were made (> 1 after retries); lets callers spot ambiguous retries. */
  readonly attempts: number;
  /** True when an earlier attempt failed without a clear answer (timeout, connection, 5xx). */
  readonly hadAmbiguousFailure: boolean;
}

interface CachedToken {
  readonly value: Secret;
  readonly info: TokenInfo;
  readonly issuedAt: number;
}

function aborted(what: string): OpenStackError {
  return new OpenStackError('Aborted', `${what}: aborted by the caller`);
}

/** p, or OpenStackError('Aborted') as soon as the signal aborts (p itself goes on). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined, what: string): Promise<T> {
  if (signal === undefined) return p;
  if (signal.aborted) return Promise.reject(aborted(what));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted(what));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * A Keystone v3 session for one cloud: caches a project-scoped token, renews it before expiry or on
 * a 401, and retries 5xx replies, timeouts and connection errors with backoff. Logs and serialises
 * without any secret.
 */
export class KeystoneSession {
  readonly #cloud: CloudConfig;
  readonly #transport: Transport;
  readonly #retry: RetryPolicy;
  readonly #refreshMarginMs: number;
  readonly #clock: Clock;
  readonly #logger: OpenStackLogger | undefined;
  readonly #userAgent: string;
  #token: CachedToken | undefined;
  #pending: Promise<CachedToken> | undefined;
  /** Every token this session has held: redacted from any server text too. */
  readonly #secrets: Secret[];

  /** Sends nothing: the first request authenticates. */
  constructor(opts: SessionOptions) {
    this.#cloud = opts.cloud;
    this.#transport = opts.transport;
    this.#retry = { ...defaultRetryPolicy, ...opts.retry };
    this.#refreshMarginMs = opts.refreshMarginMs ?? 5 * 60_000;
    this.#clock = opts.clock ?? systemClock;
    this.#logger = opts.logger;
    this.#userAgent = opts.userAgent ?? 'noderepair-capo-remediation';
    this.#secrets = [...secretsOf(opts.cloud.auth)];
  }

  /** The clouds.yaml name of the cloud this session talks to. */
  get cloudName(): string {
    return this.#cloud.cloudName;
  }

  /** The effective retry policy (defaults merged with SessionOptions.retry). */
  get retryPolicy(): RetryPolicy {
    return this.#retry;
  }

  /** The session's logger, for service clients that report their own judgements. */
  get logger(): OpenStackLogger | undefined {
    return this.#logger;
  }

  /** For callers that wait between their own retries (Nova's 409), on the same clock. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.#clock.sleep(ms, signal);
  }

  /** Redacts every secret this session knows from a text. */
  redact(text: string): string {
    return redact(text, this.#secrets);
  }

  /** Forget the cached token; the next call authenticates again. */
  invalidate(): void {
    this.#token = undefined;
  }

  /** The cached token's expiry, or undefined when none is cached. */
  get tokenExpiresAt(): number | undefined {
    return this.#token?.info.expiresAt;
  }

  #fresh(tok: CachedToken): boolean {
    const life = tok.info.expiresAt - tok.issuedAt;
    const margin = Math.min(this.#refreshMarginMs, Math.max(0, life / 2));
    return this.#clock.now() < tok.info.expiresAt - margin;
  }

  async #currentToken(): Promise<CachedToken> {
    const tok = this.#token;
    if (tok && this.#fresh(tok)) return tok;
    // Concurrent callers share one authentication instead of each asking Keystone.
    this.#pending ??= this.#authenticate().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #authenticate(): Promise<CachedToken> {
    const url = `${this.#cloud.authUrl}/auth/tokens`;
    const res = await this.#send('identity', {
      method: 'POST',
      url,
      body: tokenRequestBody(this.#cloud.auth),
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    });
    if (res.status === 401 || res.status === 403 || res.status === 404) {
      throw new OpenStackError(
        'AuthFailed',
        `Keystone rejected the ${this.#cloud.auth.type} credentials of cloud "${this.#cloud.cloudName}" (HTTP ${res.status})`,
        res.status,
      );
    }
    if (res.status !== 201 && res.status !== 200) {
      throw new OpenStackError(
        isRetriableStatus(res.status) ? 'ServiceUnavailable' : 'AuthFailed',
        `Keystone token request for cloud "${this.#cloud.cloudName}" failed with HTTP ${res.status}`,
        res.status,
      );
    }
    const subject = res.headers.get('x-subject-token');
    if (!subject)
      throw new OpenStackError(
        'InvalidResponse',
        'Keystone token reply has no X-Subject-Token header',
      );
    const value = new Secret(subject);
    this.#secrets.push(value);
    let parsed: unknown;
    try {
      parsed = JSON.parse(res.text);
    } catch {
      throw new OpenStackError('InvalidResponse', 'Keystone token reply is not JSON');
    }
    const info = decodeTokenBody(parsed);
    if (E.isLeft(info)) throw new OpenStackError('InvalidResponse', info.left);
    const tok: CachedToken = { value, info: info.right, issuedAt: this.#clock.now() };
    this.#token = tok;
    this.#logger?.debug(
      { cloud: this.#cloud.cloudName, expiresAt: new Date(info.right.expiresAt).toISOString() },
      'keystone token issued',
    );
    return tok;
  }

  /** The endpoint URL of a service from the current token's catalog. */
  async endpoint(serviceType: string): Promise<string> {
    const tok = await this.#currentToken();
    return this.#endpointOf(tok, serviceType);
  }

  #endpointOf(tok: CachedToken, serviceType: string): string {
    const ep = selectEndpoint(tok.info.catalog, {
      serviceType,
      interface: this.#cloud.interface,
      region: this.#cloud.region,
    });
    if (E.isLeft(ep))
      throw new OpenStackError('EndpointNotFound', `cloud "${this.#cloud.cloudName}": ${ep.left}`);
    return ep.right;
  }

  /**
   * One authenticated call to a service. 401 -> authenticate again and repeat once;
   * 5xx, timeouts and connection errors -> backoff and repeat (bounded). Any other status is
   * returned for the service client to interpret.
   */
  async request(serviceType: string, req: ServiceRequest): Promise<ServiceResponse> {
    let reauthed = false;
    for (;;) {
      // The token request is shared by concurrent callers: one caller's abort stops its own
      // wait, not the authentication the others wait for.
      const tok = await untilAborted(this.#currentToken(), req.signal, req.path);
      const base = this.#endpointOf(tok, serviceType);
      const res = await this.#send(serviceType, {
        method: req.method,
        url: `${base}${req.path}`,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        headers: {
          Accept: 'application/json',
          ...(req.body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...req.headers,
          'X-Auth-Token': tok.value.reveal(),
        },
        noResendWithoutReply: req.noResendWithoutReply === true,
        signal: req.signal,
      });
      if (res.status === 401 && !reauthed) {
        // The token was revoked or expired early (Keystone restarted, clock skew): renew once.
        this.#logger?.debug(
          { service: serviceType, path: req.path },
          'token rejected with 401, authenticating again',
        );
        if (this.#token === tok) this.#token = undefined;
        reauthed = true;
        continue;
      }
      return res;
    }
  }

  async #send(
    service: string,
    r: {
      method: ServiceRequest['method'];
      url: string;
      body: string | undefined;
      headers: Record<string, string>;
      noResendWithoutReply?: boolean;
      signal?: AbortSignal | undefined;
    },
  ): Promise<ServiceResponse> {
    const path = new URL(r.url).pathname;
    let ambiguous = false;
    for (let attempt = 1; ; attempt++) {
      if (r.signal?.aborted) throw aborted(`${r.method} ${path}`);
      let res: HttpResponse | undefined;
      let text = '';
      let failure: OpenStackError | undefined;
      try {
        res = await this.#transport({
          method: r.method,
          url: r.url,
          headers: { 'User-Agent': this.#userAgent, ...r.headers },
          body: r.body,
          timeoutMs: this.#retry.timeoutMs,
          signal: r.signal,
        });
        text = this.redact(await res.text());
      } catch (e) {
        failure =
          e instanceof OpenStackError
            ? e
            : new OpenStackError(
                (e as { name?: string })?.name === 'TimeoutError' ? 'Timeout' : 'TransportError',
                `${r.method} ${path}: reply could not be read`,
              );
        res = undefined;
      }
      if (res && !isRetriableStatus(res.status)) {
        this.#logger?.debug(
          { service, method: r.method, path, status: res.status, attempt },
          'openstack request',
        );
        return {
          status: res.status,
          headers: res.headers,
          text,
          attempts: attempt,
          hadAmbiguousFailure: ambiguous,
        };
      }
      // Aborted (an answer that did arrive was returned above): no retry, no backoff; the term that asked is over.
      // A server action cut off without a reply may have reached Nova: whoever acts next asks
      // Nova's records first (maybeSent), as after a lost reply.
      if (r.signal?.aborted) {
        const err = failure?.code === 'Aborted' ? failure : aborted(`${r.method} ${path}`);
        if (r.noResendWithoutReply && res === undefined)
          throw new OpenStackError('Aborted', err.message, undefined, { maybeSent: true });
        throw err;
      }
      if (failure && r.noResendWithoutReply && !failure.notSent)
        throw new OpenStackError(
          failure.code,
          this.redact(`${failure.message} (not sent again: the service may have acted on it)`),
          undefined,
          { maybeSent: true },
        );
      if (res && r.noResendWithoutReply) {
        this.#logger?.warn(
          { service, method: r.method, path, status: res.status, attempt },
          'server action answered with a 5xx; not sent again (it may have been forwarded)',
        );
        throw new OpenStackError(
          'ServiceUnavailable',
          `${service}: ${r.method} ${path} answered HTTP ${res.status} (not sent again: the service may have acted on it)`,
          res.status,
          { maybeSent: true },
        );
      }
      ambiguous = true;
      const status = res?.status;
      if (attempt >= this.#retry.maxAttempts) {
        if (failure)
          throw new OpenStackError(
            failure.code,
            this.redact(`${failure.message} (after ${attempt} attempts)`),
          );
        throw new OpenStackError(
          'ServiceUnavailable',
          `${service}: ${r.method} ${path} failed with HTTP ${status} after ${attempt} attempts`,
          status,
        );
      }
      const delay = backoffDelay(
        this.#retry,
        attempt,
        parseRetryAfter(res?.headers.get('retry-after'), this.#clock.now()),
      );
      this.#logger?.warn(
        {
          service,
          method: r.method,
          path,
          status,
          error: failure?.code,
          attempt,
          retryInMs: delay,
        },
        'openstack request failed, retrying',
      );
      // The clock's sleep cancels its timer on abort; the caller sees OpenStackError('Aborted').
      try {
        await this.#clock.sleep(delay, r.signal);
      } catch (e) {
        if (r.signal?.aborted) throw aborted(path);
        throw e;
      }
    }
  }

  /** Cloud name, auth URL and whether a token is held (as REDACTED), for logs. */
  toJSON(): Record<string, unknown> {
    return {
      cloud: this.#cloud.cloudName,
      authUrl: this.#cloud.authUrl,
      token: this.#token ? REDACTED : undefined,
    };
  }

  /** `KeystoneSession(<cloud>)`; never a credential. */
  toString(): string {
    return `KeystoneSession(${this.#cloud.cloudName})`;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }
}
