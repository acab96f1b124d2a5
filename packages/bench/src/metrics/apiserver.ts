// Reads kube-apiserver's own /metrics (as envtest's admin) and sums the APF dispatch counter
// by FlowSchema: one FlowSchema per party (see cluster/identities.ts), so this is the number
// of requests each party sent, watches included (a watch counts once, when it starts).
import { request } from 'node:https';
import type { ControlPlane } from '@noderepair/envtest';
import { parsePrometheusText, sumBy } from './prometheus-text.js';

export const DISPATCHED = 'apiserver_flowcontrol_dispatched_requests_total';

export function fetchApiServerMetrics(cp: ControlPlane): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${cp.server}/metrics`,
      { ca: cp.caPem, headers: { authorization: `Bearer ${cp.adminToken}` }, timeout: 30_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(body)
            : reject(
                new Error(`kube-apiserver /metrics: HTTP ${res.statusCode}: ${body.slice(0, 200)}`),
              ),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('kube-apiserver /metrics: timeout')));
    req.on('error', reject);
    req.end();
  });
}

export async function dispatchedByFlowSchema(cp: ControlPlane): Promise<Map<string, number>> {
  return sumBy(parsePrometheusText(await fetchApiServerMetrics(cp)), DISPATCHED, 'flow_schema');
}
