// One GET against envtest's kube-apiserver as its admin, the body as text: for what the typed
// client does not speak (the apiserver's own /metrics, a list as a server-side Table).
import { request } from 'node:https';
import type { ControlPlane } from '@noderepair/envtest';

export interface AdminGetOptions {
  /** Names the request in errors, e.g. "kube-apiserver /metrics". */
  what: string;
  timeoutMs: number;
  accept?: string;
}

/** The body of a 200 reply; anything else rejects with the status and the body's start. */
export function adminGet(cp: ControlPlane, path: string, opts: AdminGetOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${cp.server}${path}`,
      {
        ca: cp.caPem,
        headers: {
          authorization: `Bearer ${cp.adminToken}`,
          ...(opts.accept !== undefined ? { accept: opts.accept } : {}),
        },
        timeout: opts.timeoutMs,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(body)
            : reject(new Error(`${opts.what}: HTTP ${res.statusCode}: ${body.slice(0, 200)}`)),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${opts.what}: timeout`)));
    req.on('error', reject);
    req.end();
  });
}
