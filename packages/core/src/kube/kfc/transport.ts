// HTTP transport over kubernetes-fluent-client's HTTP layer: KFC's fetch (undici) with an
// undici Agent built from an injected KubeConfig.
//
// Why not KFC's fluent K8s() API: it loads the *global* default kubeconfig on every call
// (a controller must talk to many clusters), hard-codes fieldManager "pepr", and has no
// pagination, resourceVersion preconditions, delete preconditions or typed Status errors.
// KFC's fetch buffers whole bodies, so watches stream through the same undici that KFC
// ships (resolved from KFC's own dependencies, so no second HTTP stack is installed).
import { createRequire } from 'node:module';
import type https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
// Before client-node's module graph: fails, saying what to install, where it cannot load.
import '../client-node-guard.js';
import { fetch as kfcFetch } from 'kubernetes-fluent-client';
import { requestAbort } from '../abort.js';
import type { HttpRequest, HttpResponse, HttpStream, HttpTransport } from '../rest-client.js';

type Undici = {
  Agent: new (o: {
    connect?: Record<string, unknown>;
    keepAliveTimeout?: number;
    bodyTimeout?: number;
  }) => { close(): Promise<void>; destroy(): Promise<void> };
  fetch: (
    url: string,
    init: Record<string, unknown>,
  ) => Promise<{ status: number; body: AsyncIterable<Uint8Array> | null; text(): Promise<string> }>;
};

let undiciModule: Promise<Undici> | undefined;
function undici(): Promise<Undici> {
  if (!undiciModule) {
    const fromCore = createRequire(import.meta.url);
    const kfcEntry = fromCore.resolve('kubernetes-fluent-client');
    const fromKfc = createRequire(kfcEntry);
    undiciModule = import(fromKfc.resolve('undici')) as Promise<Undici>;
  }
  return undiciModule;
}

/** Options of KfcTransport. */
export interface KfcTransportOptions {
  /** Timeout in milliseconds of each non-watch request; default 30000. */
  requestTimeoutMs?: number;
}

export class KfcTransport implements HttpTransport {
  private agent: InstanceType<Undici['Agent']> | undefined;
  private agentKey = '';
  private readonly server: string;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly opts: KfcTransportOptions = {},
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new TypeError('KubeConfig has no current cluster (set current-context)');
    this.server = cluster.server.replace(/\/$/, '');
  }

  private async prepare(req: HttpRequest): Promise<{ url: string; init: Record<string, unknown> }> {
    const o: https.RequestOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(o);
    const cluster = this.kubeConfig.getCurrentCluster();
    const connect = {
      ca: o.ca,
      cert: o.cert,
      key: o.key,
      ...(cluster?.skipTLSVerify ? { rejectUnauthorized: false } : {}),
      ...(cluster?.tlsServerName ? { servername: cluster.tlsServerName } : {}),
    };
    const key = JSON.stringify([
      String(connect.ca ?? ''),
      String(connect.cert ?? ''),
      String(connect.key ?? ''),
      connect.rejectUnauthorized,
      connect.servername,
    ]);
    if (!this.agent || key !== this.agentKey) {
      const { Agent } = await undici();
      void this.agent?.close();
      this.agent = new Agent({ connect, keepAliveTimeout: 60_000, bodyTimeout: 0 });
      this.agentKey = key;
    }
    const headers: Record<string, string> = { Accept: 'application/json' };
    for (const [k, v] of Object.entries(o.headers ?? {}))
      if (v !== undefined) headers[k] = String(v);
    if (o.auth) headers['Authorization'] = `Basic ${Buffer.from(o.auth).toString('base64')}`;
    if (req.contentType) headers['Content-Type'] = req.contentType;
    const init: Record<string, unknown> = { method: req.method, headers, dispatcher: this.agent };
    if (req.body !== undefined) init['body'] = req.body;
    return { url: this.server + req.path, init };
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    const { url, init } = await this.prepare(req);
    const timeoutMs = this.opts.requestTimeoutMs ?? 30_000;
    const abort = requestAbort(req.signal, {
      ms: timeoutMs,
      error: () =>
        Object.assign(new Error(`request timed out after ${timeoutMs} ms`), {
          name: 'TimeoutError',
        }),
    });
    init['signal'] = abort.signal;
    let res: Awaited<ReturnType<typeof kfcFetch<unknown>>>;
    try {
      res = await kfcFetch<unknown>(url, init as Parameters<typeof kfcFetch>[1]);
    } finally {
      abort.done();
    }
    const failure = (res as { e?: unknown }).e;
    // KFC's fetch reports network failures as ok:false with the error attached and no body.
    if (failure && res.data === undefined)
      throw failure instanceof Error ? failure : new Error(String(failure));
    const body =
      res.data === undefined
        ? ''
        : typeof res.data === 'string'
          ? res.data
          : JSON.stringify(res.data);
    return { status: res.status, body };
  }

  async stream(req: HttpRequest): Promise<HttpStream> {
    const { url, init } = await this.prepare(req);
    const abort = requestAbort(req.signal);
    init['signal'] = abort.signal;
    const { fetch } = await undici();
    let res: Awaited<ReturnType<Undici['fetch']>>;
    try {
      res = await fetch(url, init);
    } catch (e) {
      abort.done();
      throw e;
    }
    const source = res.body ?? (async function* () {})();
    const body = async function* (): AsyncGenerator<Uint8Array> {
      try {
        yield* source;
      } finally {
        abort.done();
      }
    };
    return { status: res.status, body: body() };
  }

  close(): void {
    void this.agent?.close();
    this.agent = undefined;
  }
}
