// A loopback HTTP proxy in front of a real service (the envtest kube-apiserver, or the
// FakeOpenStack's HTTP server) that can HOLD one chosen request: either before it reaches
// the service ("before": the service never saw it) or after the service answered ("after":
// the effect happened, the caller does not know yet). Holding is how the suite stops a
// controller at an exact step of a remediation without a test hook inside the controller:
// the test waits for the held request, then SIGKILLs the process that sent it.
// Everything else streams through untouched (watches included).
import { request as httpRequest, createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export interface SeenRequest {
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  /** Body as text (requests other than GET are buffered; they are small). */
  readonly body: string;
}

export type HoldWhen = 'before' | 'after';

export interface HeldRequest extends SeenRequest {
  /** Lets the request go on (before) or delivers the reply (after). */
  release(): void;
  /** Closes the caller's connection without an answer (a lost reply). */
  drop(): void;
  /** Resolves with Date.now() when the CALLER gives up on it (aborts, closes its socket). */
  readonly callerClosed: Promise<number>;
}

interface Hold {
  readonly match: (r: SeenRequest) => boolean;
  readonly when: HoldWhen;
  readonly resolve: (h: HeldRequest) => void;
}

export interface GateProxyOptions {
  /** Origin of the real service, e.g. https://127.0.0.1:6443. */
  readonly upstream: string;
  /** CA bundle for an https upstream. */
  readonly ca?: string;
  /**
   * Rewrite the upstream origin to the proxy's in JSON replies (Keystone's catalog lists the
   * service's own URLs; without this, the caller would go around the proxy).
   */
  readonly rewriteOrigin?: boolean;
  /** Serve HTTPS with this certificate (a kube client refuses plain HTTP with a token). */
  readonly tls?: { readonly cert: string; readonly key: string };
}

export class GateProxy {
  readonly #server: Server;
  readonly #upstream: URL;
  readonly #opts: GateProxyOptions;
  readonly #holds: Hold[] = [];
  readonly #sockets = new Set<Socket>();
  #frozen = false;
  /** Every request seen (method and path), in order. */
  readonly seen: SeenRequest[] = [];
  /** Credentials that crossed the proxy (bearer and X-Auth-Token headers, issued tokens). */
  readonly credentials = new Set<string>();
  #url = '';

  private constructor(opts: GateProxyOptions) {
    this.#opts = opts;
    this.#upstream = new URL(opts.upstream);
    const handler = (req: IncomingMessage, res: import('node:http').ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const seen: SeenRequest = {
          method: req.method ?? 'GET',
          path: req.url ?? '/',
          body: body.toString('utf8'),
        };
        this.seen.push({ ...seen, body: '' });
        this.#noteCredentials(req.headers);
        // Frozen: like a partition that resets nothing, the request just never goes anywhere.
        if (this.#frozen) return;
        const i = this.#holds.findIndex((h) => h.match(seen));
        const hold = i >= 0 ? this.#holds.splice(i, 1)[0] : undefined;
        const drop = () => req.socket.destroy();
        const callerClosed = new Promise<number>((r) => res.once('close', () => r(Date.now())));
        if (hold?.when === 'before') {
          hold.resolve({
            ...seen,
            release: () => this.#forward(req, body, res, undefined),
            drop,
            callerClosed,
          });
          return;
        }
        if (hold?.when === 'after') {
          this.#forward(req, body, res, (deliver) =>
            hold.resolve({ ...seen, release: deliver, drop, callerClosed }),
          );
          return;
        }
        this.#forward(req, body, res, undefined);
      });
    };
    this.#server = opts.tls
      ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key }, handler)
      : createServer(handler);
    this.#server.on(opts.tls ? 'secureConnection' : 'connection', (s: Socket) => {
      this.#sockets.add(s);
      s.once('close', () => this.#sockets.delete(s));
    });
  }

  static async start(opts: GateProxyOptions): Promise<GateProxy> {
    const p = new GateProxy(opts);
    await new Promise<void>((resolve, reject) => {
      p.#server.once('error', reject);
      p.#server.listen(0, '127.0.0.1', () => resolve());
    });
    p.#url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${(p.#server.address() as AddressInfo).port}`;
    return p;
  }

  get url(): string {
    return this.#url;
  }

  /** Holds the first request matching `match` (one-shot); resolves when it arrives. */
  hold(match: (r: SeenRequest) => boolean, when: HoldWhen): Promise<HeldRequest> {
    return new Promise((resolve) => this.#holds.push({ match, when, resolve }));
  }

  /**
   * From now on no request is forwarded and no reply delivered: the caller's connection hangs
   * (a frozen API server, or a partition that resets nothing). Replies already under way
   * (open watch streams) still flow: only new requests, Lease renewals among them, hang.
   */
  freeze(): void {
    this.#frozen = true;
  }

  /** Removes holds that never matched. */
  clearHolds(): void {
    this.#holds.length = 0;
  }

  /** Closes every open connection (watches included): callers see a broken connection. */
  cutConnections(): void {
    for (const s of this.#sockets) s.destroy();
  }

  async close(): Promise<void> {
    this.cutConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #noteCredentials(h: import('node:http').IncomingHttpHeaders): void {
    for (const k of ['x-auth-token', 'x-subject-token', 'authorization']) {
      const v = h[k];
      if (typeof v !== 'string' || v === '') continue;
      this.credentials.add(v.replace(/^Bearer\s+/i, ''));
    }
  }

  #forward(
    req: IncomingMessage,
    body: Buffer,
    res: import('node:http').ServerResponse,
    buffered: ((deliver: () => void) => void) | undefined,
  ): void {
    const u = this.#upstream;
    const headers = { ...req.headers, host: u.host };
    delete headers['content-length'];
    if (body.length > 0) headers['content-length'] = String(body.length);
    const opts = {
      method: req.method,
      host: u.hostname,
      port: u.port,
      path: req.url,
      headers,
      ...(this.#opts.ca ? { ca: this.#opts.ca } : {}),
    };
    const up = (u.protocol === 'https:' ? httpsRequest : httpRequest)(opts, (upRes) => {
      this.#noteCredentials(upRes.headers);
      const rewrite =
        this.#opts.rewriteOrigin === true && (upRes.headers['content-type'] ?? '').includes('json');
      if (!rewrite && !buffered) {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      upRes.on('data', (c: Buffer) => chunks.push(c));
      upRes.on('end', () => {
        let text = Buffer.concat(chunks);
        if (rewrite)
          text = Buffer.from(text.toString('utf8').split(u.origin).join(this.#url), 'utf8');
        const out = { ...upRes.headers, 'content-length': String(text.length) };
        delete out['transfer-encoding'];
        const deliver = () => {
          if (res.destroyed || res.socket?.destroyed) return;
          res.writeHead(upRes.statusCode ?? 502, out);
          res.end(text);
        };
        if (buffered) buffered(deliver);
        else deliver();
      });
    });
    up.on('error', () => req.socket.destroy());
    // The caller went away (SIGKILL): stop streaming from upstream too.
    res.on('close', () => up.destroy());
    up.end(body);
  }
}
