// The HTTP layer: one function from request to response, so the session can run over a real
// connection (node:https with our CA bundle, keep-alive) or in memory against FakeOpenStack in
// unit tests. node:https rather than a fetch library: the controller makes a handful of small
// JSON requests, and the undici package it used before cost ~7 MiB of every process's memory
// (measured on Node 20: RSS after importing core, +7.1-7.4 MiB for undici).
import http from 'node:http';
import https from 'node:https';
import { deadlineSignal } from '@noderepair/core/runtime';
import { OpenStackError } from './errors.js';

/** One HTTP request as the session hands it to a Transport. */
export interface HttpRequest {
  /** HTTP method; the client uses no others. */
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Absolute URL, endpoint from the catalog plus path. */
  readonly url: string;
  /** Request headers; carry the token, so a Transport must never log them. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * JSON text, or undefined for no body; may carry a password (token requests), so never log it.
   */
  readonly body?: string | undefined;
  /**
   * Deadline for the whole exchange including reading the body, in milliseconds; exceeding it is a
   * `Timeout` error.
   */
  readonly timeoutMs: number;
  /** The caller's signal (a lost Lease): aborts the request in flight, with the timeout. */
  readonly signal?: AbortSignal | undefined;
}

/** The part of a fetch Response the session reads. */
export interface HttpResponse {
  /** HTTP status code. */
  readonly status: number;
  /** Response headers, looked up case-insensitively; null when absent. */
  readonly headers: { get(name: string): string | null };
  /**
   * Reads the body; may throw OpenStackError (`Timeout`, `TransportError`) when the body fails to
   * arrive in time.
   */
  text(): Promise<string>;
}

/** Must throw OpenStackError('Timeout' | 'TransportError') for failures without a response. */
export type Transport = (req: HttpRequest) => Promise<HttpResponse>;

/** TLS settings of the HTTPS transport, usually taken from the CloudConfig. */
export interface HttpTransportOptions {
  /** PEM CA bundle; it replaces the system trust store, as clouds.yaml's cacert does. */
  readonly caCert?: string | undefined;
  /** TLS verification; true unless explicitly disabled. */
  readonly verify?: boolean | undefined;
}

/** An HTTPS transport with its own connection pool, which the owner must close. */
export interface HttpTransport {
  /** The request function to hand to KeystoneSession. */
  readonly transport: Transport;
  /** Closes the pooled connections; requests after this fail. */
  close(): Promise<void>;
}

/**
 * Connection errors raised before a single byte of the request could leave: the request did
 * not reach the service, so even a server action may be sent again. A reset or a timeout
 * may come after the request was written, and is not in this list.
 */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
]);

function causeCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur && typeof cur === 'object'; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Maps a failed fetch to a typed error; only the URL's origin and path and an error code are kept. */
export function transportError(e: unknown, req: HttpRequest): OpenStackError {
  const u = new URL(req.url);
  const where = `${req.method} ${u.origin}${u.pathname}`;
  const name = (e as { name?: unknown } | null)?.name;
  if (req.signal?.aborted) {
    return new OpenStackError(
      'Aborted',
      `${where}: aborted by the caller (the request may have reached the service)`,
    );
  }
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new OpenStackError('Timeout', `${where}: no reply within ${req.timeoutMs} ms`);
  }
  const code = causeCode(e);
  return new OpenStackError(
    'TransportError',
    `${where}: connection failed${code ? ` (${code})` : ''}`,
    undefined,
    { notSent: code !== undefined && NOT_SENT_CODES.has(code) },
  );
}

/** The response headers, looked up case-insensitively (Node lower-cases them). */
function headerLookup(res: http.IncomingMessage): HttpResponse['headers'] {
  return {
    get: (name) => {
      const v = res.headers[name.toLowerCase()];
      if (v === undefined) return null;
      return Array.isArray(v) ? v.join(', ') : v;
    },
  };
}

/** The body as text, or the reason it did not arrive whole (the socket closed before its end). */
function readBody(res: http.IncomingMessage, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let done = false;
    const fail = (e: unknown) => {
      if (done) return;
      done = true;
      // Aborted by the deadline or the caller: report it as such, not as the reset it causes.
      reject(signal.aborted ? signal.reason : e);
    };
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    res.on('error', fail);
    res.on('close', () =>
      fail(Object.assign(new Error('connection closed'), { code: 'ECONNRESET' })),
    );
  });
}

/**
 * A Transport over node:https (node:http for http: URLs) with the given CA bundle and TLS
 * verification (on by default), on keep-alive connections; close it when done.
 */
export function createHttpTransport(opts: HttpTransportOptions = {}): HttpTransport {
  const httpsAgent = new https.Agent({
    keepAlive: true,
    ...(opts.caCert ? { ca: opts.caCert } : {}),
    rejectUnauthorized: opts.verify !== false,
  });
  const httpAgent = new http.Agent({ keepAlive: true });
  let closed = false;
  const transport: Transport = async (req) => {
    if (closed) throw transportError(new Error('transport closed'), req);
    const url = new URL(req.url);
    const isHttps = url.protocol === 'https:';
    const deadline = deadlineSignal(req.timeoutMs, req.signal);
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    try {
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const r = (isHttps ? https : http).request(
          url,
          {
            method: req.method,
            headers,
            agent: isHttps ? httpsAgent : httpAgent,
            signal: deadline.signal,
          },
          resolve,
        );
        r.on('error', (e) => reject(deadline.signal.aborted ? deadline.signal.reason : e));
        r.end(req.body);
      });
      // The deadline covers the body too; it ends when the body is read (or fails).
      return {
        status: res.statusCode ?? 0,
        headers: headerLookup(res),
        text: async () => {
          try {
            return await readBody(res, deadline.signal);
          } catch (e) {
            throw transportError(e, req);
          } finally {
            deadline.clear();
          }
        },
      };
    } catch (e) {
      deadline.clear();
      throw transportError(e, req);
    }
  };
  return {
    transport,
    close: async () => {
      closed = true;
      httpsAgent.destroy();
      httpAgent.destroy();
    },
  };
}
