// /healthz, /readyz and /metrics on one small HTTP server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** What the probe server asks to answer /healthz and /readyz. */
export interface ProbeChecks {
  /** False makes /healthz (and /livez) answer 503. */
  healthy(): boolean;
  /** null when ready, otherwise the reason (returned as the 503 body). */
  notReadyReason(): string | null;
}

/**
 * Serves /healthz, /livez, /readyz and /metrics (the registry) over HTTP on the given port and host
 * (default 0.0.0.0); resolves once listening. Port 0 picks a free port.
 */
export function startProbeServer(
  checks: ProbeChecks,
  registry: Registry,
  listen: { port: number; host?: string },
): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') {
      res.writeHead(405).end();
      return;
    }
    if (path === '/healthz' || path === '/livez') {
      const ok = checks.healthy();
      res.writeHead(ok ? 200 : 503, { 'Content-Type': 'text/plain' }).end(ok ? 'ok' : 'unhealthy');
    } else if (path === '/readyz') {
      const reason = checks.notReadyReason();
      res
        .writeHead(reason === null ? 200 : 503, { 'Content-Type': 'text/plain' })
        .end(reason ?? 'ok');
    } else if (path === '/metrics') {
      registry.metrics().then(
        (body) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(body),
        () => res.writeHead(500).end('metrics unavailable'),
      );
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** The port the server listens on (useful after listening on port 0). */
export function serverPort(server: http.Server): number {
  return (server.address() as AddressInfo).port;
}
