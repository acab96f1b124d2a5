import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeClient } from '../client.js';
import { configCredentials } from '../config/credentials.js';
import { isClusterConfig, type ClusterConfig } from '../config/cluster-config.js';
import { HttpsTransport, type HttpsTransportOptions } from '../https-transport.js';
import { RestKubeClient } from '../rest-client.js';
import { clientNodeCredentials } from './credentials.js';

/**
 * Options of the transport createKubeClient builds (an alias kept for older callers).
 *
 * @deprecated the options are the transport's: HttpsTransportOptions.
 */
export type ClientNodeTransportOptions = HttpsTransportOptions;

/**
 * The default adapter: a KubeClient for one cluster. Pass a ClusterConfig from
 * loadKubeConfig / parseKubeConfig (no @kubernetes/client-node is loaded), or a client-node
 * KubeConfig you already have. Create one per cluster; nothing is shared globally.
 */
export function createKubeClient(
  config: ClusterConfig | KubeConfig,
  opts: HttpsTransportOptions = {},
): KubeClient & { close(): void } {
  const source = isClusterConfig(config)
    ? configCredentials(config)
    : clientNodeCredentials(config);
  const transport = new HttpsTransport(source, opts);
  const client = new RestKubeClient(transport);
  return Object.assign(client, { close: () => transport.close() });
}
