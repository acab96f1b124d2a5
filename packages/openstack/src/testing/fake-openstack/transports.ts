// The two ways into a FakeOpenStack: an in-memory Transport for unit tests (no sockets), and a
// real HTTP(S) server on a random loopback port. Both reach the same router, with the same
// injected latency.
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { OpenStackError } from '../../errors.js';
import type { HttpRequest, HttpResponse, Transport } from '../../transport.js';
import type { RawRequest, RawResponse } from './http.js';

/** What the transports need of the fake. */
export interface FakeWire {
  dispatch(req: RawRequest): RawResponse;
  /** The fake's root URL now (it changes when it listens). */
  baseUrl(): string;
  /** The injected reply delay now. */
  latencyMs(): number;
}

/** In-memory transport for the client: same handling, no sockets. Honours latency and timeouts. */
export function memoryTransport(fake: FakeWire): Transport {
  return async (req: HttpRequest): Promise<HttpResponse> => {
    const url = new URL(req.url);
    if (url.origin !== new URL(fake.baseUrl()).origin) {
      throw new OpenStackError(
        'TransportError',
        `${req.method} ${url.origin}${url.pathname}: connection failed (ECONNREFUSED)`,
        undefined,
        { notSent: true },
      );
    }
    const headers = new Headers(req.headers);
    const res = fake.dispatch({ method: req.method, url, headers, body: req.body ?? '' });
    const latency = fake.latencyMs();
    if (latency > 0) {
      await new Promise((r) => setTimeout(r, Math.min(latency, req.timeoutMs)));
      if (latency >= req.timeoutMs)
        throw new OpenStackError(
          'Timeout',
          `${req.method} ${url.origin}${url.pathname}: no reply within ${req.timeoutMs} ms`,
        );
    }
    return new Response(res.status === 202 || res.body === '' ? null : res.body, {
      status: res.status,
      headers: res.headers,
    });
  };
}

/** Serves the fake on 127.0.0.1:<random> (HTTPS when a certificate is given). */
export async function listenHttp(
  fake: FakeWire,
  tls: { cert: string; key: string } | undefined,
): Promise<{ server: Server; baseUrl: string }> {
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = fake.dispatch({
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', fake.baseUrl()),
        headers: {
          get: (n: string) => {
            const v = req.headers[n.toLowerCase()];
            return Array.isArray(v) ? v.join(', ') : (v ?? null);
          },
        },
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const send = () => {
        res.writeHead(raw.status, raw.headers);
        res.end(raw.body);
      };
      if (fake.latencyMs() > 0) setTimeout(send, fake.latencyMs());
      else send();
    });
  };
  const server = tls
    ? createHttpsServer({ cert: tls.cert, key: tls.key }, handler)
    : createHttpServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return { server, baseUrl: `${tls ? 'https' : 'http'}://127.0.0.1:${port}` };
}
