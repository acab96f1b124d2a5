// The HTTP transport of createKubeClient: one keep-alive agent per TLS identity (not an agent
// per request), streamed watches, and credentials asked of a CredentialSource before every
// request (tokens expire, plugins refresh). Sources: a ClusterConfig (core's own kubeconfig
// loader) or a @kubernetes/client-node KubeConfig.
import http from 'node:http';
import https from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import type { HttpRequest, HttpResponse, HttpStream, HttpTransport } from './rest-client.js';

/** Options of HttpsTransport. */
export interface HttpsTransportOptions {
  /** per-request timeout for non-watch calls (ms); default 30 s. */
  requestTimeoutMs?: number;
  /** User-Agent header of every request; none when unset. */
  userAgent?: string;
}

/**
 * The TLS parts of https.AgentOptions a credential source may set: CA, client certificate and key,
 * server name, verification.
 */
export type TlsMaterial = Pick<
  https.AgentOptions,
  'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'rejectUnauthorized' | 'servername'
>;

/** What one request needs: the TLS identity (the agent is rebuilt when it changes) and headers. */
export interface Credentials {
  /** TLS identity of the connection; the keep-alive agent is rebuilt when it changes. */
  readonly tls: TlsMaterial;
  /** e.g. Authorization; never logged. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Supplies the apiserver URL and, before every request, current credentials (tokens expire, auth
 * plugins refresh).
 */
export interface CredentialSource {
  /** The apiserver URL, e.g. `https://10.0.0.1:6443`. */
  readonly server: string;
  /** Credentials for the next request; called once per request, so it should cache what it can. */
  credentials(): Promise<Credentials>;
}

function sameTls(a: TlsMaterial, b: TlsMaterial): boolean {
  const keys: (keyof TlsMaterial)[] = [
    'ca',
    'cert',
    'key',
    'pfx',
    'passphrase',
    'rejectUnauthorized',
    'servername',
  ];
  return keys.every((k) => String(a[k] ?? '') === String(b[k] ?? ''));
}

export class HttpsTransport implements HttpTransport {
  private agent: http.Agent | undefined;
  private tls: TlsMaterial = {};
  private readonly server: URL;

  constructor(
    private readonly source: CredentialSource,
    private readonly opts: HttpsTransportOptions = {},
  ) {
    this.server = new URL(source.server);
  }

  /** Fresh credentials per request, agent reused while the TLS identity is unchanged. */
  private async prepare(req: HttpRequest): Promise<http.RequestOptions> {
    const { tls, headers: auth } = await this.source.credentials();
    const isHttps = this.server.protocol === 'https:';
    if (!this.agent || !sameTls(tls, this.tls)) {
      this.agent?.destroy();
      this.tls = tls;
      this.agent = isHttps
        ? new https.Agent({ ...tls, keepAlive: true })
        : new http.Agent({ keepAlive: true });
    }
    const headers: Record<string, string> = { Accept: 'application/json', ...auth };
    if (req.contentType) headers['Content-Type'] = req.contentType;
    // An explicit length: Go's server ignores a chunked DELETE body and the unread chunks
    // then corrupt the next request on the kept-alive connection.
    if (req.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(req.body));
    if (this.opts.userAgent) headers['User-Agent'] = this.opts.userAgent;
    const basePath = this.server.pathname.replace(/\/$/, '');
    return {
      protocol: this.server.protocol,
      hostname: this.server.hostname.replace(/^\[|\]$/g, ''),
      port: this.server.port || (isHttps ? 443 : 80),
      path: basePath + req.path,
      method: req.method,
      headers,
      agent: this.agent,
    };
  }

  private open(
    req: HttpRequest,
    options: http.RequestOptions,
    timeoutMs: number | undefined,
  ): Promise<http.IncomingMessage> {
    const mod = this.server.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const r = mod.request(options, resolve);
      r.on('error', reject);
      if (timeoutMs)
        r.setTimeout(timeoutMs, () =>
          r.destroy(new Error(`request timed out after ${timeoutMs} ms`)),
        );
      const signal = req.signal;
      if (signal) {
        if (signal.aborted) {
          // Nothing leaves: the socket is never written.
          r.destroy(abortError());
          return;
        }
        const onAbort = () => r.destroy(abortError());
        signal.addEventListener('abort', onAbort, { once: true });
        // The caller's signal may outlive thousands of requests: unlink when this one ends.
        r.once('close', () => signal.removeEventListener('abort', onAbort));
      }
      r.end(req.body);
    });
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    const res = await this.open(req, await this.prepare(req), this.opts.requestTimeoutMs ?? 30_000);
    // Decoded chunk by chunk (into V8 strings that JSON.parse joins): a list page of several
    // MiB is never also held as received chunks plus one concatenated native buffer, whose
    // freed malloc memory the process would keep resident after the initial sync.
    const decoder = new StringDecoder('utf8');
    let body = '';
    for await (const c of res) body += decoder.write(c as Buffer);
    body += decoder.end();
    return { status: res.statusCode ?? 0, body };
  }

  async stream(req: HttpRequest): Promise<HttpStream> {
    // No socket timeout: watches are long-lived; the reflector's inactivity timer aborts
    // silent ones through the signal.
    const res = await this.open(req, await this.prepare(req), undefined);
    const signal = req.signal;
    const body = async function* (): AsyncGenerator<Uint8Array> {
      try {
        for await (const c of res) yield c as Buffer;
      } finally {
        res.destroy();
      }
      if (signal?.aborted) return;
    };
    return { status: res.statusCode ?? 0, body: body() };
  }

  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
  }
}

function abortError(): Error {
  const e = new Error('request aborted');
  e.name = 'AbortError';
  return e;
}
