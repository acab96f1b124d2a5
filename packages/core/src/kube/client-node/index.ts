import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeClient } from '../client.js';
import { RestKubeClient } from '../rest-client.js';
import { ClientNodeTransport, type ClientNodeTransportOptions } from './transport.js';

export type { ClientNodeTransportOptions } from './transport.js';

/**
 * The default adapter: a KubeClient for one cluster, authenticated by the given KubeConfig.
 * Create one per cluster; nothing is read from the environment or shared globally.
 */
export function createKubeClient(
  kubeConfig: KubeConfig,
  opts: ClientNodeTransportOptions = {},
): KubeClient & { close(): void } {
  const transport = new ClientNodeTransport(kubeConfig, opts);
  const client = new RestKubeClient(transport);
  return Object.assign(client, { close: () => transport.close() });
}
