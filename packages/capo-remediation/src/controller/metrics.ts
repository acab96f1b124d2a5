// Remediation metrics on the manager's prom-client Registry. A registry accepts any object
// with prom-client's metric shape (name, get()); a tiny counter of that shape keeps this
// package free of a direct prom-client dependency while sharing the manager's /metrics.
import type { Manager } from '@noderepair/core';

type Registry = Manager['metrics']['registry'];

class LabelledCounter {
  private readonly values = new Map<string, { labels: Record<string, string>; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Record<string, string>): void {
    const key = JSON.stringify(Object.entries(labels).sort());
    const v = this.values.get(key);
    if (v) v.value += 1;
    else this.values.set(key, { labels, value: 1 });
  }

  value(labels: Record<string, string>): number {
    return this.values.get(JSON.stringify(Object.entries(labels).sort()))?.value ?? 0;
  }

  get() {
    return {
      name: this.name,
      help: this.help,
      type: 'counter',
      aggregator: 'sum',
      values: [...this.values.values()].map((v) => ({ labels: v.labels, value: v.value })),
    };
  }

  reset(): void {
    this.values.clear();
  }
}

/**
 * The remediation counters. Given the manager's registry they are served on its /metrics;
 * without one they only count (for tests).
 */
export class RemediationMetrics {
  /** Nova actions sent, by step type and result (Succeeded = accepted by Nova). */
  readonly actions = new LabelledCounter(
    'noderepair_openstack_remediation_actions_total',
    'Server actions (SoftReboot, HardReboot, Rebuild) sent to Nova, by type and result.',
  );
  /** Remediations that ended, by result (Succeeded, Failed = handed to Cluster API). */
  readonly outcomes = new LabelledCounter(
    'noderepair_openstack_remediation_outcomes_total',
    'OpenStackRemediations that ended, by result.',
  );

  /** Calls to the cloud that got no answer (outage): each is a wait, never a used attempt. */
  readonly cloudUnavailable = new LabelledCounter(
    'noderepair_capo_cloud_unreachable_total',
    'Nova/Keystone calls (execute, fence, power) that got no answer; the remediation waits and asks again.',
  );

  constructor(registry?: Registry) {
    if (registry) {
      registry.registerMetric(this.cloudUnavailable as never);
      registry.registerMetric(this.actions as never);
      registry.registerMetric(this.outcomes as never);
    }
  }
}
