// Reads kube-apiserver's own /metrics (as envtest's admin) and sums the APF dispatch counter
// by FlowSchema: one FlowSchema per party (see cluster/identities.ts), so this is the number
// of requests each party sent, watches included (a watch counts once, when it starts).
import type { ControlPlane } from '@noderepair/envtest';
import { adminGet } from '../cluster/admin-get.js';
import { parsePrometheusText, sumBy } from './prometheus-text.js';

export const DISPATCHED = 'apiserver_flowcontrol_dispatched_requests_total';

export function fetchApiServerMetrics(cp: ControlPlane): Promise<string> {
  return adminGet(cp, '/metrics', { what: 'kube-apiserver /metrics', timeoutMs: 30_000 });
}

export async function dispatchedByFlowSchema(cp: ControlPlane): Promise<Map<string, number>> {
  return sumBy(parsePrometheusText(await fetchApiServerMetrics(cp)), DISPATCHED, 'flow_schema');
}
