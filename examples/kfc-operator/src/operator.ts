// Wiring: core's auto-repair controller on a core Manager, talking to the cluster through
// core's kubernetes-fluent-client adapter, plus a status publisher that writes with KFC's own
// fluent API. Both load the kubeconfig the way KFC does (KUBECONFIG, ~/.kube/config or the
// in-cluster service account), so the operator needs no cluster settings of its own.
import { addAutoRepairController, Manager, type AutoRepairController } from '@noderepair/core';
import { createKfcKubeClient } from '@noderepair/core/kfc';
import { K8s, kind } from 'kubernetes-fluent-client';
import type { OperatorConfig } from './config.js';
import { loadPolicy } from './policy.js';
import { statusData } from './status.js';

export const OperatorName = 'kfc-operator';

export async function runOperator(cfg: OperatorConfig, signal: AbortSignal): Promise<void> {
  const policy = await loadPolicy(cfg.namespace, cfg.policyConfigMap);
  const client = createKfcKubeClient();
  const manager = new Manager({ name: OperatorName, probes: false });
  manager.log.info({ dryRun: policy.dryRun, labelSelector: cfg.labelSelector }, 'starting');
  const repair = addAutoRepairController(manager, {
    client,
    policy,
    name: OperatorName,
    ...(cfg.labelSelector !== undefined ? { labelSelector: cfg.labelSelector } : {}),
  });
  manager.add({
    name: 'status-publisher',
    start: (stop) =>
      publishStatus(cfg, repair, stop, (err) => manager.log.warn({ err }, 'status not written')),
  });
  try {
    await manager.start(signal);
  } finally {
    client.close();
  }
}

/** Writes the status ConfigMap whenever it would change, until stopped. */
async function publishStatus(
  cfg: OperatorConfig,
  repair: AutoRepairController,
  stop: AbortSignal,
  warn: (err: unknown) => void,
): Promise<void> {
  await repair.informer.waitForSync(stop).catch(() => undefined); // rejected only when stopping
  let last = '';
  while (!stop.aborted) {
    const data = statusData(repair.informer.list(), (n) => repair.store.read(n), Date.now());
    const text = JSON.stringify(data);
    if (text !== last) {
      try {
        // Server-side apply with KFC (field manager "pepr"): we own the whole data map.
        await K8s(kind.ConfigMap).Apply(
          { metadata: { name: cfg.statusConfigMap, namespace: cfg.namespace }, data },
          { force: true },
        );
        last = text;
      } catch (err) {
        warn(err); // the next round tries again
      }
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, cfg.statusIntervalMs);
      stop.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
  }
}
