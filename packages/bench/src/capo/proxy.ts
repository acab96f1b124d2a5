// A counting reverse proxy in front of one real service (Keystone, Nova, or a workload
// kube-apiserver): every request is counted by a key the caller chooses (method and path
// prefix, or the client's User-Agent), then streamed through untouched (watches included).
// chaos's GateProxy holds requests but cannot rewrite a second origin: Keystone's catalog
// names Nova's own URL, which must be rewritten to Nova's proxy or the controller's Nova
// calls would go around the count.
import { request as httpRequest, createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export interface CountingProxyOptions {
  /** Origin of the real service, e.g. http://127.0.0.1:5000. */
  readonly upstream: string;
  /** CA bundle for an https upstream. */
  readonly ca?: string;
  /** Serve HTTPS with this certificate (kube clients send a token only over TLS). */
  readonly tls?: { readonly cert: string; readonly key: string };
  /**
   * Rewrite origins in JSON replies ({@link CountingProxy.rewrites}): for Keystone and Nova,
   * never for a kube-apiserver (its watches are endless JSON streams).
   */
  readonly rewriteJson?: boolean;
  /** The count key of a request; default {@link methodAndPrefix}. */
  readonly keyOf?: (method: string, path: string, userAgent: string) => string;
}

/**
 * "METHOD /first/segments" with ids (uuids, hex, numbers) replaced by ":id", so requests
 * about different servers count under one key. Pure.
 */
export function methodAndPrefix(method: string, path: string): string {
  const segs = (path.split('?')[0] ?? '')
    .split('/')
    .filter((s) => s !== '')
    // Server uuids, numbers and Nova request ids (req-<uuid>) are one key each, not one per value.
    .map((s) =>
      /^[0-9a-f-]{32,36}$/i.test(s) || /^\d+$/.test(s)
        ? ':id'
        : /^req-[0-9a-f-]{36}$/i.test(s)
          ? ':request'
          : s,
    );
  return `${method} /${segs.join('/')}`;
}

/** The count key of our controller's requests to a workload cluster (see partyOfUserAgent). */
export const CAPO_PARTY = 'capo-remediation';

/**
 * Who sent a request to a workload cluster, from its User-Agent. Pure. Only two parties
 * cross a workload cluster's proxy: our controller (core's kube client sends no User-Agent)
 * and the Cluster API manager (client-go always sends one); the bench writes Nodes directly.
 */
export function partyOfUserAgent(ua: string): string {
  return ua === '' ? CAPO_PARTY : `capi (${ua.split(/[\s/]/)[0] ?? ''})`;
}

export class CountingProxy {
  readonly #server: Server;
  readonly #upstream: URL;
  readonly #sockets = new Set<Socket>();
  /** Origin (as the service writes it) -> what to write instead, in JSON replies. */
  readonly rewrites = new Map<string, string>();
  readonly counts = new Map<string, number>();
  #url = '';

  private constructor(private readonly opts: CountingProxyOptions) {
    this.#upstream = new URL(opts.upstream);
    const handler = (req: IncomingMessage, res: import('node:http').ServerResponse) => {
      const key = (opts.keyOf ?? methodAndPrefix)(
        req.method ?? 'GET',
        req.url ?? '/',
        String(req.headers['user-agent'] ?? ''),
      );
      this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
      this.#forward(req, res);
    };
    this.#server = opts.tls
      ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key }, handler)
      : createServer(handler);
    this.#server.on(opts.tls ? 'secureConnection' : 'connection', (s: Socket) => {
      this.#sockets.add(s);
      s.once('close', () => this.#sockets.delete(s));
    });
  }

  static async start(opts: CountingProxyOptions): Promise<CountingProxy> {
    const p = new CountingProxy(opts);
    await new Promise<void>((resolve, reject) => {
      p.#server.once('error', reject);
      p.#server.listen(0, '127.0.0.1', () => resolve());
    });
    p.#url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${(p.#server.address() as AddressInfo).port}`;
    p.rewrites.set(p.#upstream.origin, p.#url);
    return p;
  }

  get url(): string {
    return this.#url;
  }

  /** The counts so far, and a fresh start (the point's window begins). */
  take(): Map<string, number> {
    const out = new Map(this.counts);
    this.counts.clear();
    return out;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #forward(req: IncomingMessage, res: import('node:http').ServerResponse): void {
    const u = this.#upstream;
    const up = (u.protocol === 'https:' ? httpsRequest : httpRequest)(
      {
        method: req.method,
        host: u.hostname,
        port: u.port,
        path: req.url,
        headers: { ...req.headers, host: u.host },
        ...(this.opts.ca ? { ca: this.opts.ca } : {}),
      },
      (upRes) => {
        const json = (upRes.headers['content-type'] ?? '').includes('json');
        if (!json || this.opts.rewriteJson !== true) {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          let text = Buffer.concat(chunks).toString('utf8');
          for (const [from, to] of this.rewrites) text = text.split(from).join(to);
          const body = Buffer.from(text, 'utf8');
          const headers = { ...upRes.headers, 'content-length': String(body.length) };
          delete headers['transfer-encoding'];
          res.writeHead(upRes.statusCode ?? 502, headers);
          res.end(body);
        });
      },
    );
    up.on('error', () => req.socket.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  }
}
