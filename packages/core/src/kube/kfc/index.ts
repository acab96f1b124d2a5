/**
 * The KubeClient port over kubernetes-fluent-client (KFC), for Pepr-based operators that already
 * ship KFC. Import this subpath only when you want KFC: the main entry point never loads it, so
 * other users do not pay for the dependency.
 *
 * @packageDocumentation
 */
// Before client-node's module graph: fails, saying what to install, where it cannot load.
import '../client-node-guard.js';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeClient } from '../client.js';
import { RestKubeClient } from '../rest-client.js';
import { KfcTransport, type KfcTransportOptions } from './transport.js';

export type { KfcTransportOptions } from './transport.js';

/**
 * A KubeClient on KFC's HTTP layer. Pass a KubeConfig per cluster; without one it loads the
 * default kubeconfig / in-cluster config the way KFC itself does (Pepr's behaviour).
 */
export function createKfcKubeClient(
  kubeConfig?: KubeConfig,
  opts: KfcTransportOptions = {},
): KubeClient & { close(): void } {
  let kc = kubeConfig;
  if (!kc) {
    kc = new KubeConfig();
    kc.loadFromDefault();
  }
  const transport = new KfcTransport(kc, opts);
  return Object.assign(new RestKubeClient(transport), { close: () => transport.close() });
}
