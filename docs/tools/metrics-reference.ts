// The metrics table, from the registries the controllers really create.
import { RuntimeMetrics } from '../../packages/core/src/runtime/manager/metrics.js';
import { AutoRepairMetrics } from '../../packages/core/src/autorepair/metrics.js';
import { RemediationMetrics } from '../../packages/capo-remediation/src/controller/metrics.js';
import { code, table } from './markdown.js';

export interface MetricDoc {
  readonly name: string;
  readonly type: string;
  readonly labels: readonly string[];
  readonly help: string;
  readonly source: string;
}

/**
 * Labels of the capo-remediation counters (a prom-client-shaped counter without labelNames);
 * a test checks these against the `.inc({...})` calls in its source.
 */
export const capoCounterLabels: Readonly<Record<string, readonly string[]>> = {
  noderepair_openstack_remediation_actions_total: ['type', 'result'],
  noderepair_openstack_remediation_outcomes_total: ['result'],
  noderepair_capo_cloud_unreachable_total: ['operation'],
};

/** prom-client's default process and Node.js metrics, documented as one row. */
export const isDefaultMetric = (name: string): boolean => /^(process_|nodejs_)/.test(name);

interface RegistryMetric {
  name: string;
  labelNames?: string[];
  get(): { type: string; help: string } | Promise<{ type: string; help: string }>;
}

/** Every metric the controllers register, from real registries (the manager's and ours). */
export async function registeredMetrics(): Promise<MetricDoc[]> {
  const sources: Array<[string, (r: RuntimeMetrics['registry']) => void]> = [
    ['core runtime (`runtime/manager/metrics.ts`)', () => undefined],
    ['core auto-repair (`autorepair/metrics.ts`)', (r) => void new AutoRepairMetrics(r)],
    ['capo-remediation (`controller/metrics.ts`)', (r) => void new RemediationMetrics(r)],
  ];
  const out: MetricDoc[] = [];
  const seen = new Set<string>();
  for (const [source, register] of sources) {
    // One registry per source, each with the runtime's metrics, to attribute every name.
    const runtime = new RuntimeMetrics(undefined, { defaultMetrics: false });
    const before = new Set(runtime.registry.getMetricsAsArray().map((m) => m.name));
    register(runtime.registry);
    const metrics = runtime.registry.getMetricsAsArray() as unknown as RegistryMetric[];
    for (const m of metrics) {
      const own = source.startsWith('core runtime') || !before.has(m.name);
      if (!own || seen.has(m.name)) continue;
      seen.add(m.name);
      const v = await m.get();
      const labels = m.labelNames ?? capoCounterLabels[m.name];
      if (labels === undefined) throw new Error(`metrics reference: labels of ${m.name} unknown`);
      out.push({ name: m.name, type: v.type, labels, help: v.help, source });
    }
  }
  return out;
}

/** Names of prom-client's default metrics, as the manager's registry exposes them. */
export function defaultMetricNames(): string[] {
  const runtime = new RuntimeMetrics();
  return runtime.registry
    .getMetricsAsArray()
    .map((m) => m.name)
    .filter(isDefaultMetric);
}

export async function metricsReference(): Promise<string> {
  const rows = (await registeredMetrics()).map((m) => [
    code(m.name),
    m.type,
    m.labels.map(code).join(', ') || '-',
    m.help.replace(/\.$/, ''),
  ]);
  rows.push([
    '`process_*`, `nodejs_*`',
    'various',
    '-',
    "prom-client's default metrics (CPU, resident memory, open fds, event-loop lag, heap, GC), on every controller's registry",
  ]);
  return table(['metric', 'type', 'labels', 'meaning'], rows);
}
